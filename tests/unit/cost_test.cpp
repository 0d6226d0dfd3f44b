// Every algorithm's closed-form alpha / beta / gamma counts equal the counts read off its
// own schedules, for N = 1..64 (n divisible by N, no pipelining: the closed forms' premise).
#include <gtest/gtest.h>

#include "algorithms/cost.h"
#include "algorithms/double_binary_tree.h"
#include "algorithms/registry.h"

namespace arlab {
namespace {

TEST(Cost, ClosedFormsMatchTheSchedules) {
  for (const auto& a : algorithms())
    for (int n = 1; n <= 64; ++n) {
      Problem p;
      p.nranks = n;
      p.count = 4096ull * n;
      p.element_size = 4;
      std::vector<RankSchedule> world;
      for (int r = 0; r < n; ++r) {
        p.rank = r;
        world.push_back(a.generate(p));
      }
      const CostCounts measured = measured_cost(world, p.element_size);
      const CostCounts closed = a.closed_form({n, static_cast<double>(p.count * p.element_size)});
      SCOPED_TRACE(std::string(a.name) + " N=" + std::to_string(n));
      EXPECT_DOUBLE_EQ(measured.rounds, closed.rounds);
      EXPECT_DOUBLE_EQ(measured.bytes_sent, closed.bytes_sent);
      EXPECT_DOUBLE_EQ(measured.bytes_reduced, closed.bytes_reduced);
    }
}

TEST(Cost, HierarchicalClosedFormMatchesForEqualNodes) {
  const AlgorithmInfo& hier = *find_algorithm("hier");
  for (const std::string intra : {"direct", "ring"})
  for (const std::string inter : {"ring", "rd", "rabenseifner", "dbtree", "tree", "swing"})
    for (int n = 1; n <= 24; ++n)
      for (int k : {1, 2, 3, 4, 6, 8}) {
        if (n % k) continue;
        Problem p;
        p.nranks = n;
        p.count = 4096ull * n * k;
        p.element_size = 4;
        p.ranks_per_node = k;
        p.inter = inter;
        p.intra = intra;
        std::vector<RankSchedule> world;
        for (int r = 0; r < n; ++r) {
          p.rank = r;
          world.push_back(hier.generate(p));
        }
        const CostCounts measured = measured_cost(world, p.element_size);
        const CostCounts closed = hier.closed_form({n, static_cast<double>(p.count * 4), k, inter, intra});
        SCOPED_TRACE("hier/" + inter + " intra " + intra + " N=" + std::to_string(n) + " K=" + std::to_string(k));
        EXPECT_DOUBLE_EQ(measured.rounds, closed.rounds);
        EXPECT_DOUBLE_EQ(measured.bytes_sent, closed.bytes_sent);
        EXPECT_DOUBLE_EQ(measured.bytes_reduced, closed.bytes_reduced);
      }
}

TEST(Cost, LatencyTermGrowsLinearlyForRingAndLogarithmicallyForTheTreeFamily) {
  const auto rounds = [](std::string_view name, int n) { return find_algorithm(name)->closed_form({n, 1e6}).rounds; };
  EXPECT_EQ(rounds("ring", 64) / rounds("ring", 8), 9.0);  // 2*63 / 2*7
  EXPECT_EQ(rounds("rd", 64), 6);
  EXPECT_EQ(rounds("rabenseifner", 64), 12);
  EXPECT_EQ(rounds("swing", 64), 12);
  EXPECT_EQ(rounds("tree", 64), 12);
  EXPECT_EQ(rounds("dbtree", 64), 12);  // up and down a tree of depth lg N
}

}  // namespace
}  // namespace arlab

namespace arlab {
namespace {

// The double binary tree's point: a rank is an interior node of at most one of the two trees
// (rank 0 is the exception for odd N, root of the first tree and interior in the shifted one).
TEST(DoubleBinaryTree, TreesAreComplementary) {
  for (int n = 2; n <= 64; ++n)
    for (int r = 0; r < n; ++r) {
      const int interior = double_binary_tree_interior(0, r, n) + double_binary_tree_interior(1, r, n);
      if (n % 2 == 1 && r == 0) continue;
      EXPECT_LE(interior, 1) << "N " << n << " rank " << r;
    }
}

}  // namespace
}  // namespace arlab
