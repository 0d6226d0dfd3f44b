// Where the shm transport's two-step slots put each call's blocks (TwoStepSlots::rotation_base,
// transports/shm/two_step_slots.h): base 0 below 64 KiB and from 1 MiB; between, page-aligned
// bases that stay inside the slot and visit every place that fits before one repeats.
#include <gtest/gtest.h>

#include <set>

#include "transports/shm/two_step_slots.h"

namespace arlab {
namespace {

constexpr size_t kMax = TwoStepSlots::kMaxBytes;

TEST(TwoStepRotation, SmallCallsKeepBaseZero) {
  for (size_t bytes : {size_t{0}, size_t{8}, size_t{4099}, TwoStepSlots::kRotationMinBytes - 1})
    for (uint64_t call = 0; call < 100; ++call) EXPECT_EQ(TwoStepSlots::rotation_base(call, bytes), 0u) << bytes;
}

TEST(TwoStepRotation, BasesStayInsideTheSlotAndVisitEveryPlace) {
  for (size_t bytes : {size_t{64 << 10}, size_t{(64 << 10) + 12}, size_t{200000}, size_t{700000}, size_t{(1 << 20) - 1}}) {
    const size_t stride = (bytes + 4095) / 4096 * 4096, places = kMax / stride;
    std::set<size_t> seen;
    for (uint64_t call = 1; call <= 3 * places; ++call) {
      const size_t base = TwoStepSlots::rotation_base(call, bytes);
      EXPECT_EQ(base % TwoStepSlots::kRotationAlign, 0u) << bytes;
      EXPECT_LE(base + bytes, kMax) << bytes << " at call " << call;
      EXPECT_NE(base, TwoStepSlots::rotation_base(call + 1, bytes)) << bytes << ": consecutive calls share a place";
      seen.insert(base);
    }
    EXPECT_EQ(seen.size(), places) << bytes;
  }
}

TEST(TwoStepRotation, PiecesOfLargeMessagesKeepBaseZero) {
  for (uint64_t call = 0; call < 10; ++call)
    for (size_t bytes : {TwoStepSlots::kRotationMaxBytes, kMax, kMax - 100, size_t{1500004}})
      EXPECT_EQ(TwoStepSlots::rotation_base(call, bytes), 0u) << bytes;
}

}  // namespace
}  // namespace arlab
