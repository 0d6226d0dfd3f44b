#include "harness/bench_options.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "algorithms/hierarchical.h"
#include "algorithms/registry.h"
#include "harness/collective.h"
#include "harness/cli.h"
#include "harness/devices.h"
#include "harness/errors.h"
#include "harness/sizes.h"
#include "harness/units.h"
#include "harness/watchdog.h"
#include "transports/registry.h"

namespace arlab {

void check_writable(const std::string& flag, const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0)
    throw UsageError(flag + " " + path + ": directory " + dir + " does not exist (" + std::strerror(errno) + ")");
  if (!S_ISDIR(st.st_mode)) throw UsageError(flag + " " + path + ": " + dir + " is not a directory");
  if (access(dir.c_str(), W_OK) != 0)
    throw UsageError(flag + " " + path + ": cannot write in " + dir + " (" + std::strerror(errno) + ")");
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) throw UsageError(flag + " " + path + ": is a directory");
}

std::vector<std::string> split_list(const std::string& flag, const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    // Results are keyed by name: a second "ring" would be reported under both headings.
    if (std::find(out.begin(), out.end(), item) != out.end()) throw UsageError(flag + ": '" + item + "' is listed twice");
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

void require_usable_transport(const std::string& name) {
  const TransportInfo* tr = find_transport(name);
  if (!tr) throw UsageError("-t: unknown transport '" + name + "' (accepted: " + transport_names() + ")");
  if (!tr->make) {
    std::string available;
    for (const auto& t : transports())
      if (t.make) available += (available.empty() ? "" : ", ") + std::string(t.name);
    throw UsageError("-t " + name + ": " + std::string(tr->unavailable_reason) + " (available here: " + available + ")");
  }
}

BenchOptions parse_bench_options(int argc, char** argv) {
  BenchOptions o;
  std::string min = "8", max = "16M", inc = "0", chunk = "0", type = "float32", op = "sum", algos = "ring,mpi";
  int check = 1;
  CLI::App app{"arlab bench: time all-reduce algorithms side by side (run under mpirun or srun)", "arlab bench"};
  app.add_option("-b,--minbytes", min, "smallest message size (8, 4K, 16M)")->capture_default_str();
  app.add_option("-e,--maxbytes", max, "largest message size")->capture_default_str();
  app.add_option("-f,--stepfactor", o.factor, "multiply the size by this factor each step")->capture_default_str();
  app.add_option("-i,--stepbytes", inc, "add this many bytes each step instead of multiplying");
  app.add_option("-n,--iters", o.iterations, "timed iterations per size")->capture_default_str();
  app.add_option("-w,--warmup_iters", o.warmup, "untimed warm-up iterations per size")->capture_default_str();
  app.add_option("-c,--check", check, "check results (0 or 1)")->capture_default_str();
  app.add_option("-d,--datatype", type, "datatype: " + datatype_names())->capture_default_str();
  app.add_option("-o,--op", op, "reduction: " + redop_names())->capture_default_str();
  app.add_option("-a,--algorithms", algos, "comma list of algorithms: " + all_algorithm_names())->capture_default_str();
  app.add_option("-t,--transport", o.transport, "transport: " + transport_names())->capture_default_str();
  std::string device;
  app.add_option("--device", device, "where buffers live: " + device_names() +
                                         " (default: cuda with -t nccl or -a ...nccl, else host)");
  app.add_flag("--allow-gpu-sharing", o.allow_gpu_sharing, "--device cuda: let several ranks share one GPU");
  app.add_flag("--lockstep", o.lockstep, "run schedules round by round, one message group per round (as -t nccl does)");
  app.add_option("--ib-dev", o.ib_device, "-t ibverbs: RDMA device (default: the first with an active port)");
  app.add_option("--ib-port", o.ib_port, "-t ibverbs: port number (default: the first active one)");
  app.add_option("--gid-index", o.gid_index, "-t ibverbs: GID index (default on RoCE: the first RoCE v2 GID)");
  app.add_option("--chunk", chunk, "pipeline chunk size in bytes (0: one chunk per block)")->capture_default_str();
  app.add_option("--ranks-per-node", o.ranks_per_node, "hier / auto: ranks per node (default: from the launcher)");
  app.add_option("--inter", o.inter, "hier: algorithm between nodes")->capture_default_str();
  app.add_option("--intra", o.intra, "hier: reduce-scatter / all-gather inside a node")->capture_default_str();
  app.add_option("--csv", o.csv_path, "write results as CSV to this file");
  app.add_option("--json", o.json_path, "write results and run metadata as JSON to this file");
  app.add_option("--trace", o.trace_path,
                 "after the timed runs, one more call per algorithm and size with every step timed on every rank, "
                 "written to this file as a Chrome trace (open it in ui.perfetto.dev)");
  app.add_option("--prometheus", o.prometheus_path, "write results in Prometheus' text format (node_exporter textfile: *.prom)");
  app.add_option("--tuning", o.tuning_path, "alpha/beta/gamma file for auto (default results/tuning/<host>.json)");
  app.add_option("--seed", o.seed, "seed of the generated data")->capture_default_str();
  app.add_option("--offset", o.offset_bytes,
                 "start input and output this many bytes past an aligned address (tests unaligned buffers)")
      ->capture_default_str();
  o.timeout_s = default_timeout_from_environment();
  app.add_option("--timeout", o.timeout_s,
                 "seconds without progress before a rank reports what it waits for and ends the job (0: never; "
                 "default ARLAB_TIMEOUT or 60)");
  app.add_flag("--roofline", o.roofline,
               "add the lowest time the hardware allows (memory bandwidth, link rate) and the fraction reached");
  std::string link_rate;
  app.add_option("--link-rate", link_rate, "--roofline across nodes: the link rate (100Gb/s, 12.5GB/s; default: measured)");
  app.add_option("-r,--repeats", o.repeats,
                 "time each size this many times, algorithms interleaved, and report the median")
      ->capture_default_str();
  app.add_flag("--symmetric", o.symmetric,
               "input and output in symmetric memory that every rank of the node maps (-t shm; like NCCL's "
               "symmetric windows): twoshot reads the peers' buffers directly, at any size");
  app.add_flag("--inject-corruption", o.inject_corruption,
               "fault injection: the last rank corrupts one element of each checked result (tests -c)");
  parse_flags(app, argc, argv);

  o.min_bytes = parse_size("-b", min);
  o.max_bytes = parse_size("-e", max);
  o.increment = parse_size("-i", inc);
  o.chunk_bytes = parse_size("--chunk", chunk);
  if (o.min_bytes > o.max_bytes)
    throw UsageError("-b " + min + " is larger than -e " + max + " (the sweep runs from -b up to -e)");
  if (!(o.factor > 1) && o.increment == 0 && o.min_bytes != o.max_bytes)
    throw UsageError("-f: the step factor must be greater than 1 (got " + std::to_string(o.factor) + "), or give -i");
  if (!std::isfinite(o.factor) || o.factor <= 0)
    throw UsageError("-f: the step factor must be a positive number (got " + std::to_string(o.factor) + ")");
  if (o.iterations < 1) throw UsageError("-n: at least 1 iteration (got " + std::to_string(o.iterations) + ")");
  if (o.warmup < 0) throw UsageError("-w: warm-up iterations cannot be negative (got " + std::to_string(o.warmup) + ")");
  if (o.ranks_per_node < 0) throw UsageError("--ranks-per-node: must be positive (got " + std::to_string(o.ranks_per_node) + ")");
  if (!find_algorithm(o.inter) || o.inter == "hier")
    throw UsageError("--inter: unknown algorithm '" + o.inter + "' (accepted: " + algorithm_names() + ", except hier)");
  if (!is_intra_node_phase(o.intra))
    throw UsageError("--intra: unknown intra-node algorithm '" + o.intra + "' (accepted: " + intra_node_names() + ")");
  if (!std::isfinite(o.timeout_s) || o.timeout_s < 0) {
    char got[32];
    std::snprintf(got, sizeof got, "%g", o.timeout_s);
    throw UsageError(std::string("--timeout: seconds, 0 or more (got ") + got + ")");
  }
  if (o.repeats < 1) throw UsageError("-r: at least 1 repeat (got " + std::to_string(o.repeats) + ")");
  if (!link_rate.empty()) {
    if (!o.roofline) throw UsageError("--link-rate " + link_rate + ": only with --roofline");
    o.link_rate = parse_bandwidth("--link-rate", link_rate);
    if (!(o.link_rate > 0)) throw UsageError("--link-rate: must be positive (got " + link_rate + ")");
  }
  if (check != 0 && check != 1) throw UsageError("-c: 0 or 1 (got " + std::to_string(check) + ")");
  o.check = check;
  const DataTypeInfo* t = find_datatype(type);
  if (!t) throw UsageError("-d: unknown datatype '" + type + "' (accepted: " + datatype_names() + ", or half, float, double)");
  o.type = t->type;
  const RedOpInfo* r = find_redop(op);
  if (!r) throw UsageError("-o: unknown reduction '" + op + "' (accepted: " + redop_names() + ")");
  o.op = r->op;
  o.algorithms = split_list("-a", algos);
  if (o.algorithms.empty()) throw UsageError("-a: the algorithm list is empty (accepted: " + all_algorithm_names() + ")");
  for (const auto& a : o.algorithms)
    if (!is_known_algorithm(a)) throw UsageError("-a: unknown algorithm '" + a + "' (accepted: " + all_algorithm_names() + ")");
  require_usable_transport(o.transport);
  const bool wants_gpu = o.transport == "nccl" || std::find(o.algorithms.begin(), o.algorithms.end(), "nccl") != o.algorithms.end();
  o.device = device.empty() ? (wants_gpu ? "cuda" : "host") : device;
  const DeviceInfo* d = find_device(o.device);
  if (!d) throw UsageError("--device: unknown device '" + o.device + "' (accepted: " + device_names() + ")");
  if (!d->make) throw UsageError("--device " + o.device + ": " + std::string(d->unavailable_reason));
  if (o.offset_bytes >= 4096) throw UsageError("--offset: 0 to 4095 bytes (got " + std::to_string(o.offset_bytes) + ")");
  if (o.device == "cuda" && o.offset_bytes % t->size != 0)
    throw UsageError("--offset " + std::to_string(o.offset_bytes) + ": GPU kernels need element-aligned buffers (a multiple of " +
                     std::to_string(t->size) + " for " + std::string(t->name) + ")");
  for (const auto& [flag, path] : {std::pair{"--csv", o.csv_path}, std::pair{"--json", o.json_path},
                                   std::pair{"--prometheus", o.prometheus_path}, std::pair{"--trace", o.trace_path}})
    if (!path.empty()) check_writable(flag, path);
  if (o.symmetric && o.device != "host")
    throw UsageError("--symmetric: host memory only (symmetric memory is shared host memory); leave out --device " + o.device);
  if (wants_gpu && o.device != "cuda") throw UsageError("-t nccl / -a nccl: NCCL moves GPU memory; use --device cuda");
  for (int i = 0; i < argc; ++i) o.command_line += (i ? " " : "") + std::string(argv[i]);
  return o;
}

std::vector<std::pair<std::string, std::string>> shared_settings(const BenchOptions& o) {
  std::string algorithms;
  for (const auto& a : o.algorithms) algorithms += (algorithms.empty() ? "" : ",") + a;
  return {{"-a", algorithms},
          {"-t", o.transport},
          {"-b", std::to_string(o.min_bytes)},
          {"-e", std::to_string(o.max_bytes)},
          {"-f", std::to_string(o.factor)},
          {"-i", std::to_string(o.increment)},
          {"-n", std::to_string(o.iterations)},
          {"-w", std::to_string(o.warmup)},
          {"-c", std::to_string(o.check)},
          {"-d", std::string(info(o.type).name)},
          {"-o", std::string(name(o.op))},
          {"--device", o.device},
          {"--chunk", std::to_string(o.chunk_bytes)},
          {"--ranks-per-node", std::to_string(o.ranks_per_node)},
          {"--inter", o.inter},
          {"--intra", o.intra},
          {"--lockstep", o.lockstep ? "on" : "off"},
          {"--offset", std::to_string(o.offset_bytes)},
          {"--seed", std::to_string(o.seed)},
          {"--roofline", o.roofline ? "on" : "off"},
          {"--link-rate", std::to_string(o.link_rate)},
          {"-r", std::to_string(o.repeats)},
          {"--symmetric", o.symmetric ? "on" : "off"},
          {"--trace", o.trace_path.empty() ? "off" : "on"}};
}

}  // namespace arlab
