// `arlab plot RESULTS... -o DIR`: the three pictures of a sweep, through harness/plot.py:
//   busbw.png      bus bandwidth against size per algorithm (and the roofline, from --roofline)
//   latency.png    measured and fitted time against size, and the smallest size against N
//                  with lines in N and in log2 N (arlab fit's evidence)
//   simulated.png  measured time against arlab sim's, with the fitted parameters
#include "harness/plot_command.h"

#include <sys/stat.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "harness/cli.h"
#include "harness/errors.h"
#include "harness/fit.h"
#include "harness/plot_runner.h"
#include "harness/results.h"

namespace arlab {
namespace {

void draw_versus(const std::vector<FitGroup>& groups, const std::string& png) {
  nlohmann::json doc{{"schema", "arlab.versus.v1"}, {"groups", nlohmann::json::array()}};
  for (const FitGroup& g : groups) {
    if (g.fit.parameters == 0) continue;
    nlohmann::json group{{"algorithm", g.algorithm}, {"transport", g.transport}, {"points", nlohmann::json::array()}};
    for (const FitPoint& p : g.points)
      group["points"].push_back({{"nranks", p.nranks}, {"bytes", p.bytes}, {"measured", p.seconds},
                                 {"simulated", simulate_point(p, g.fit.value)}});
    doc["groups"].push_back(group);
  }
  plot_from_data("versus", ".versus.json", doc.dump(1) + "\n", png);
}

// plot.py's busbw reads CSV: the points of every file (CSV or JSON), in the columns it needs.
void draw_busbw(const std::vector<MeasuredPoint>& measured, const std::string& png) {
  std::string csv = "algorithm,transport,nranks,size_bytes,placement,time_us,busbw_gbs,bound_us\n";
  for (const MeasuredPoint& p : measured) {
    const Measurement m = measurement(p.bytes, p.time_us, p.nranks, -1);
    char line[256];
    std::snprintf(line, sizeof line, ",%d,%lu,%s,%.3f,%.6f,%.3f\n", p.nranks, static_cast<unsigned long>(p.bytes),
                  p.placement.c_str(), p.time_us, m.busbw, p.bound_us);
    csv += p.algorithm + "," + p.transport + line;
  }
  plot_from_data("busbw", ".busbw.csv", csv, png);
}

}  // namespace

int run_plot(int argc, char** argv) {
  CLI::App app{"arlab plot: busbw, latency-term and measured-versus-simulated plots of arlab bench results"};
  std::vector<std::string> files;
  std::string dir;
  app.add_option("results", files, "CSV or JSON files from arlab bench")->required();
  app.add_option("-o,--output", dir, "directory for the PNG files")->required();
  parse_flags(app, argc, argv);
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) throw UsageError("-o " + dir + ": not a directory");

  std::vector<MeasuredPoint> measured;
  for (const std::string& file : files) {
    auto points = read_results(file);  // every file checked before anything is drawn
    measured.insert(measured.end(), points.begin(), points.end());
  }
  std::vector<std::string> notes;
  const std::vector<FitGroup> groups = fit_groups(measured, "out", notes);
  draw_busbw(measured, dir + "/busbw.png");
  std::printf("%s/busbw.png: bus bandwidth against size\n", dir.c_str());
  if (groups.empty()) throw UsageError("nothing to fit in " + files.front() + ": no algorithm of this lab's (only mpi rows?)");
  draw_fit(groups, dir + "/latency.png");
  std::printf("%s/latency.png: measured and fitted times, and the latency term against N\n", dir.c_str());
  draw_versus(groups, dir + "/simulated.png");
  std::printf("%s/simulated.png: measured against arlab sim with the fitted parameters\n", dir.c_str());
  for (const std::string& note : notes) std::printf("# %s\n", note.c_str());
  return 0;
}

}  // namespace arlab
