// `arlab bench`: for every algorithm and size, time warm-up + n iterations out of place and
// in place (slowest rank's average), then run once more on fresh seeded data and count the
// wrong elements on every rank. Any wrong value makes the exit status 1. Buffers live on the
// --device (host memory, or the GPU of each rank's local rank).
#include "harness/bench.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <unistd.h>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "algorithms/reducers.h"
#include "arlab_commit.h"
#include "arlab_config.h"
#include "harness/check_data.h"
#include "harness/collective.h"
#include "harness/devices.h"
#include "harness/errors.h"
#include "harness/machine_cores.h"
#include "harness/reporters.h"
#include "harness/roofline.h"
#include "harness/sizes.h"
#include "harness/step_trace.h"
#include "harness/watchdog.h"
#include "transports/bootstrap.h"
#include "transports/registry.h"

namespace arlab {
namespace {

std::string now_iso8601() {
  char buf[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

class BenchRun {
 public:
  BenchRun(const BenchOptions& o, Bootstrap& boot) : o_(o), boot_(boot) {
    check_ranks_agree();
    device_ = open_device();
    // Transports refuse (no device, not on one node, ...) before any collective call, the
    // same way on every rank; all ranks agree, so a refusal is one line and exit 2.
    std::string refusal;
    try {
      transport_ = &lookup(o.transport);
      for (const std::string& algorithm : o.algorithms) lookup(transport_of(algorithm));  // the baselines' too
    } catch (const TransportUnavailable& e) {
      refusal = e.what();
    }
    agree(refusal);
    check_lockstep(o.lockstep, *transport_);  // the same on every rank
    if (device_->is_gpu() && !transport_->capabilities().gpu_memory)
      throw UsageError("-t " + o.transport + " cannot move GPU memory (" +
                       (o.transport == "mpi" ? "this MPI is not CUDA-aware" : "no GPU support") +
                       "); with --device cuda use -t nccl");
    elem_ = info(o.type).size;
    cores_ = machine_cores(boot);
    IdlePoll::set_cores_shared(cores_.shared());
    // Nodes: --ranks-per-node, or what the launcher says (ranks sharing memory); the largest
    // node's size on every rank, so all agree even when the last node is smaller.
    ranks_per_node_ = o.ranks_per_node > 0 ? o.ranks_per_node : static_cast<int>(boot.max(boot.local_size()));
    // auto must choose the same on every rank: each loads its host's file, then all agree.
    machine_ = load_tuning(o.tuning_path.empty() ? default_tuning_path(boot.hostname()) : o.tuning_path);
    agree_on_tuning(machine_, boot, o.transport, ranks_per_node_);
    const size_t bytes = std::max<uint64_t>(o.max_bytes, elem_);
    agree(memory_shortfall(bytes));
    // --offset shifts the input and output off the allocation's alignment, on purpose.
    if (o.symmetric) {
      // Collective, and the same on every rank: a refusal (no symmetric memory on this
      // transport, no room for it) is everyone's.
      try {
        symmetric_input_ = SymmetricBuffer(*transport_, bytes + o.offset_bytes);
        symmetric_output_ = SymmetricBuffer(*transport_, bytes + o.offset_bytes);
      } catch (const TransportUnavailable& e) {
        throw UsageError(std::string("--symmetric: ") + e.what());
      }
      input_base_ = symmetric_input_.data(), output_base_ = symmetric_output_.data();
    } else {
      input_ = DeviceBuffer(*device_, bytes + o.offset_bytes);
      output_ = DeviceBuffer(*device_, bytes + o.offset_bytes);
      input_base_ = input_.data(), output_base_ = output_.data();
    }
    expected_ = DeviceBuffer(*device_, bytes);
    host_.resize(bytes);
    host_scratch_.resize(bytes);
    hosts_ = boot.gather_strings(boot.hostname());
    nnodes_ = static_cast<int>(std::set<std::string>(hosts_.begin(), hosts_.end()).size());
    link_rate_ = o.link_rate;
    if (o.roofline && nnodes_ > 1 && link_rate_ <= 0) {
      link_rate_ = measure_link_rate(lookup("mpi"), boot, hosts_);
      link_measured_ = true;
    }
    if (boot.rank() == 0) {
      table_ = make_table_reporter();
      if (!o.csv_path.empty()) reporters_.push_back(make_csv_reporter(o.csv_path));
      if (!o.json_path.empty()) reporters_.push_back(make_json_reporter(o.json_path));
      if (!o.prometheus_path.empty()) reporters_.push_back(make_prometheus_reporter(o.prometheus_path));
      if (!o.trace_path.empty()) trace_ = std::make_unique<TraceWriter>(o.trace_path, hosts_, o.command_line);
    }
  }

  int run() {
    const RunMetadata meta = metadata();
    for (auto* r : all_reporters()) r->begin(meta);
    const auto sizes = size_sweep(o_.min_bytes, o_.max_bytes, o_.factor, o_.increment, elem_);
    uint64_t total_wrong = 0;
    const auto count_wrong = [&](const ResultRow& row) {
      total_wrong += std::max<int64_t>(0, row.out_of_place.wrong) + std::max<int64_t>(0, row.in_place.wrong);
    };
    if (o_.repeats == 1) {
      // One algorithm's sweep after another, each row reported as soon as it is measured.
      for (const std::string& algorithm : o_.algorithms) {
        for (auto* r : all_reporters()) r->begin_algorithm(algorithm, transport_of(algorithm));
        for (uint64_t size : sizes) {
          ResultRow row = measure({algorithm}, size).front();
          count_wrong(row);
          for (auto* r : all_reporters()) r->row(row);
        }
        for (auto* r : all_reporters()) r->end_algorithm();
      }
    } else {
      // Size by size, the algorithms interleaved; the files get each size's rows at once, the
      // table (one per algorithm) comes at the end.
      std::map<std::string, std::vector<ResultRow>> rows;
      for (uint64_t size : sizes)
        for (ResultRow& row : measure(o_.algorithms, size)) {
          count_wrong(row);
          for (auto* r : file_reporters()) r->row(row);
          rows[row.algorithm].push_back(std::move(row));
        }
      for (const std::string& algorithm : o_.algorithms) {
        if (!table_) break;
        table_->begin_algorithm(algorithm, transport_of(algorithm));
        for (const ResultRow& row : rows[algorithm]) table_->row(row);
        table_->end_algorithm();
      }
    }
    for (auto* r : all_reporters()) r->end();
    return total_wrong ? 1 : 0;
  }

 private:
  // The table first, then the files (rank 0 has them all; the other ranks none).
  std::vector<Reporter*> all_reporters() {
    std::vector<Reporter*> all = file_reporters();
    if (table_) all.insert(all.begin(), table_.get());
    return all;
  }
  std::vector<Reporter*> file_reporters() {
    std::vector<Reporter*> files;
    for (auto& r : reporters_) files.push_back(r.get());
    return files;
  }

  // The device on every rank, or one line and exit 2 on every rank if any rank cannot have
  // it (a rank that threw alone would leave the others waiting).
  std::unique_ptr<Device> open_device() {
    std::unique_ptr<Device> device;
    std::string error;
    try {
      device = make_device(o_.device, {boot_.local_rank(), boot_.local_size(), o_.allow_gpu_sharing});
    } catch (const std::exception& e) {
      error = e.what();
    }
    agree(error);
    return device;
  }

  // Every rank compares its settings with rank 0's before anything collective depends on them.
  void check_ranks_agree() {
    const auto mine = shared_settings(o_);
    std::string text;
    for (const auto& [flag, value] : mine) text += value + '\n';
    // values[r][f]: rank r's value of setting f.
    std::vector<std::vector<std::string>> values;
    for (const std::string& theirs : boot_.gather_strings(text)) {
      values.emplace_back();
      for (size_t begin = 0, end; (end = theirs.find('\n', begin)) != std::string::npos; begin = end + 1)
        values.back().push_back(theirs.substr(begin, end - begin));
    }
    for (size_t field = 0; field < mine.size(); ++field) {
      std::string differing;
      for (size_t r = 1; r < values.size(); ++r)
        if (values[r][field] != values[0][field])
          differing += (differing.empty() ? "" : ", ") + std::to_string(r) + " (" + values[r][field] + ")";
      if (!differing.empty())
        throw UsageError("ranks disagree on " + mine[field].first + ": rank 0 has " + values[0][field] + ", rank(s) " +
                         differing + " differ (every rank must get the same arguments; check the launcher line)");
    }
  }

  char* in() const { return input_base_ + o_.offset_bytes; }
  char* out() const { return output_base_ + o_.offset_bytes; }

  // Empty when this rank's buffers fit in the memory its node has available, shared with the
  // node's other ranks; otherwise the one line that says so, before anything is allocated.
  std::string memory_shortfall(size_t bytes) const {
    // Per rank in host memory: two staging copies and the collective's scratch (at most one
    // message), plus input, output and expected result when they live on the host.
    const double buffers = device_->is_gpu() ? 3 : 6;
    const double needed = buffers * static_cast<double>(bytes);
    const double node = available_memory_bytes();
    const double per_rank = node / std::max(1, boot_.local_size());
    if (node <= 0 || needed <= per_rank) return "";
    const auto gib = [](double b) {
      char text[32];
      std::snprintf(text, sizeof text, "%.1f GiB", b / (1u << 30));
      return std::string(text);
    };
    return "-e " + format_size(o_.max_bytes) + ": each rank needs " + gib(needed) + " of host memory (" +
           std::to_string(static_cast<int>(buffers)) + " buffers of the largest size), " + gib(per_rank) +
           " available per rank (" + gib(node) + " on this node, " + std::to_string(boot_.local_size()) + " rank(s)); lower -e";
  }

  // MemAvailable from /proc/meminfo, in bytes; 0 when unknown.
  static double available_memory_bytes() {
    std::FILE* f = std::fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    double kib = 0;
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "MemAvailable: %lf kB", &kib) == 1) break;
    std::fclose(f);
    return kib * 1024;
  }

  // Every rank's error (empty: none): the first one becomes everyone's usage error.
  void agree(const std::string& error) {
    for (const std::string& e : boot_.gather_strings(error))
      if (!e.empty()) throw UsageError(e);
  }

  Transport& lookup(std::string_view name) {
    auto it = transports_.find(std::string(name));
    if (it == transports_.end())
      it = transports_.emplace(std::string(name), make_transport(name, {&boot_, device_.get(), o_.ib_device, o_.ib_port, o_.gid_index, o_.ranks_per_node})).first;
    return *it->second;
  }

  std::string transport_of(const std::string& algorithm) const {
    for (const auto& b : baselines())
      if (b.name == algorithm) return std::string(b.transport);
    return o_.transport;
  }

  // Times every algorithm at one size, out of place then in place, on the same buffers: each
  // is warmed up, then --repeats rounds time each algorithm in turn and the median counts.
  // Then every result is checked on fresh data.
  std::vector<ResultRow> measure(const std::vector<std::string>& algorithms, uint64_t size) {
    const uint64_t count = size / elem_;
    std::vector<std::unique_ptr<Collective>> collectives;
    std::vector<ResultRow> rows;
    for (const std::string& algorithm : algorithms) {
      AllreduceSpec spec{algorithm, o_.type, o_.op, count, o_.chunk_bytes, ranks_per_node_, o_.inter, o_.intra,
                         machine_, o_.lockstep, o_.symmetric};
      collectives.push_back(
          make_collective(spec, *transport_, *device_, [this](std::string_view n) -> Transport& { return lookup(n); }));
      rows.push_back({algorithm, transport_of(algorithm), size, count, std::string(info(o_.type).name),
                      std::string(name(o_.op)), collectives.back()->chosen(), {}, {}, roofline_bound_us(size)});
    }
    if (o_.check && count > 0) {
      fill_expected(o_.type, o_.op, host_.data(), host_scratch_.data(), count, boot_.size(), o_.seed);
      device_->upload(expected_.data(), host_.data(), count * elem_);
    }
    for (bool in_place : {false, true}) {
      char* input = in_place ? out() : in();
      const auto activity = [&](size_t a) {
        Watchdog::instance().set_activity(algorithms[a] + " on " + transport_of(algorithms[a]) + ", " + format_size(size) +
                                          " (" + std::to_string(count) + " elements), " +
                                          (in_place ? "in place" : "out of place"));
      };
      upload_input(input, count);
      for (size_t a = 0; a < algorithms.size(); ++a) activity(a), warm_up(*collectives[a], input, out());
      // times[a][k]: algorithm a's average in round k.
      std::vector<std::vector<double>> times(algorithms.size());
      for (int round = 0; round < o_.repeats; ++round)
        for (size_t a = 0; a < algorithms.size(); ++a) activity(a), times[a].push_back(time_iterations(*collectives[a], input, out()));
      for (size_t a = 0; a < algorithms.size(); ++a) {
        activity(a);
        const int64_t wrong = o_.check ? check(*collectives[a], count, in_place) : -1;
        (in_place ? rows[a].in_place : rows[a].out_of_place) = measurement(size, median(times[a]), boot_.size(), wrong);
      }
    }
    if (!o_.trace_path.empty()) trace(algorithms, collectives, size);
    return rows;
  }

  // --trace: one more out-of-place call of each algorithm, its steps timed on every rank from
  // the barrier they leave together; rank 0 adds the call to the trace file.
  void trace(const std::vector<std::string>& algorithms, const std::vector<std::unique_ptr<Collective>>& collectives,
             uint64_t size) {
    for (size_t a = 0; a < algorithms.size(); ++a) {
      upload_input(in(), size / elem_);
      device_->synchronize();
      boot_.barrier();
      const std::vector<TracedSpan> mine = collectives[a]->run_traced(in(), out());
      const std::vector<std::string> all = boot_.gather_strings(pack_spans(mine));
      if (!trace_) continue;
      std::vector<std::vector<TracedSpan>> spans;
      for (const std::string& theirs : all) spans.push_back(unpack_spans(theirs));
      const std::string chosen = collectives[a]->chosen();
      trace_->add_call(algorithms[a] + (chosen.empty() ? "" : " (" + chosen + ")") + " " + format_size(size) + " out of place", spans);
    }
  }

  static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
  }

