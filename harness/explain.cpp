// `arlab explain -a ring -N 4 --count 8`: prints an algorithm's schedule rank by rank and
// step by step, then proves it with the symbolic checker. Needs no MPI.
#include "harness/explain.h"

#include <cstdio>

#include "algorithms/checker.h"
#include "algorithms/cost.h"
#include "algorithms/datatype.h"
#include "algorithms/registry.h"
#include "harness/cli.h"
#include "harness/errors.h"
#include "harness/fabrics.h"
#include "harness/simulator.h"
#include "harness/sizes.h"

namespace arlab {

namespace {

// The closed form next to the counts read off the schedules (maxima over ranks).
void print_cost(const AlgorithmInfo& a, const std::vector<RankSchedule>& world, const CostQuery& query,
                uint32_t element_size) {
  const uint64_t bytes = static_cast<uint64_t>(query.bytes);
  const CostCounts closed = a.closed_form(query);
  const CostCounts measured = measured_cost(world, element_size);
  std::printf("\n# cost: T = %s\n", std::string(a.formula).c_str());
  std::printf("#   (n = %lu bytes per rank; closed forms assume no pipelining and n divisible by N)\n",
              static_cast<unsigned long>(bytes));
  std::printf("%-26s %16s %16s\n", "term", "closed form", "from schedule");
  const struct {
    const char* name;
    double closed, measured;
  } rows[] = {{"alpha: message rounds", closed.rounds, measured.rounds},
              {"beta: bytes sent / rank", closed.bytes_sent, measured.bytes_sent},
              {"gamma: bytes reduced / rank", closed.bytes_reduced, measured.bytes_reduced}};
  for (const auto& r : rows)
    std::printf("%-26s %16.6g %16.6g%s\n", r.name, r.closed, r.measured, r.closed == r.measured ? "" : "   (differ)");
  // The three predictions side by side on one preset: the closed form, the schedule's counts,
  // and the simulator playing the schedules (they agree where the closed form is exact).
  NetworkSpec spec;
  spec.fabric = link_from("--fabric", "ib-hdr", "", "");
  const double alpha = spec.fabric.alpha_s, beta = 1 / spec.fabric.bytes_per_second, gamma = 1 / 20e9;
  Network network(spec, static_cast<int>(world.size()));
  const double simulated = simulate(world, network, {element_size, gamma}).finish.total();
  std::printf("%-26s %16.6g %16.6g   arlab sim: %.6g   (us; ib-hdr: alpha 1 us, 25 GB/s; reductions at 20 GB/s)\n",
              "time", model_time(closed, alpha, beta, gamma) * 1e6, model_time(measured, alpha, beta, gamma) * 1e6, simulated * 1e6);
}

}  // namespace

int run_explain(int argc, char** argv) {
  std::string algorithm = "ring", chunk = "0", type = "float32";
  int nranks = 4, only_rank = -1;
  bool cost = false;
  uint64_t count = 8;
  CLI::App app{"arlab explain: print an algorithm's schedule, rank by rank and step by step", "arlab explain"};
  app.add_option("-a,--algorithm", algorithm, "algorithm: " + algorithm_names())->capture_default_str();
  app.add_option("-N,--nranks", nranks, "number of ranks")->capture_default_str();
  app.add_option("--count", count, "elements per rank")->capture_default_str();
  app.add_option("--chunk", chunk, "pipeline chunk in bytes (0: none)")->capture_default_str();
  app.add_option("-d,--datatype", type, "datatype (sets the element size)")->capture_default_str();
  app.add_option("--rank", only_rank, "print only this rank");
  int ranks_per_node = 0;
  std::string inter = "ring", intra = "direct";
  app.add_option("--ranks-per-node", ranks_per_node, "hier: ranks per node (0: all on one node)");
  app.add_option("--inter", inter, "hier: the algorithm between nodes")->capture_default_str();
  app.add_option("--intra", intra, "hier: the reduce-scatter / all-gather inside a node")->capture_default_str();
  app.add_flag("--cost", cost, "print the closed-form alpha / beta / gamma counts next to the schedule's own");
  parse_flags(app, argc, argv);
  const AlgorithmInfo* a = find_algorithm(algorithm);
  if (!a) throw UsageError("-a: unknown algorithm '" + algorithm + "' (accepted: " + algorithm_names() + ")");
  if (nranks < 1 || nranks > 65536) throw UsageError("-N: between 1 and 65536 ranks (got " + std::to_string(nranks) + ")");
  if (only_rank >= nranks) throw UsageError("--rank " + std::to_string(only_rank) + ": there are only " + std::to_string(nranks) + " ranks");
  const DataTypeInfo* t = find_datatype(type);
  if (!t) throw UsageError("-d: unknown datatype '" + type + "' (accepted: " + datatype_names() + ")");

  Problem p;
  p.nranks = nranks;
  p.count = count;
  p.element_size = t->size;
  p.chunk_bytes = parse_size("--chunk", chunk);
  if (ranks_per_node < 0) throw UsageError("--ranks-per-node: must be positive (got " + std::to_string(ranks_per_node) + ")");
  p.ranks_per_node = ranks_per_node;
  p.inter = inter;
  p.intra = intra;
  std::printf("# %s all-reduce (%s): N = %d, count = %lu %s elements (%lu bytes) per rank, chunk %s\n",
              std::string(a->name).c_str(), std::string(a->summary).c_str(), nranks, static_cast<unsigned long>(count),
              std::string(t->name).c_str(), static_cast<unsigned long>(count * t->size),
              p.chunk_bytes ? format_size(p.chunk_bytes).c_str() : "none");
  std::printf("# buffers: in = this rank's input, out = its output, tmp = scratch; [a:b] = elements a..b-1\n");
  std::vector<RankSchedule> world;
  for (int r = 0; r < nranks; ++r) {
    p.rank = r;
    world.push_back(a->generate(p));
    if (only_rank >= 0 && r != only_rank) continue;
    const RankSchedule& s = world.back();
    std::printf("\nrank %d: %zu steps, %zu ops, scratch %lu elements\n", r, s.num_steps(), s.num_ops(),
                static_cast<unsigned long>(s.scratch_count));
    for (size_t step = 0; step < s.num_steps(); ++step) {
      std::string after;
      for (uint32_t d : s.deps(step)) after += (after.empty() ? " after " : ",") + std::to_string(d);
      std::printf("  step %zu%s:\n", step, after.c_str());
      for (const Op& op : s.ops(step)) std::printf("    %s\n", to_string(op).c_str());
    }
  }
  const CheckStats stats = check_schedules(world);
  std::printf("\n# checked: every rank's output holds all %d contributions exactly once; %lu messages matched, no races\n",
              nranks, static_cast<unsigned long>(stats.messages));
  if (cost) print_cost(*a, world, {nranks, static_cast<double>(count * t->size), p.ranks_per_node, p.inter, p.intra}, t->size);
  return 0;
}

}  // namespace arlab
