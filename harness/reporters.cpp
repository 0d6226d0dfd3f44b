#include "harness/reporters.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "harness/watchdog.h"

namespace arlab {

std::vector<std::pair<std::string, std::string>> library_environment() {
  std::vector<std::pair<std::string, std::string>> out;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = entry.substr(0, eq);
    // mpirun's own bookkeeping (OMPI_MCA_orte_*, ess, pmix, ...) is not a setting.
    bool launcher = false;
    for (const char* internal : {"OMPI_MCA_orte_", "OMPI_MCA_ess", "OMPI_MCA_pmix", "OMPI_MCA_initial_wdir", "OMPI_MCA_shmem_"})
      launcher |= name.rfind(internal, 0) == 0;
    for (const char* prefix : {"NCCL_", "UCX_", "OMPI_MCA_", "FI_", "ARLAB_SOCKET_IFNAME"})
      if (!launcher && name.rfind(prefix, 0) == 0) out.emplace_back(name, entry.substr(eq + 1));
  }
  std::sort(out.begin(), out.end());
  return out;
}

void write_file_atomically(const std::string& path, const std::string& content) {
  SignalsHeld held;  // Ctrl-C or scancel lands after the rename, never between the write and it
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(errno));
    out << content;
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw std::runtime_error("cannot rename " + tmp + " to " + path + ": " + std::strerror(errno));
}

namespace {

// nccl-tests prints times with 2 decimals below 10 ms and fewer above, in 7 columns.
std::string time_text(double us) {
  char buf[32];
  if (us < 1e4) std::snprintf(buf, sizeof buf, "%7.2f", us);
  else if (us < 1e6) std::snprintf(buf, sizeof buf, "%7.1f", us);
  else std::snprintf(buf, sizeof buf, "%7.0f", us);
  return buf;
}

std::string wrong_text(int64_t wrong) { return wrong < 0 ? "N/A" : std::to_string(wrong); }

class TableReporter final : public Reporter {
 public:
  void begin(const RunMetadata& m) override {
    std::printf("# arlab %s (%s): all-reduce, %d rank(s) on %d node(s), transport %s, %s\n", m.arlab_version.c_str(),
                m.git_commit.c_str(), m.nranks, m.nnodes, m.transport.c_str(), m.mpi_library.c_str());
    std::printf("# device %s%s%s\n", m.device.c_str(), m.libraries.empty() ? "" : ", ", m.libraries.c_str());
    if (!m.cores.empty()) std::printf("# cores: %s\n", m.cores.c_str());
    if (!m.cpu.empty()) std::printf("# cpu: %s\n", m.cpu.c_str());
    std::printf("# iterations %d, warm-up %d, check %d, chunk %s\n", m.iterations, m.warmup, m.check,
                m.chunk_bytes ? (std::to_string(m.chunk_bytes) + " B").c_str() : "none");
    std::printf("# time = slowest rank's average%s, algbw = size / time, busbw = algbw * 2(N-1)/N\n",
                m.repeats > 1 ? (", the median of " + std::to_string(m.repeats) + " runs with the algorithms interleaved").c_str() : "");
    if (!m.roofline.empty()) std::printf("%s\n", m.roofline.c_str());
    roofline_ = !m.roofline.empty();
    if (std::find(m.algorithms.begin(), m.algorithms.end(), "auto") != m.algorithms.end())
      std::printf("# auto chooses with alpha %.3g s, beta %.3g s/B, gamma %.3g s/B (%s)\n", m.alpha, m.beta, m.gamma,
                  m.tuning_source.c_str());
    std::fflush(stdout);
  }
  void begin_algorithm(const std::string& algorithm, const std::string& transport) override {
    busbw_sum_ = 0;
    rows_ = 0;
    wrong_ = 0;
    std::printf("#\n# algorithm: %s (transport %s)\n#\n", algorithm.c_str(), transport.c_str());
    std::printf("#%75s%37s%s\n", "out-of-place", "in-place", roofline_ ? "                 roofline" : "");
    std::printf("#%11s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s%s\n", "size", "count", "type",
                "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong",
                roofline_ ? "    bound    %out     %in" : "");
    std::printf("#%11s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s%s\n", "(B)", "(elements)", "", "",
                "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", roofline_ ? "     (us)" : "");
    std::fflush(stdout);
  }
  void row(const ResultRow& r) override {
    std::printf("%12lu  %12lu  %8s  %6s  %6d  ", static_cast<unsigned long>(r.size), static_cast<unsigned long>(r.count),
                r.type.c_str(), r.redop.c_str(), -1);
    for (const Measurement* m : {&r.out_of_place, &r.in_place}) {
      std::printf("%s  %6.2f  %6.2f  %6s  ", time_text(m->time_us).c_str(), m->algbw, m->busbw,
                  wrong_text(m->wrong).c_str());
      busbw_sum_ += m->busbw / 2;
      if (m->wrong > 0) wrong_ += m->wrong;
    }
    if (roofline_)
      std::printf("%s  %6.1f  %6.1f  ", time_text(r.bound_us).c_str(), percent_of_bound(r.bound_us, r.out_of_place.time_us),
                  percent_of_bound(r.bound_us, r.in_place.time_us));
    if (!r.chosen.empty()) std::printf("<- %s", r.chosen.c_str());
    std::printf("\n");
    std::fflush(stdout);
    ++rows_;
  }
  void end_algorithm() override {
    std::printf("# Out of bounds values : %ld %s\n", static_cast<long>(wrong_), wrong_ ? "FAILED" : "OK");
    std::printf("# Avg bus bandwidth    : %g\n", rows_ ? busbw_sum_ / rows_ : 0.0);
    std::fflush(stdout);
  }