  // --roofline: the bound at this size, measured once (every rank takes part); 0 without.
  double roofline_bound_us(uint64_t size) {
    if (!o_.roofline) return 0;
    auto it = bounds_.find(size);
    if (it == bounds_.end()) {
      const MemoryLoopTimes loops = measure_memory_loops(*device_, boot_, o_.type, o_.op, out(), in(),
                                                         expected_.data(), size / elem_ * elem_);
      const double memory = memory_bound_us(loops, boot_.local_size());
      it = bounds_.emplace(size, std::max(memory, link_bound_us(static_cast<double>(size), nnodes_, link_rate_))).first;
    }
    return it->second;
  }

  void upload_input(char* in, uint64_t count) {
    fill_input(o_.type, o_.op, host_.data(), count, boot_.rank(), o_.seed);
    device_->upload(in, host_.data(), count * elem_);
  }

  void warm_up(Collective& c, const char* in, char* out) {
    for (int i = 0; i < o_.warmup; ++i) {
      c.run(in, out);
      Watchdog::instance().beat();
    }
  }

  // n iterations timed by the device (CUDA events on a GPU, the clock on the host); the
  // slowest rank's average.
  double time_iterations(Collective& c, const char* in, char* out) {
    Watchdog& watchdog = Watchdog::instance();
    device_->synchronize();
    boot_.barrier();
    device_->timer_start();
    for (int i = 0; i < o_.iterations; ++i) {
      c.run(in, out);
      watchdog.beat();
    }
    return boot_.max(device_->timer_stop_us() / o_.iterations);
  }

