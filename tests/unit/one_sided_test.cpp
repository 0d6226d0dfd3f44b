// The one-sided protocol's rules (transports/one_sided/protocol.h) and the lowering of
// schedules to writes and signals (algorithms/one_sided.h), without any transport.
#include <gtest/gtest.h>

#include "algorithms/checker.h"
#include "algorithms/errors.h"
#include "algorithms/lockstep.h"
#include "algorithms/one_sided.h"
#include "algorithms/registry.h"
#include "transports/one_sided/protocol.h"
#include "transports/transport.h"

namespace arlab {
namespace {

using namespace one_sided;

TEST(OneSidedProtocol, SlotIsReusedOnlyAfterItsLastMessageArrived) {
  CreditLedger ledger(3);
  for (uint64_t s = 0; s < kSlots; ++s) EXPECT_TRUE(ledger.may_grant(1, s)) << s;
  // Message kSlots reuses slot 0: not before message 0 has arrived.
  EXPECT_FALSE(ledger.may_grant(1, kSlots));
  ledger.arrived(2, 0);  // another peer's message 0 does not free peer 1's slot
  EXPECT_FALSE(ledger.may_grant(1, kSlots));
  ledger.arrived(1, 0);
  EXPECT_TRUE(ledger.may_grant(1, kSlots));
  EXPECT_FALSE(ledger.may_grant(1, 2 * kSlots));  // needs message kSlots, not 0
  ledger.arrived(1, kSlots);
  EXPECT_TRUE(ledger.may_grant(1, 2 * kSlots));
  // Out of order arrivals free exactly their own slots.
  ledger.arrived(1, 5);
  EXPECT_TRUE(ledger.may_grant(1, kSlots + 5));
  EXPECT_FALSE(ledger.may_grant(1, kSlots + 6));
}

TEST(OneSidedProtocol, FlagsOfDifferentPeersAndSlotsNeverOverlap) {
  const FlagLayout layout{5};
  std::vector<int> used(layout.bytes() / 8, 0);
  for (int peer = 0; peer < 5; ++peer)
    for (uint64_t s = 0; s < kSlots; ++s) {
      ++used[layout.credit_offset(peer, s) / 8];
      ++used[layout.signal_offset(peer, s) / 8];
    }
  for (int u : used) EXPECT_EQ(u, 1);
  EXPECT_EQ(layout.credit_offset(2, 3), layout.credit_offset(2, 3 + kSlots));
  EXPECT_EQ(flag_value(0), 1u);  // a zeroed flag never reads as a message
}

TEST(OneSidedProtocol, ImmediateRoundTripsForEveryMessageNumberNearTheExpectedOne) {
  for (uint64_t base : {uint64_t{0}, uint64_t{1} << 20, (uint64_t{1} << 31) - 3, uint64_t{5} << 31, uint64_t{1} << 40})
    for (uint64_t delta = 0; delta < 200; ++delta) {
      const uint64_t seq = base + delta;
      for (auto kind : {Immediate::Kind::Signal, Immediate::Kind::Credit}) {
        const uint32_t imm = Immediate::encode(kind, seq);
        EXPECT_EQ(Immediate::kind(imm), kind);
        // The receiver expects a number at most a few slots away, either side.
        for (uint64_t expected : {seq, seq + kSlots, seq >= kSlots ? seq - kSlots : seq})
          ASSERT_EQ(Immediate::decode(imm, expected), seq) << "seq " << seq << " expected " << expected;
      }
    }
}

TEST(OneSidedProtocol, WriteOutsideTheWindowIsRefusedBeforePosting) {
  const RemoteWindow w{0x1000, 256};
  EXPECT_EQ(w.target(0, 256, "t"), 0x1000u);
  EXPECT_EQ(w.target(200, 56, "t"), 0x1000u + 200);
  EXPECT_EQ(w.target(256, 0, "t"), 0x1000u + 256);
  EXPECT_THROW(w.target(200, 57, "t"), TransportError);
  EXPECT_THROW(w.target(257, 0, "t"), TransportError);
  EXPECT_THROW(w.target(UINT64_MAX - 1, 8, "t"), TransportError);  // no wrap-around
}

TEST(OneSidedLowering, EveryAlgorithmStillChecksAsWritesAndSignals) {
  for (const auto& a : algorithms())
    for (int n : {1, 2, 3, 5, 8})
      for (uint64_t count : {uint64_t{0}, uint64_t{1}, uint64_t{37}}) {
        Problem p;
        p.nranks = n;
        p.count = count;
        p.ranks_per_node = n > 2 ? 2 : 0;
        auto world = generate_world(p, a.generate);
        lower_to_one_sided(world);
        for (const auto& s : world)
          for (const Op& op : s.all_ops()) ASSERT_TRUE(op.kind != OpKind::Send && op.kind != OpKind::Recv);
        EXPECT_NO_THROW(check_schedules(world)) << a.name << " N " << n << " count " << count;
      }
}

TEST(OneSidedLowering, AWriteLandsWhereTheReceiveWanted) {
  Problem p;
  p.nranks = 3;
  p.count = 7;
  auto two_sided = generate_world(p, find_algorithm("ring")->generate);
  auto world = two_sided;
  lower_to_one_sided(world);
  // Rank 0's first send goes to rank 1, whose first receive from rank 0 names the slice.
  const Op* write = nullptr;
  for (const Op& op : world[0].all_ops())
    if (op.kind == OpKind::Write) { write = &op; break; }
  ASSERT_NE(write, nullptr);
  const Op* recv = nullptr;
  for (const Op& op : two_sided[write->peer].all_ops())
    if (op.kind == OpKind::Recv && op.peer == 0) { recv = &op; break; }
  ASSERT_NE(recv, nullptr);
  EXPECT_EQ(write->dst_buffer, recv->dst_buffer);
  EXPECT_EQ(write->dst_offset, recv->dst_offset);
  EXPECT_EQ(write->count, recv->count);
}

TEST(OneSidedLowering, UnmatchedSendIsRefused) {
  std::vector<RankSchedule> world(2);
  world[0].add_step({Op::send(1, {BufferId::Input, 0, 4})}, {});
  world[1].add_step({}, {});
  EXPECT_THROW(lower_to_one_sided(world), ScheduleError);
}

}  // namespace
}  // namespace arlab
