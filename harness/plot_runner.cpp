#include "harness/plot_runner.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

#include "arlab_config.h"
#include "harness/errors.h"
#include "harness/reporters.h"

namespace arlab {
namespace {

std::string python() {
  if (const char* p = std::getenv("ARLAB_PYTHON"); p && *p) return p;
  return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

}  // namespace

void run_plot_script(const std::vector<std::string>& args) {
  std::vector<std::string> argv_strings{python(), std::string(ARLAB_SOURCE_DIR) + "/harness/plot.py"};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  int err_pipe[2];
  if (pipe(err_pipe) != 0) throw UsageError("plot: pipe() failed");
  const pid_t child = fork();
  if (child < 0) throw UsageError("plot: fork() failed");
  if (child == 0) {
    dup2(err_pipe[1], 2);
    close(err_pipe[0]);
    std::vector<char*> argv;
    for (auto& a : argv_strings) argv.push_back(a.data());
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  close(err_pipe[1]);
  std::string err;
  char buffer[512];
  for (ssize_t n; (n = read(err_pipe[0], buffer, sizeof buffer)) > 0;) err.append(buffer, n);
  close(err_pipe[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    while (!err.empty() && err.back() == '\n') err.pop_back();
    const size_t last = err.rfind('\n');
    throw UsageError("plot: " + (err.empty() ? std::string("plot.py failed") : err.substr(last == std::string::npos ? 0 : last + 1)));
  }
}

void draw_fit(const std::vector<FitGroup>& groups, const std::string& png) {
  nlohmann::json doc;
  doc["schema"] = "arlab.fit.v1";
  for (const FitGroup& g : groups) {
    nlohmann::json group{{"algorithm", g.algorithm}, {"transport", g.transport}, {"fitted", g.fit.parameters > 0},
                         {"alpha_s", g.fit.value[0]}, {"beta_s_per_byte", g.fit.value[1]}, {"gamma_s_per_byte", g.fit.value[2]}};
    for (const FitPoint& p : g.points)
      group["points"].push_back({{"nranks", p.nranks}, {"bytes", p.bytes}, {"seconds", p.seconds},
                                 {"predicted", model_time(p.counts, g.fit.value[0], g.fit.value[1], g.fit.value[2])}});
    for (const LatencyPoint& s : latency_series(g))
      group["latency"].push_back({{"nranks", s.nranks}, {"seconds", s.seconds}, {"alpha_term", g.fit.value[0] * s.rounds}});
    doc["groups"].push_back(group);
  }
  plot_from_data("fit", ".fit.json", doc.dump(1) + "\n", png);
}

void plot_from_data(const std::string& kind, const std::string& suffix, const std::string& data, const std::string& png) {
  const std::string path = png + suffix;
  write_file_atomically(path, data);
  try {
    run_plot_script({kind, path, "-o", png});
  } catch (...) {
    std::remove(path.c_str());
    throw;
  }
  std::remove(path.c_str());
}

}  // namespace arlab