  // One more run on fresh data, compared with the expected result where it lives. The
  // output starts as garbage so an element the algorithm never writes is counted wrong.
  int64_t check(Collective& c, uint64_t count, bool in_place) {
    char* input = in_place ? out() : in();
    if (!in_place) device_->fill_bytes(out(), 0xa5, count * elem_);
    upload_input(input, count);
    c.run(input, out());
    if (o_.inject_corruption && boot_.rank() == boot_.size() - 1) {
      device_->download(host_.data(), out(), count * elem_);
      corrupt_one_element(o_.type, host_.data(), count);
      device_->upload(out(), host_.data(), count * elem_);
    }
    const uint64_t wrong =
        device_->count_mismatches(o_.type, out(), expected_.data(), count, check_tolerance(o_.type, boot_.size()));
    return static_cast<int64_t>(boot_.sum(wrong));
  }

  RunMetadata metadata() {
    RunMetadata m;
    m.arlab_version = ARLAB_VERSION;
    m.git_commit = ARLAB_GIT_COMMIT;
    m.command_line = o_.command_line;
    m.started_at = now_iso8601();
    m.transport = o_.transport;
    m.mpi_library = boot_.library_version();
    m.device = device_->name();
    for (const auto& [name, transport] : transports_) {
      const std::string version = transport->library_version();
      if (!version.empty()) m.libraries += (m.libraries.empty() ? "" : ", ") + version;
    }
    if (const char* job = std::getenv("SLURM_JOB_ID")) m.slurm_job_id = job;
    m.type = info(o_.type).name;
    m.redop = name(o_.op);
    m.nranks = boot_.size();
    m.hosts = hosts_;
    m.nnodes = nnodes_;
    m.ranks_per_node = ranks_per_node_;
    m.iterations = o_.iterations;
    m.warmup = o_.warmup;
    m.check = o_.check;
    m.chunk_bytes = o_.chunk_bytes;
    m.algorithms = o_.algorithms;
    m.alpha = machine_.alpha;
    m.beta = machine_.beta;
    m.gamma = machine_.gamma;
    m.tuning_source = machine_.source;
    m.cores = cores_.describe();
    m.cpu = this_cpu();
    m.environment = library_environment();
    if (o_.roofline) m.roofline = roofline_description(boot_.local_size(), nnodes_, link_rate_, link_measured_, !device_->is_gpu());
    m.repeats = o_.repeats;
    return m;
  }