 private:
  static double percent_of_bound(double bound_us, double time_us) { return time_us > 0 ? 100 * bound_us / time_us : 0; }

  bool roofline_ = false;
  double busbw_sum_ = 0;
  int rows_ = 0;
  int64_t wrong_ = 0;
};

}  // namespace

const char* const kCsvHeader =
    "algorithm,transport,nranks,nnodes,size_bytes,count,type,redop,placement,time_us,algbw_gbs,busbw_gbs,wrong,chosen,bound_us\n";

namespace {

class CsvReporter final : public Reporter {
 public:
  explicit CsvReporter(std::string path) : path_(std::move(path)) { content_ = kCsvHeader; }
  void begin(const RunMetadata& m) override {
    nranks_ = m.nranks;
    nnodes_ = m.nnodes;
    write_file_atomically(path_, content_);
  }
  void row(const ResultRow& r) override {
    for (const auto& [placement, m] : {std::pair{"out", &r.out_of_place}, std::pair{"in", &r.in_place}}) {
      char line[512];
      std::snprintf(line, sizeof line, "%s,%s,%d,%d,%lu,%lu,%s,%s,%s,%.3f,%.6f,%.6f,%ld,%s,", r.algorithm.c_str(),
                    r.transport.c_str(), nranks_, nnodes_, static_cast<unsigned long>(r.size),
                    static_cast<unsigned long>(r.count), r.type.c_str(), r.redop.c_str(), placement, m->time_us,
                    m->algbw, m->busbw, static_cast<long>(m->wrong), r.chosen.c_str());
      content_ += line;
      // bound_us: empty without --roofline.
      if (r.bound_us > 0) std::snprintf(line, sizeof line, "%.3f\n", r.bound_us);
      else std::snprintf(line, sizeof line, "\n");
      content_ += line;
    }
    write_file_atomically(path_, content_);
  }

 private:
  std::string path_, content_;
  int nranks_ = 1, nnodes_ = 1;
};

class JsonReporter final : public Reporter {
 public:
  explicit JsonReporter(std::string path) : path_(std::move(path)) {}
  void begin(const RunMetadata& m) override {
    doc_["schema"] = "arlab.bench.v1";
    doc_["metadata"] = {{"arlab_version", m.arlab_version}, {"git_commit", m.git_commit},
                        {"command_line", m.command_line}, {"started_at", m.started_at},
                        {"transport", m.transport},       {"mpi_library", m.mpi_library},
                        {"device", m.device},             {"libraries", m.libraries},
                        {"slurm_job_id", m.slurm_job_id}, {"nranks", m.nranks},
                        {"nnodes", m.nnodes},             {"ranks_per_node", m.ranks_per_node},
                        {"hosts", m.hosts},               {"type", m.type},
                        {"redop", m.redop},               {"iterations", m.iterations},
                        {"warmup", m.warmup},             {"check", m.check},
                        {"chunk_bytes", m.chunk_bytes},   {"algorithms", m.algorithms},
                        {"repeats", m.repeats},           {"roofline", m.roofline}, {"cores", m.cores}, {"cpu", m.cpu},
                        {"environment", nlohmann::json(std::map<std::string, std::string>(m.environment.begin(), m.environment.end()))},
                        {"model", {{"alpha_s", m.alpha}, {"beta_s_per_byte", m.beta}, {"gamma_s_per_byte", m.gamma},
                                   {"source", m.tuning_source}}}};
    doc_["results"] = nlohmann::json::array();
    doc_["complete"] = false;
    flush();
  }
  void row(const ResultRow& r) override {
    for (const auto& [placement, m] : {std::pair{"out", &r.out_of_place}, std::pair{"in", &r.in_place}})
      doc_["results"].push_back({{"algorithm", r.algorithm}, {"transport", r.transport}, {"size_bytes", r.size},
                                 {"count", r.count}, {"type", r.type}, {"redop", r.redop}, {"placement", placement},
                                 {"time_us", m->time_us}, {"algbw_gbs", m->algbw}, {"busbw_gbs", m->busbw},
                                 {"wrong", m->wrong}, {"chosen", r.chosen}, {"bound_us", r.bound_us}});
    flush();
  }
  void end() override {
    doc_["complete"] = true;
    flush();
  }

 private:
  void flush() { write_file_atomically(path_, doc_.dump(1) + "\n"); }
  std::string path_;
  nlohmann::json doc_;
};

}  // namespace

std::unique_ptr<Reporter> make_table_reporter() { return std::make_unique<TableReporter>(); }
std::unique_ptr<Reporter> make_csv_reporter(const std::string& path) { return std::make_unique<CsvReporter>(path); }
std::unique_ptr<Reporter> make_json_reporter(const std::string& path) { return std::make_unique<JsonReporter>(path); }

}  // namespace arlab
