// `arlab bench --prometheus FILE`: the run's results in the Prometheus text exposition format
// (version 0.0.4), for node_exporter's textfile collector (--collector.textfile.directory):
// name the file *.prom in that directory. Like the CSV and JSON, the file is rewritten after
// every row through FILE.tmp and rename(2), so the collector never reads half a file (it skips
// names that do not end in .prom).
//
//   arlab_allreduce_time_seconds{algorithm="ring",transport="mpi",size_bytes="1048576",nranks="4",...} 0.000231
#include <cmath>
#include <cstdio>
#include <map>

#include "harness/reporters.h"

namespace arlab {
namespace {

// Label values: backslash, double quote and newline escaped, as the format requires.
std::string escape(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

struct Family {
  const char* name;
  const char* help;
  double (*value)(const Measurement&);
};

const Family kFamilies[] = {
    {"arlab_allreduce_time_seconds", "All-reduce time per iteration, the slowest rank's average.",
     [](const Measurement& m) { return m.time_us * 1e-6; }},
    {"arlab_allreduce_algbw_bytes_per_second", "Algorithm bandwidth: message size / time.",
     [](const Measurement& m) { return m.algbw * 1e9; }},
    {"arlab_allreduce_busbw_bytes_per_second", "Bus bandwidth: algbw x 2(N-1)/N (nccl-tests).",
     [](const Measurement& m) { return m.busbw * 1e9; }},
    {"arlab_allreduce_wrong_elements", "Elements that differed from the expected result (-1: not checked).",
     [](const Measurement& m) { return static_cast<double>(m.wrong); }},
};

class PrometheusReporter final : public Reporter {
 public:
  explicit PrometheusReporter(std::string path) : path_(std::move(path)) {}

  void begin(const RunMetadata& m) override {
    meta_ = m;
    flush();
  }
  void row(const ResultRow& r) override {
    rows_.push_back(r);
    flush();
  }
  void end() override {
    complete_ = true;
    flush();
  }

 private:
  std::string labels(const ResultRow& r, const char* placement) const {
    const std::string host = meta_.hosts.empty() ? "" : meta_.hosts.front();
    return "{algorithm=\"" + escape(r.algorithm) + "\",transport=\"" + escape(r.transport) + "\",size_bytes=\"" +
           std::to_string(r.size) + "\",nranks=\"" + std::to_string(meta_.nranks) + "\",nnodes=\"" + std::to_string(meta_.nnodes) +
           "\",type=\"" + escape(r.type) + "\",redop=\"" + escape(r.redop) + "\",placement=\"" + placement + "\",host=\"" +
           escape(host) + "\"}";
  }

  void flush() {
    std::string out;
    // One family at a time: its HELP and TYPE, then every sample of it.
    for (const Family& f : kFamilies) {
      out += std::string("# HELP ") + f.name + " " + f.help + "\n# TYPE " + f.name + " gauge\n";
      for (const ResultRow& r : rows_)
        for (const auto& [placement, m] : {std::pair{"out", &r.out_of_place}, std::pair{"in", &r.in_place}})
          out += f.name + labels(r, placement) + " " + number(f.value(*m)) + "\n";
    }
    out += "# HELP arlab_run_info The run's settings and provenance; the value is always 1.\n# TYPE arlab_run_info gauge\n";
    out += "arlab_run_info{version=\"" + escape(meta_.arlab_version) + "\",git_commit=\"" + escape(meta_.git_commit) +
           "\",transport=\"" + escape(meta_.transport) + "\",mpi_library=\"" + escape(meta_.mpi_library) + "\",device=\"" +
           escape(meta_.device) + "\",slurm_job_id=\"" + escape(meta_.slurm_job_id) + "\",started_at=\"" + escape(meta_.started_at) +
           "\"} 1\n";
    out += "# HELP arlab_run_complete 1 once every size of every algorithm has been measured.\n# TYPE arlab_run_complete gauge\n";
    out += std::string("arlab_run_complete ") + (complete_ ? "1" : "0") + "\n";
    write_file_atomically(path_, out);
  }

  std::string path_;
  RunMetadata meta_;
  std::vector<ResultRow> rows_;
  bool complete_ = false;
};

}  // namespace

std::unique_ptr<Reporter> make_prometheus_reporter(const std::string& path) { return std::make_unique<PrometheusReporter>(path); }

}  // namespace arlab