  const BenchOptions& o_;
  Bootstrap& boot_;
  std::unique_ptr<Device> device_;  // before the transports and buffers that use it
  std::map<std::string, std::unique_ptr<Transport>> transports_;
  Transport* transport_ = nullptr;
  size_t elem_ = 4;
  MachineParams machine_;
  int ranks_per_node_ = 0;
  MachineCores cores_;  // how the ranks share this rank's machine
  DeviceBuffer input_, output_, expected_;
  SymmetricBuffer symmetric_input_, symmetric_output_;  // --symmetric: input and output here instead
  char* input_base_ = nullptr;
  char* output_base_ = nullptr;
  std::vector<char> host_, host_scratch_;  // seeded data is made here, then uploaded
  std::unique_ptr<Reporter> table_;                  // rank 0: stdout
  std::vector<std::unique_ptr<Reporter>> reporters_;  // rank 0: the files
  std::unique_ptr<TraceWriter> trace_;                 // rank 0, with --trace
  std::map<uint64_t, double> bounds_;                  // --roofline: size -> bound (us)
  std::vector<std::string> hosts_;                     // every rank's host
  int nnodes_ = 1;
  double link_rate_ = 0;  // --roofline across nodes: bytes/s, given or measured
  bool link_measured_ = false;
};

}  // namespace

int run_bench(const BenchOptions& options, Bootstrap& bootstrap) { return BenchRun(options, bootstrap).run(); }

}  // namespace arlab
