#include "transports/slot_table.h"

#include <gtest/gtest.h>

#include <deque>
#include <set>
#include <string>
#include <vector>

namespace arlab {
namespace {

TEST(SlotTable, ReleasedIdsAreHandedOutAgainAndTheTableStaysAsLargeAsTheMostInFlight) {
  SlotTable<std::string> table;
  const uint32_t a = table.add("a"), b = table.add("b");
  EXPECT_NE(a, b);
  EXPECT_EQ(table[a], "a");
  EXPECT_EQ(table[b], "b");
  table.release(a);
  const uint32_t c = table.add("c");
  EXPECT_EQ(c, a);  // the released id, not a new one
  EXPECT_EQ(table[c], "c");
  EXPECT_EQ(table[b], "b");
  // A million more requests, one at a time while b and c stay open: ids stay below 3.
  for (int i = 0; i < 1000000; ++i) {
    const uint32_t id = table.acquire();
    EXPECT_LT(id, 3u);
    table.release(id);
  }
}

TEST(SlotTable, AcquireKeepsTheReleasedSlotsContents) {
  SlotTable<std::vector<int>> table;
  const uint32_t id = table.acquire();
  table[id].assign(100, 7);
  table.release(id);
  ASSERT_EQ(table.acquire(), id);
  EXPECT_EQ(table[id].size(), 100u);  // the caller clears it, and keeps its capacity
}

TEST(SlotTable, ReservedIdsAreNeverHandedOut) {
  SlotTable<int, uint64_t, std::deque<int>> table(1);  // 0 means "already complete"
  std::set<uint64_t> seen;
  for (int i = 0; i < 10; ++i) seen.insert(table.acquire());
  EXPECT_EQ(seen.count(0), 0u);
  EXPECT_EQ(seen.size(), 10u);
  for (uint64_t id : seen) table.release(id);
  for (int i = 0; i < 10; ++i) EXPECT_NE(table.acquire(), 0u);
}

}  // namespace
}  // namespace arlab
