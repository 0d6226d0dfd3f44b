// Every registered algorithm, proved by the symbolic checker at N = 1..64 and at 127, 128,
// 1000 and 4096, counts 0, 1, N-1, N+1 and 1,000,003, out of place and in place, unpipelined
// and in 64 KiB chunks (16 of them for the largest count). Ring and Swing at 4096, whose
// schedules hold tens of millions of operations, are in large_schedule_test.cpp. hier at 4096
// runs over 512 nodes of 8 ranks, the machine the model predicts from N = 8: on one node of
// 4096 ranks its direct phases hold 4096^2 messages (414 s on the 2-core build VM), and one
// node is checked at 1000.
#include <gtest/gtest.h>

#include <tuple>

#include "algorithms/checker.h"
#include "algorithms/errors.h"
#include "algorithms/registry.h"

namespace arlab {
namespace {

struct Case {
  std::string algorithm;
  int nranks;
  int ranks_per_node = 0;  // hier's nodes (0: one node)
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.algorithm << "/N" << c.nranks;
  if (c.ranks_per_node) *os << "/K" << c.ranks_per_node;
}

class AlgorithmSchedules : public ::testing::TestWithParam<Case> {};

TEST_P(AlgorithmSchedules, CheckForEveryCount) {
  const auto [name, n, ranks_per_node] = GetParam();
  const AlgorithmInfo* a = find_algorithm(name);
  ASSERT_NE(a, nullptr);
  const std::vector<uint64_t> counts = {0, 1, static_cast<uint64_t>(n - 1), static_cast<uint64_t>(n + 1), 1000003};
  for (uint64_t count : counts)
    for (uint64_t chunk : {uint64_t{0}, uint64_t{65536}})
      for (bool in_place : {false, true}) {
        if (n >= 1000 && (chunk || in_place)) continue;  // the big worlds: the plain case only
        SCOPED_TRACE(testing::Message() << "count " << count << " chunk " << chunk << (in_place ? " in place" : ""));
        Problem p;
        p.nranks = n;
        p.count = count;
        p.element_size = 4;
        p.chunk_bytes = chunk;
        p.ranks_per_node = ranks_per_node;
        check_algorithm(a->generate, p, {.in_place = in_place});
      }
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const auto& a : algorithms()) {
    if (a.name == "ring") continue;  // ring_schedule_test.cpp and large_schedule_test.cpp
    for (int n = 1; n <= 64; ++n) out.push_back({std::string(a.name), n});
    for (int n : {127, 128, 1000, 4096})
      if (!(a.name == "swing" && n == 4096))  // large_schedule_test.cpp
        out.push_back({std::string(a.name), n, a.name == "hier" && n == 4096 ? 8 : 0});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Registry, AlgorithmSchedules, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.algorithm + "_N" + std::to_string(info.param.nranks); });

}  // namespace
}  // namespace arlab

namespace arlab {
namespace {

// hier over nodes of K ranks (the last node smaller when K does not divide N), with every
// flat algorithm between the nodes, and both intra-node phases (ring only for equal nodes).
TEST(HierarchicalSchedules, EveryNodeSizeAndInterAlgorithm) {
  const AlgorithmInfo& hier = *find_algorithm("hier");
  for (const std::string intra : {"direct", "ring"})
  for (const auto& inter : algorithms()) {
    if (inter.name == "hier") continue;
    for (int n = 1; n <= 24; ++n)
      for (int k : {1, 2, 3, 5, 8}) {
        if (intra == "ring" && n % std::min(n, k)) continue;
        for (uint64_t count : {uint64_t{0}, uint64_t{1}, static_cast<uint64_t>(n + 1), uint64_t{1003}})
          for (bool in_place : {false, true}) {
            SCOPED_TRACE(testing::Message() << "intra " << intra << " inter " << inter.name << " N " << n << " K " << k
                                            << " count " << count << (in_place ? " in place" : ""));
            Problem p;
            p.nranks = n;
            p.count = count;
            p.element_size = 4;
            p.ranks_per_node = k;
            p.inter = std::string(inter.name);
            p.intra = intra;
            check_algorithm(hier.generate, p, {.in_place = in_place});
          }
      }
  }
}

// A rank alone on its node has nothing to reduce inside it: hier then runs the inter-node
// algorithm straight from its input, as that algorithm would on its own (no copy of the whole
// buffer into the output first, no intra-node scratch). Also on the last, one-rank node of an
// uneven layout (7 ranks, 3 per node).
TEST(HierarchicalSchedules, OneRankPerNodeCopiesNothing) {
  for (const auto& [n, k, rank] : {std::tuple{4, 1, 0}, std::tuple{4, 1, 3}, std::tuple{7, 3, 6}}) {
    Problem p;
    p.nranks = n;
    p.rank = rank;
    p.count = 1003;
    p.element_size = 4;
    p.ranks_per_node = k;
    const RankSchedule hier = find_algorithm("hier")->generate(p);
    p.ranks_per_node = 0;
    p.nranks = (n + k - 1) / k;
    p.rank = rank / k;
    const RankSchedule ring = find_algorithm("ring")->generate(p);
    SCOPED_TRACE(testing::Message() << "N " << n << " K " << k << " rank " << rank);
    size_t copies = 0, reads_input = 0;
    for (const Op& op : hier.all_ops()) {
      copies += op.kind == OpKind::Copy;
      reads_input += op.kind == OpKind::Send && op.a_buffer == BufferId::Input;
    }
    EXPECT_EQ(copies, 0u);
    EXPECT_GT(reads_input, 0u);
    EXPECT_EQ(hier.scratch_count, ring.scratch_count);
    EXPECT_EQ(hier.all_ops().size(), ring.all_ops().size());
  }
}

// What hier cannot serve is refused before any schedule exists: ring inside nodes of
// different sizes (7 ranks, 3 per node), and hier between nodes.
TEST(HierarchicalSchedules, RefusesWhatItCannotServe) {
  for (const auto& [intra, inter] : {std::pair{"ring", "ring"}, std::pair{"direct", "hier"}}) {
    Problem p;
    p.nranks = 7;
    p.ranks_per_node = 3;
    p.intra = intra;
    p.inter = inter;
    EXPECT_THROW(find_algorithm("hier")->generate(p), UnsupportedProblem) << intra << " / " << inter;
  }
}

}  // namespace
}  // namespace arlab
