// The simulator against what it must agree with: the checker's critical path in message
// latencies (every algorithm, every N), the closed forms where they are exact (powers of two,
// the algorithms whose busiest rank is on the critical path), and the topologies' effects:
// an oversubscribed fat tree slows traffic between leaves and only that, NVLink inside a node
// is used by messages inside a node.
#include <gtest/gtest.h>

#include <cmath>

#include "algorithms/checker.h"
#include "algorithms/cost.h"
#include "algorithms/registry.h"
#include "harness/simulator.h"

namespace arlab {
namespace {

std::vector<RankSchedule> world_of(const AlgorithmInfo& a, Problem p) {
  std::vector<RankSchedule> world;
  for (int r = 0; r < p.nranks; ++r) {
    p.rank = r;
    world.push_back(a.generate(p));
  }
  return world;
}

NetworkSpec fabric(double alpha, double bytes_per_second) {
  NetworkSpec spec;
  spec.fabric = {"test", alpha, bytes_per_second};
  spec.intra = spec.fabric;
  return spec;
}

double simulated(const std::vector<RankSchedule>& world, const NetworkSpec& spec, double gamma, SimTime* parts = nullptr) {
  Network network(spec, static_cast<int>(world.size()));
  const SimResult r = simulate(world, network, {4, gamma});
  if (parts) *parts = r.finish;
  return r.finish.total();
}

// With empty messages only latency counts: the simulated time is the checker's rounds x alpha,
// for every algorithm at every N, powers of two or not.
TEST(Simulator, LatencyOnlyIsTheCheckersCriticalPath) {
  for (const auto& a : algorithms())
    for (int n = 1; n <= 40; ++n) {
      Problem p;
      p.nranks = n;
      p.count = 0;
      const auto world = world_of(a, p);
      const CheckStats stats = check_schedules(world);
      SCOPED_TRACE(std::string(a.name) + " N=" + std::to_string(n));
      SimTime parts;
      EXPECT_NEAR(simulated(world, fabric(1.5e-6, 25e9), 1e-10, &parts), stats.rounds * 1.5e-6, 1e-15);
      EXPECT_EQ(parts.bandwidth, 0);
    }
}

// For N a power of two and n divisible by N, ring, recursive doubling, Rabenseifner, Swing and
// hier over them send, receive and reduce in lock step: the simulation is the closed form.
TEST(Simulator, EqualsTheClosedFormAtPowersOfTwo) {
  const double alpha = 1.3e-6, beta = 1 / 25e9, gamma = 1 / 20e9;
  for (const char* name : {"ring", "rd", "rabenseifner", "swing", "hier"})
    for (int n : {2, 4, 8, 16, 32, 64, 128}) {
      const AlgorithmInfo& a = *find_algorithm(name);
      Problem p;
      p.nranks = n;
      p.count = 1024ull * n;
      p.element_size = 4;
      p.ranks_per_node = std::string(name) == "hier" && n >= 4 ? 4 : 0;  // hier: nodes of 4, all on one fabric
      const double bytes = static_cast<double>(p.count) * 4;
      const CostCounts closed = a.closed_form({n, bytes, p.ranks_per_node, "ring", "direct"});
      const double expected = model_time(closed, alpha, beta, gamma);
      SCOPED_TRACE(std::string(name) + " N=" + std::to_string(n));
      SimTime parts;
      const auto world = world_of(a, p);
      EXPECT_NEAR(simulated(world, fabric(alpha, 25e9), gamma, &parts), expected, 1e-9 * expected);
      // What `arlab explain --cost` prints as "from schedule" agrees too.
      EXPECT_NEAR(model_time(measured_cost(world, 4), alpha, beta, gamma), expected, 1e-9 * expected);
      EXPECT_NEAR(parts.latency, closed.rounds * alpha, 1e-9 * expected);
      EXPECT_NEAR(parts.reduction, closed.bytes_reduced * gamma, 1e-9 * expected);
    }
}

// The closed forms of the trees count the busiest rank's bytes once; unpipelined, a tree's
// critical path carries the data once per level, so the simulation is never below them.
TEST(Simulator, TreesAreNeverFasterThanTheirClosedForm) {
  for (const char* name : {"tree", "dbtree"})
    for (int n : {2, 3, 8, 13, 64}) {
      const AlgorithmInfo& a = *find_algorithm(name);
      Problem p;
      p.nranks = n;
      p.count = 1024ull * n;
      const double expected = model_time(a.closed_form({n, p.count * 4.0}), 1e-6, 1 / 25e9, 1 / 20e9);
      EXPECT_GE(simulated(world_of(a, p), fabric(1e-6, 25e9), 1 / 20e9), expected * (1 - 1e-9)) << name << " N=" << n;
    }
}

TEST(Simulator, OversubscribedFatTreeSlowsOnlyTrafficBetweenLeaves) {
  Problem p;
  p.nranks = 64;
  p.count = 1 << 20;
  const auto rabenseifner = world_of(*find_algorithm("rabenseifner"), p);
  NetworkSpec tree = fabric(1e-6, 25e9);
  tree.topology = Topology::FatTree;
  tree.leaf_ports = 8;
  const double flat = simulated(rabenseifner, fabric(1e-6, 25e9), 0);
  tree.oversubscription = 1;
  EXPECT_DOUBLE_EQ(simulated(rabenseifner, tree, 0), flat);  // non-blocking: as one switch
  tree.oversubscription = 4;
  EXPECT_GT(simulated(rabenseifner, tree, 0), 1.5 * flat);  // its big exchanges cross leaves
  // A ring's neighbours share a leaf except at 8 boundaries, one message each way at a time:
  // two uplinks per leaf carry them without waiting.
  const auto ring = world_of(*find_algorithm("ring"), p);
  EXPECT_DOUBLE_EQ(simulated(ring, tree, 0), simulated(ring, fabric(1e-6, 25e9), 0));
}

TEST(Simulator, MessagesInsideANodeTakeTheIntraNodeLink) {
  Problem p;
  p.nranks = 32;
  p.count = 1 << 20;
  p.ranks_per_node = 8;
  const auto hier = world_of(*find_algorithm("hier"), p);
  NetworkSpec nodes = fabric(1e-6, 25e9);
  nodes.ranks_per_node = 8;
  nodes.intra = {"fast", 1e-7, 450e9};
  const double with_nvlink = simulated(hier, nodes, 0);
  const double flat = simulated(hier, fabric(1e-6, 25e9), 0);
  EXPECT_LT(with_nvlink, flat);
  // Only the ring between the 4 nodes (on n/8 bytes) stays on the fabric.
  const double between = model_time(find_algorithm("ring")->closed_form({4, p.count * 4.0 / 8}), 1e-6, 1 / 25e9, 0);
  EXPECT_GT(with_nvlink, between);
  EXPECT_LT(with_nvlink, between * 1.5);
}

TEST(Simulator, RejectsANetworkThatCannotCarryAnything) {
  EXPECT_THROW(Network(fabric(1e-6, 0), 4), std::exception);
  NetworkSpec tree = fabric(1e-6, 25e9);
  tree.topology = Topology::FatTree;
  tree.oversubscription = 0.5;
  EXPECT_THROW(Network(tree, 4), std::exception);
}

}  // namespace
}  // namespace arlab
