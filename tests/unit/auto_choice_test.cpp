// `auto` picks by the alpha-beta-gamma model: latency-bound sizes go to the logarithmic
// algorithms, bandwidth-bound sizes to the bandwidth-optimal ones.
#include <gtest/gtest.h>

#include "harness/collective.h"

namespace arlab {
namespace {

TEST(AutoChoice, FollowsTheModel) {
  MachineParams m;
  m.alpha = 2e-6;
  m.beta = 1.0 / 5e9;
  m.gamma = 1.0 / 10e9;
  EXPECT_EQ(choose_algorithm(8, 8, 0, m).algorithm, "rd");                // 3 rounds against 14
  EXPECT_EQ(choose_algorithm(8, 256 << 20, 0, m).algorithm, "rabenseifner");  // same bytes as ring, 6 rounds not 14
  EXPECT_EQ(choose_algorithm(6, 256 << 20, 0, m).algorithm, "ring");      // folding 6 -> 4 costs a whole extra buffer
  // With free messages every size goes to the least bytes; with free bytes, to the fewest rounds.
  m.alpha = 0;
  EXPECT_NE(choose_algorithm(64, 1 << 20, 0, m).algorithm, "rd");
  m.alpha = 1e-3;
  m.beta = m.gamma = 0;
  EXPECT_EQ(choose_algorithm(64, 1 << 20, 0, m).algorithm, "rd");
}

TEST(AutoChoice, SharedSlotPathsBeforeTheModel) {
  const SlotPaths slots{512 << 10, 4 << 20};
  EXPECT_EQ(choose_slot_path(2, 8, slots), "oneshot");
  EXPECT_EQ(choose_slot_path(2, 32 << 10, slots), "oneshot");  // folds 32 KiB
  EXPECT_EQ(choose_slot_path(2, 64 << 10, slots), "twoshot");
  EXPECT_EQ(choose_slot_path(4, 16 << 10, slots), "twoshot");  // folds 48 KiB
  EXPECT_EQ(choose_slot_path(2, 4 << 20, slots), "twoshot");
  EXPECT_EQ(choose_slot_path(2, (4 << 20) + 1, slots), "twoshot");  // over the slot: in pieces
  EXPECT_EQ(choose_slot_path(4, size_t{1} << 30, slots), "twoshot");
  // A core per rank: two steps from 1 KiB folded (ranks sharing cores, above: 32 KiB).
  const SlotPaths own_cores{512 << 10, 2 << 20, false, false};
  EXPECT_EQ(choose_slot_path(2, 1 << 10, own_cores), "oneshot");
  EXPECT_EQ(choose_slot_path(2, 2 << 10, own_cores), "twoshot");
  EXPECT_EQ(choose_slot_path(3, 1 << 10, own_cores), "twoshot");  // folds 2 KiB
  // No two-step slots (a small /dev/shm): one step up to 512 KiB folded, as before them.
  EXPECT_EQ(choose_slot_path(2, 512 << 10, {512 << 10, 0}), "oneshot");
  EXPECT_EQ(choose_slot_path(4, 256 << 10, {512 << 10, 0}), "");
  // A transport without slots (-t mpi): always a schedule, count 0 included.
  EXPECT_EQ(choose_slot_path(2, 0, {}), "");
  EXPECT_EQ(choose_slot_path(1, 8, {}), "");
}

TEST(AutoChoice, SymmetricBuffersTakeTwoStepsAtAnySize) {
  // A core per rank: twoshot from 256 B folded; no limit above.
  const SlotPaths own_cores{512 << 10, 4 << 20, true, false};
  EXPECT_EQ(choose_slot_path(2, 256, own_cores), "oneshot");
  EXPECT_EQ(choose_slot_path(2, 512, own_cores), "twoshot");
  EXPECT_EQ(choose_slot_path(3, 256, own_cores), "twoshot");  // folds 512 B
  EXPECT_EQ(choose_slot_path(2, size_t{1} << 33, own_cores), "twoshot");  // 8 GiB: no slot to outgrow
  // Ranks sharing cores: two waits cost more, one step up to 32 KiB folded as without.
  const SlotPaths shared_cores{512 << 10, 4 << 20, true, true};
  EXPECT_EQ(choose_slot_path(4, 8 << 10, shared_cores), "oneshot");
  EXPECT_EQ(choose_slot_path(4, 16 << 10, shared_cores), "twoshot");
  EXPECT_EQ(choose_slot_path(4, 64 << 20, shared_cores), "twoshot");
  // Symmetric buffers and no two-step slots (a /dev/shm too small for them): still twoshot.
  EXPECT_EQ(choose_slot_path(2, 1 << 20, {512 << 10, 0, true, false}), "twoshot");
}

TEST(AutoChoice, MissingTuningFileGivesTheDefaults) {
  const MachineParams m = load_tuning("/nonexistent/tuning.json");
  EXPECT_EQ(m.source, "built-in defaults");
  EXPECT_GT(m.alpha, 0);
}

}  // namespace
}  // namespace arlab
