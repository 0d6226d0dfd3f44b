// The ring generator, proved by the symbolic checker for every world size the issue names
// and for the counts that break naive partitioning: 0, 1, N-1, N, N+1 and a large prime.
#include <gtest/gtest.h>

#include "algorithms/checker.h"
#include "algorithms/ring.h"
#include "tests/unit/ring_problem.h"

namespace arlab {
namespace {

std::vector<uint64_t> counts_for(int n) {
  return {0, 1, static_cast<uint64_t>(n - 1), static_cast<uint64_t>(n), static_cast<uint64_t>(n + 1), 1000003};
}

class RingWorld : public ::testing::TestWithParam<int> {};

TEST_P(RingWorld, EveryCountChecksOutOfPlaceAndInPlace) {
  const int n = GetParam();
  for (uint64_t count : counts_for(n)) {
    SCOPED_TRACE("count " + std::to_string(count));
    const CheckStats stats = check_algorithm(generate_ring, problem(n, count));
    check_algorithm(generate_ring, problem(n, count), {.in_place = true});
    // 2(N-1) messages per rank whenever every block is non-empty.
    if (count >= static_cast<uint64_t>(n)) {
      EXPECT_EQ(stats.messages, 2ull * n * (n - 1));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(SmallWorlds, RingWorld, ::testing::Range(1, 65));
INSTANTIATE_TEST_SUITE_P(LargeWorlds, RingWorld, ::testing::Values(127, 128, 1000));
// N = 4096 and 16384: the rotation checker (rotation_checker_test.cpp), and once through this
// checker in large_schedule_test.cpp (about 8 GiB, so it runs alone).

TEST(RingSchedule, PipelinedChunksCheckForUnevenBlocks) {
  for (int n : {2, 3, 5, 8, 13})
    for (uint64_t count : {1ull, 7ull, 100ull, 1001ull})
      for (uint64_t chunk : {4ull, 12ull, 64ull}) {
        SCOPED_TRACE(testing::Message() << "N " << n << " count " << count << " chunk " << chunk);
        check_algorithm(generate_ring, problem(n, count, chunk));
        check_algorithm(generate_ring, problem(n, count, chunk), {.in_place = true});
      }
}

TEST(RingSchedule, PipeliningSplitsBlocksIntoChunks) {
  // 4 ranks, 64 elements: blocks of 16; 8-byte chunks of float32 = 2 elements -> 8 chunks.
  const RankSchedule s = generate_ring(problem(4, 64, 8));
  uint64_t sends = 0;
  for (const Op& op : s.all_ops()) sends += op.kind == OpKind::Send;
  EXPECT_EQ(sends, 2u * 3u * 8u);
}


}  // namespace
}  // namespace arlab
