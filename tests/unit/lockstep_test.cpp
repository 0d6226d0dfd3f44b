// Lockstep rounds for every algorithm: matched messages share a round on both ranks, every
// step comes after the steps it waits for, and a schedule that would deadlock under
// rendezvous sends is refused.
#include <gtest/gtest.h>

#include <map>

#include "algorithms/errors.h"
#include "algorithms/lockstep.h"
#include "algorithms/registry.h"

namespace arlab {
namespace {

void expect_valid_rounds(const std::vector<RankSchedule>& world, const std::vector<std::vector<uint32_t>>& rounds,
                         const std::string& what) {
  // (from, to) -> the rounds of the k-th send and the k-th receive, k in op order.
  std::map<std::pair<int, int>, std::vector<uint32_t>> sends, receives;
  for (size_t r = 0; r < world.size(); ++r)
    for (uint32_t step = 0; step < world[r].num_steps(); ++step) {
      for (uint32_t dep : world[r].deps(step))
        ASSERT_GT(rounds[r][step], rounds[r][dep]) << what << " rank " << r << " step " << step;
      for (const Op& op : world[r].ops(step)) {
        if (is_outgoing(op.kind)) sends[{static_cast<int>(r), op.peer}].push_back(rounds[r][step]);
        if (is_incoming(op.kind)) receives[{op.peer, static_cast<int>(r)}].push_back(rounds[r][step]);
      }
    }
  EXPECT_EQ(sends, receives) << what;
}

TEST(Lockstep, EveryAlgorithmHasConsistentRounds) {
  for (const auto& a : algorithms())
    for (int n : {1, 2, 3, 4, 5, 6, 7, 8, 12, 16})
      for (uint64_t count : {uint64_t{1}, uint64_t{37}, uint64_t{1000}}) {
        Problem p;
        p.nranks = n;
        p.count = count;
        p.ranks_per_node = n % 2 == 0 && n > 2 ? 2 : 0;
        const auto world = generate_world(p, a.generate);
        const auto rounds = lockstep_rounds(world);
        expect_valid_rounds(world, rounds, std::string(a.name) + " N " + std::to_string(n) + " count " + std::to_string(count));
      }
}

TEST(Lockstep, RingTakesOneRoundPerStepAndNoMore) {
  Problem p;
  p.nranks = 8;
  p.count = 800;
  const auto rounds = lockstep_rounds(generate_world(p, find_algorithm("ring")->generate));
  uint32_t most = 0;
  for (const auto& r : rounds)
    for (uint32_t x : r) most = std::max(most, x);
  // 2(N-1) message steps, each followed by local work, cannot need more than 4N rounds.
  EXPECT_GE(most + 1, 2u * (8 - 1));
  EXPECT_LE(most + 1, 4u * 8);
}

// Each rank sends, then (after the send) receives from the other: fine when sends are
// buffered, a deadlock when every send waits for its receive.
TEST(Lockstep, SendThenReceiveOnBothSidesIsRefused) {
  std::vector<RankSchedule> world(2);
  for (int r = 0; r < 2; ++r) {
    world[r].rank = r;
    world[r].nranks = 2;
    const uint32_t s = world[r].add_step({Op::send(1 - r, {BufferId::Input, 0, 4})}, {});
    world[r].add_step({Op::recv(1 - r, {BufferId::Scratch, 0, 4})}, {s});
  }
  EXPECT_THROW(lockstep_rounds(world), ScheduleError);
}

TEST(Lockstep, UnmatchedSendIsRefused) {
  std::vector<RankSchedule> world(2);
  world[0].add_step({Op::send(1, {BufferId::Input, 0, 4})}, {});
  world[1].add_step({}, {});
  EXPECT_THROW(lockstep_rounds(world), ScheduleError);
}

}  // namespace
}  // namespace arlab
