// `arlab sim`: simulate an algorithm's schedules at any N on a modelled network and print a
// table like `arlab bench` (time, algbw, busbw per size), the critical path split into latency,
// bandwidth and reduction time, and the closed form next to it. A world whose schedules would
// not fit the memory budget is not simulated: the largest N that fits is, and the requested N
// is given by the closed form scaled by what the simulation found at that N, marked as such.
#include "harness/sim_command.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>

#include "algorithms/datatype.h"
#include "algorithms/registry.h"
#include "harness/bench_options.h"
#include "harness/cli.h"
#include "harness/errors.h"
#include "harness/fit.h"
#include "harness/reporters.h"
#include "harness/simulator.h"
#include "harness/sizes.h"
#include "harness/units.h"

namespace arlab {
namespace {

struct SimCommand {
  std::vector<std::string> algorithms;
  int nranks = 8;
  std::vector<uint64_t> sizes;
  const DataTypeInfo* type = nullptr;
  uint64_t chunk_bytes = 0;
  std::string inter = "ring", intra = "direct";
  NetworkSpec network;
  double gamma = 0;
  double max_memory = 0;  // bytes of schedules and simulator state
  std::string csv, json;
};

Problem problem_for(const SimCommand& c, int nranks, uint64_t bytes) {
  Problem p;
  p.nranks = nranks;
  p.count = bytes / c.type->size;
  p.element_size = c.type->size;
  p.chunk_bytes = c.chunk_bytes;
  p.ranks_per_node = c.network.ranks_per_node > 1 ? c.network.ranks_per_node : 0;
  p.inter = c.inter;
  p.intra = c.intra;
  return p;
}

// What the world's schedules and the simulator's state per step and op take, from rank 0's.
double world_bytes(const AlgorithmInfo& a, const Problem& p) {
  Problem p0 = p;
  p0.rank = 0;
  const RankSchedule s = a.generate(p0);
  return static_cast<double>(p.nranks) * (s.num_ops() * (sizeof(Op) + 4.0) + s.num_steps() * 56.0 + 256);
}

CostCounts counts(const SimCommand& c, const AlgorithmInfo& a, int nranks, uint64_t bytes) {
  return a.closed_form({nranks, static_cast<double>(bytes), 0, c.inter, c.intra});
}

double closed_form_seconds(const SimCommand& c, const AlgorithmInfo& a, int nranks, uint64_t bytes) {
  return model_time(counts(c, a, nranks, bytes), c.network.fabric.alpha_s, 1 / c.network.fabric.bytes_per_second, c.gamma);
}

struct SimRow {
  uint64_t bytes;
  SimTime time;
  double wall_s;
};

SimRow simulate_size(const SimCommand& c, const AlgorithmInfo& a, int nranks, uint64_t bytes) {
  const auto t0 = std::chrono::steady_clock::now();
  Problem p = problem_for(c, nranks, bytes);
  std::vector<RankSchedule> world;
  world.reserve(nranks);
  for (int r = 0; r < nranks; ++r) {
    p.rank = r;
    world.push_back(a.generate(p));
  }
  Network network(c.network, nranks);
  const SimResult result = simulate(world, network, {c.type->size, c.gamma});
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {bytes, result.finish, wall};
}

void print_header(const SimCommand& c, const std::string& algorithm, int nranks) {
  std::printf("# arlab sim: %s on %d ranks\n# %s\n", algorithm.c_str(), nranks, c.network.describe().c_str());
  std::printf("# reductions at %s (gamma); copies free; closed form: the registry's counts x alpha, beta, gamma, no contention%s\n",
              c.gamma > 0 ? format_bandwidth(1 / c.gamma).c_str() : "no cost",
              c.network.ranks_per_node > 1 ? " (not shown: two link classes)" : "");
  std::printf("#%11s %12s %8s %12s %10s %10s %12s %12s %12s %14s %9s\n", "size", "count", "type", "time(us)", "algbw",
              "busbw", "latency(us)", "bandw.(us)", "reduce(us)", "closed(us)", "wall(s)");
}

void print_row(const SimCommand& c, const SimRow& row, double closed_s, int nranks, const char* note) {
  const Measurement m = measurement(row.bytes, row.time.total() * 1e6, nranks, -1);
  char closed[32] = "-";
  if (c.network.ranks_per_node == 1) std::snprintf(closed, sizeof closed, "%.2f", closed_s * 1e6);
  std::printf("%12lu %12lu %8s %12.2f %10.2f %10.2f %12.2f %12.2f %12.2f %14s %9.2f%s\n",
              static_cast<unsigned long>(row.bytes), static_cast<unsigned long>(row.bytes / c.type->size),
              std::string(c.type->name).c_str(), m.time_us, m.algbw, m.busbw, row.time.latency * 1e6,
              row.time.bandwidth * 1e6, row.time.reduction * 1e6, closed, row.wall_s, note);
  std::fflush(stdout);
}

// The largest N (halving) whose world fits the budget at the largest size, or 0.
int largest_fitting(const SimCommand& c, const AlgorithmInfo& a) {
  for (int n = c.nranks; n >= 1; n /= 2)
    if (world_bytes(a, problem_for(c, n, c.sizes.back())) <= c.max_memory) return n;
  return 0;
}

void run_algorithm(const SimCommand& c, const AlgorithmInfo& a, std::vector<std::unique_ptr<Reporter>>& reporters) {
  const std::string name(a.name);
  const int fits = largest_fitting(c, a);
  if (fits == 0) throw UsageError("--max-memory: " + name + " does not fit even at N = 1");
  if (fits < c.nranks)
    std::printf("# %s at N = %d needs about %.1f GiB of schedules (--max-memory %.1f GiB): simulated at N = %d instead;\n"
                "# the N = %d rows are EXTRAPOLATED, not simulated: each part of the time scaled by its closed-form count from N = %d\n",
                name.c_str(), c.nranks, world_bytes(a, problem_for(c, c.nranks, c.sizes.back())) / (1 << 30),
                c.max_memory / (1 << 30), fits, c.nranks, fits);
  print_header(c, name, fits);
  for (auto& r : reporters) r->begin_algorithm(name, "sim");
  for (uint64_t bytes : c.sizes) {
    const SimRow row = simulate_size(c, a, fits, bytes);
    const double closed = closed_form_seconds(c, a, fits, bytes);
    print_row(c, row, closed, fits, "");
    if (fits < c.nranks) {
      // Each part of the critical path grows as its count in the closed form does from fits to N.
      const CostCounts small = counts(c, a, fits, bytes), large = counts(c, a, c.nranks, bytes);
      const auto grow = [](double simulated, double from, double to) { return from > 0 ? simulated * to / from : 0; };
      const SimTime t{grow(row.time.latency, small.rounds, large.rounds), grow(row.time.bandwidth, small.bytes_sent, large.bytes_sent),
                      grow(row.time.reduction, small.bytes_reduced, large.bytes_reduced)};
      print_row(c, {bytes, t, 0}, closed_form_seconds(c, a, c.nranks, bytes), c.nranks, "  EXTRAPOLATED");
      continue;  // results files hold simulated numbers only
    }
    const Measurement m = measurement(bytes, row.time.total() * 1e6, fits, -1);
    const ResultRow result{name, "sim", bytes, bytes / c.type->size, std::string(c.type->name), "sum", "", m, m};
    for (auto& r : reporters) r->row(result);
  }
  for (auto& r : reporters) r->end_algorithm();
  std::printf("\n");
}

}  // namespace

int run_sim(int argc, char** argv) {
  CLI::App app{"arlab sim: simulate an all-reduce's schedules for every rank on a modelled network"};
  SimCommand c;
  std::string algorithms = "ring", min = "8", max = "64M", dtype = "float", chunk = "0", fabric = "ib-hdr", alpha,
              bandwidth, intra = "nvlink4", topology = "switch", reduce_rate = "20GB/s", max_memory = "1G";
  double factor = 8;
  app.add_option("-a,--algorithms", algorithms, "comma-separated: " + algorithm_names())->capture_default_str();
  app.add_option("-N,--nranks", c.nranks, "ranks (GPUs)")->capture_default_str();
  app.add_option("-b,--minbytes", min, "smallest size")->capture_default_str();
  app.add_option("-e,--maxbytes", max, "largest size")->capture_default_str();
  app.add_option("-f,--stepfactor", factor, "multiply the size by this")->capture_default_str();
  app.add_option("-d,--datatype", dtype, "element type (its size is what counts)")->capture_default_str();
  app.add_option("--chunk", chunk, "pipeline chunk in bytes (0: none)")->capture_default_str();
  app.add_option("--inter", c.inter, "hier: algorithm between nodes")->capture_default_str();
  app.add_option("--intra", c.intra, "hier: phases inside a node")->capture_default_str();
  app.add_option("--fabric", fabric, "link between nodes: " + fabric_names())->capture_default_str();
  std::string from_fit;
  app.add_option("--from-fit", from_fit, "the fabric (and gamma) from arlab fit --json FILE[:ENTRY]");
  app.add_option("--alpha", alpha, "override the fabric's latency per message (1.5us)");
  app.add_option("--bandwidth", bandwidth, "override the fabric's bandwidth per port (100Gb/s, 25GB/s)");
  app.add_option("--topology", topology, "switch (one non-blocking switch) or fat-tree")->capture_default_str();
  app.add_option("--leaf-ports", c.network.leaf_ports, "fat-tree: NICs per leaf switch")->capture_default_str();
  app.add_option("--oversubscription", c.network.oversubscription, "fat-tree: down / up capacity of a leaf")->capture_default_str();
  app.add_option("--gpus-per-node", c.network.ranks_per_node, "ranks per node joined by --intra-fabric")->capture_default_str();
  app.add_option("--intra-fabric", intra, "link inside a node")->capture_default_str();
  app.add_option("--reduce-rate", reduce_rate, "bytes reduced per second per rank (gamma = 1 / rate; 0: free)")->capture_default_str();
  app.add_option("--max-memory", max_memory, "largest world to hold; beyond it, simulate a smaller N and extrapolate")->capture_default_str();
  app.add_option("--csv", c.csv, "write the simulated rows as CSV (the columns of arlab bench)");
  app.add_option("--json", c.json, "write them as JSON");
  parse_flags(app, argc, argv);

  for (const std::string& name : split_list("-a", algorithms)) {
    if (!find_algorithm(name)) throw UsageError("-a: unknown algorithm '" + name + "' (accepted: " + algorithm_names() + ")");
    c.algorithms.push_back(name);
  }
  if (c.nranks < 1 || c.nranks > (1 << 24)) throw UsageError("-N: between 1 and 16777216 ranks (got " + std::to_string(c.nranks) + ")");
  c.type = find_datatype(dtype);
  if (!c.type) throw UsageError("-d: unknown datatype '" + dtype + "' (accepted: " + datatype_names() + ")");
  if (!(factor > 1)) throw UsageError("-f: must be greater than 1");
  const uint64_t lo = parse_size("-b", min), hi = parse_size("-e", max);
  if (lo > hi) throw UsageError("-b " + min + " is larger than -e " + max);
  c.sizes = size_sweep(lo, hi, factor, 0, c.type->size);
  c.chunk_bytes = parse_size("--chunk", chunk);
  c.network.fabric = link_from("--fabric", fabric, alpha, bandwidth);
  c.network.intra = link_from("--intra-fabric", intra, "", "");
  if (topology == "fat-tree") c.network.topology = Topology::FatTree;
  else if (topology != "switch") throw UsageError("--topology: '" + topology + "' (accepted: switch, fat-tree)");
  const double rate = reduce_rate == "0" ? 0 : parse_bandwidth("--reduce-rate", reduce_rate);
  c.gamma = rate > 0 ? 1 / rate : 0;
  if (!from_fit.empty()) {
    const FittedLink fitted = read_fitted_link(from_fit);
    c.network.fabric = fitted.link;
    c.gamma = fitted.gamma;
    if (!alpha.empty()) c.network.fabric.alpha_s = parse_duration("--alpha", alpha);
    if (!bandwidth.empty()) c.network.fabric.bytes_per_second = parse_bandwidth("--bandwidth", bandwidth);
  }
  c.max_memory = static_cast<double>(parse_size("--max-memory", max_memory));
  Network check(c.network, 1);  // rejects a bad network before any work
  if (!c.csv.empty()) check_writable("--csv", c.csv);
  if (!c.json.empty()) check_writable("--json", c.json);

  RunMetadata meta;
  meta.transport = "sim";
  meta.nranks = c.nranks;
  meta.ranks_per_node = c.network.ranks_per_node;
  meta.nnodes = (c.nranks + meta.ranks_per_node - 1) / meta.ranks_per_node;
  meta.type = c.type->name;
  meta.redop = "sum";
  meta.algorithms = c.algorithms;
  meta.chunk_bytes = c.chunk_bytes;
  meta.alpha = c.network.fabric.alpha_s;
  meta.beta = 1 / c.network.fabric.bytes_per_second;
  meta.gamma = c.gamma;
  meta.tuning_source = "arlab sim: " + c.network.describe();
  std::vector<std::unique_ptr<Reporter>> reporters;
  if (!c.csv.empty()) reporters.push_back(make_csv_reporter(c.csv));
  if (!c.json.empty()) reporters.push_back(make_json_reporter(c.json));
  for (auto& r : reporters) r->begin(meta);
  for (const std::string& name : c.algorithms) run_algorithm(c, *find_algorithm(name), reporters);
  for (auto& r : reporters) r->end();
  return 0;
}

}  // namespace arlab
