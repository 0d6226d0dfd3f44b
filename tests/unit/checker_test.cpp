// The checker must reject each kind of broken schedule, or a passing schedule test would
// prove nothing. Each case hand-builds a tiny world with one defect.
#include <gtest/gtest.h>

#include "algorithms/checker.h"
#include "algorithms/errors.h"

namespace arlab {
namespace {

constexpr auto In = BufferId::Input;
constexpr auto Out = BufferId::Output;
constexpr auto Tmp = BufferId::Scratch;

RankSchedule empty_schedule(int rank, int n, uint64_t count, uint64_t scratch = 0) {
  RankSchedule s;
  s.rank = rank;
  s.nranks = n;
  s.count = count;
  s.scratch_count = scratch;
  return s;
}

// A correct 2-rank all-reduce of `count` elements: exchange inputs, reduce into the output.
std::vector<RankSchedule> exchange_world(uint64_t count) {
  std::vector<RankSchedule> world;
  for (int r = 0; r < 2; ++r) {
    RankSchedule s = empty_schedule(r, 2, count, count);
    const uint32_t x = s.add_step({Op::send(1 - r, {In, 0, count}), Op::recv(1 - r, {Tmp, 0, count})}, {});
    s.add_step({Op::reduce({Out, 0, count}, {In, 0, count}, {Tmp, 0, count})}, {x});
    world.push_back(std::move(s));
  }
  return world;
}

void expect_rejected(const std::vector<RankSchedule>& world, const std::string& fragment, CheckOptions o = {}) {
  try {
    check_schedules(world, o);
    FAIL() << "the checker accepted a schedule that should fail with '" << fragment << "'";
  } catch (const ScheduleError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(Checker, AcceptsACorrectExchange) {
  const CheckStats stats = check_schedules(exchange_world(10));
  EXPECT_EQ(stats.messages, 2u);
  EXPECT_EQ(stats.ops, 6u);
}

TEST(Checker, RejectsAMissingDependency) {  // the reduce may run before the data arrives
  auto world = exchange_world(10);
  RankSchedule s = empty_schedule(0, 2, 10, 10);
  s.add_step({Op::send(1, {In, 0, 10}), Op::recv(1, {Tmp, 0, 10})}, {});
  s.add_step({Op::reduce({Out, 0, 10}, {In, 0, 10}, {Tmp, 0, 10})}, {});
  world[0] = std::move(s);
  // Depending on the order the checker plays the steps, the reduce sees scratch unwritten
  // or written by an unordered step; both verdicts name the read.
  expect_rejected(world, "reads tmp[0:10]");
}

TEST(Checker, RejectsAReadOfUninitialisedMemory) {
  auto world = exchange_world(10);
  RankSchedule s = empty_schedule(0, 2, 10, 10);
  s.add_step({Op::send(1, {Out, 0, 10}), Op::recv(1, {Tmp, 0, 10})}, {});  // sends the output before writing it
  s.add_step({Op::reduce({Out, 0, 10}, {In, 0, 10}, {Tmp, 0, 10})}, {0});
  world[0] = std::move(s);
  expect_rejected(world, "nothing ordered before it has written");
}

TEST(Checker, RejectsAContributionCountedTwice) {
  auto world = exchange_world(4);
  RankSchedule s = empty_schedule(0, 2, 4, 4);
  const uint32_t x = s.add_step({Op::send(1, {In, 0, 4}), Op::recv(1, {Tmp, 0, 4})}, {});
  const uint32_t y = s.add_step({Op::reduce({Out, 0, 4}, {In, 0, 4}, {Tmp, 0, 4})}, {x});
  s.add_step({Op::reduce({Out, 0, 4}, {Out, 0, 4}, {In, 0, 4})}, {y});  // adds its own input again
  world[0] = std::move(s);
  expect_rejected(world, "counted twice");
}

TEST(Checker, RejectsAnIncompleteResult) {
  auto world = exchange_world(4);
  RankSchedule s = empty_schedule(0, 2, 4, 4);
  s.add_step({Op::send(1, {In, 0, 4}), Op::recv(1, {Tmp, 0, 4})}, {});
  s.add_step({Op::copy({Out, 0, 4}, {In, 0, 4})}, {0});  // ignores the peer's data
  world[0] = std::move(s);
  expect_rejected(world, "not all 2 ranks");
}

TEST(Checker, RejectsAnUnmatchedSend) {
  auto world = exchange_world(4);
  RankSchedule s = empty_schedule(1, 2, 4, 4);
  s.add_step({Op::send(0, {In, 0, 4})}, {});
  s.add_step({Op::copy({Out, 0, 4}, {In, 0, 4})}, {});
  world[1] = std::move(s);
  expect_rejected(world, "never received");  // rank 1 never receives rank 0's message
}

TEST(Checker, RejectsADeadlock) {
  auto world = exchange_world(4);
  RankSchedule s = empty_schedule(1, 2, 4, 4);
  s.add_step({Op::recv(0, {Tmp, 0, 4})}, {});  // never sends: rank 0 waits forever
  s.add_step({Op::reduce({Out, 0, 4}, {In, 0, 4}, {Tmp, 0, 4})}, {0});
  world[1] = std::move(s);
  expect_rejected(world, "deadlock");
}

TEST(Checker, RejectsAMessageNobodyReceives) {
  std::vector<RankSchedule> world;
  for (int r = 0; r < 2; ++r) {
    RankSchedule s = empty_schedule(r, 2, 0);
    if (r == 0) s.add_step({Op::send(1, {In, 0, 0})}, {});
    world.push_back(std::move(s));
  }
  expect_rejected(world, "never received");
}

TEST(Checker, RejectsASizeMismatch) {
  auto world = exchange_world(4);
  RankSchedule s = empty_schedule(1, 2, 4, 4);
  const uint32_t x = s.add_step({Op::send(0, {In, 0, 3}), Op::recv(0, {Tmp, 0, 4})}, {});
  s.add_step({Op::reduce({Out, 0, 4}, {In, 0, 4}, {Tmp, 0, 4})}, {x});
  world[1] = std::move(s);
  expect_rejected(world, "matched by a send of 3 elements");
}

TEST(Checker, RejectsASliceOutsideItsBuffer) {
  auto world = exchange_world(4);
  RankSchedule s = empty_schedule(0, 2, 4, 2);  // scratch too small
  const uint32_t x = s.add_step({Op::send(1, {In, 0, 4}), Op::recv(1, {Tmp, 0, 4})}, {});
  s.add_step({Op::reduce({Out, 0, 4}, {In, 0, 4}, {Tmp, 0, 4})}, {x});
  world[0] = std::move(s);
  expect_rejected(world, "outside the buffer");
}

TEST(Checker, RejectsAnInPlaceHazard) {
  // Out of place this is fine; in place the receive overwrites the input before it is sent.
  std::vector<RankSchedule> world;
  for (int r = 0; r < 2; ++r) {
    RankSchedule s = empty_schedule(r, 2, 4, 4);
    const uint32_t x = s.add_step({Op::send(1 - r, {In, 0, 4}), Op::recv(1 - r, {Out, 0, 4})}, {});
    s.add_step({Op::reduce({Out, 0, 4}, {Out, 0, 4}, {In, 0, 4})}, {x});
    world.push_back(std::move(s));
  }
  check_schedules(world);
  expect_rejected(world, "race", {.in_place = true});
}

TEST(Checker, AcceptsOneSidedWriteAndSignal) {
  std::vector<RankSchedule> world;
  for (int r = 0; r < 2; ++r) {
    RankSchedule s = empty_schedule(r, 2, 6, 6);
    const uint32_t x = s.add_step({Op::write(1 - r, {In, 0, 6}, {Tmp, 0, 6}), Op::wait_signal(1 - r, {Tmp, 0, 6})}, {});
    s.add_step({Op::reduce({Out, 0, 6}, {In, 0, 6}, {Tmp, 0, 6})}, {x});
    world.push_back(std::move(s));
  }
  check_schedules(world);
  world[1] = empty_schedule(1, 2, 6, 6);
  const uint32_t x = world[1].add_step({Op::write(0, {In, 0, 6}, {Tmp, 0, 6}), Op::wait_signal(0, {Tmp, 1, 5})}, {});
  world[1].add_step({Op::reduce({Out, 0, 6}, {In, 0, 6}, {Tmp, 0, 6})}, {x});
  expect_rejected(world, "matched by a write");
}

TEST(Checker, RejectsAWriteIntoTheInput) {
  std::vector<RankSchedule> world{empty_schedule(0, 1, 4)};
  world[0].add_step({Op::copy({In, 0, 4}, {In, 0, 4})}, {});
  expect_rejected(world, "read-only");
}

}  // namespace
}  // namespace arlab
