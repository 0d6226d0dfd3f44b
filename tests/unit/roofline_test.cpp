// The roofline's arithmetic: the memory bound from the two loops' times, the link bound from
// the rate, and the header that says which was used.
#include "harness/roofline.h"

#include <gtest/gtest.h>

namespace arlab {
namespace {

TEST(Roofline, OneRankCopiesOnce) { EXPECT_DOUBLE_EQ(memory_bound_us({10, 30}, 1), 10); }

TEST(Roofline, TwoRanksHalfAReduceAndAQuarterOfACopy) {
  // Each rank reduces its half (read 2 x n/2, write n/2: half a reduce of n) and writes it
  // into the peer's output from its cache (n/2 written: a quarter of a copy of n's 2n bytes).
  EXPECT_DOUBLE_EQ(memory_bound_us({10, 30}, 2), 30 / 2.0 + 10 / 4.0);
}

TEST(Roofline, ManyRanksApproachAThirdOfAReducePlusHalfACopy) {
  // N = 4: the reduce moves 5/4 n of the reduce loop's 3n; writing the block into three peers'
  // outputs, 3/4 n, is 3/8 of a copy's 2n.
  EXPECT_DOUBLE_EQ(memory_bound_us({12, 36}, 4), 5.0 / 12 * 36 + 3.0 / 8 * 12);
  EXPECT_NEAR(memory_bound_us({12, 36}, 100000), 36 / 3.0 + 12 / 2.0, 1e-3);
}

TEST(Roofline, EqualRatesMakeOneCopyAtEveryN) {
  // Per rank n bytes read and n written, whatever N: where the reduce loop moves its 3n bytes
  // at the copy loop's rate (reduce = 1.5 copy), the bound is one copy of n.
  for (int n : {2, 3, 4, 8, 64}) EXPECT_NEAR(memory_bound_us({10, 15}, n), 10, 1e-9) << "N = " << n;
}

TEST(Roofline, LinkBoundPerNode) {
  EXPECT_EQ(link_bound_us(1e9, 1, 1e9), 0);  // one node: no link
  EXPECT_EQ(link_bound_us(1e9, 4, 0), 0);    // no rate: no link bound
  // 4 nodes at 1 GB/s: each node sends 2 x 3/4 x 1 GB = 1.5 s.
  EXPECT_DOUBLE_EQ(link_bound_us(1e9, 4, 1e9), 1.5e6);
  // One rank per node: the familiar 2(N-1)/N x n.
  EXPECT_DOUBLE_EQ(link_bound_us(8e6, 8, 125e6), 2 * 7.0 / 8 * 8e6 / 125e6 * 1e6);
}

TEST(Roofline, HeaderSaysHowTheBoundWasMade) {
  const std::string one_node = roofline_description(2, 1, 0, false, true);
  EXPECT_NE(one_node.find("(N+1)/3N x reduce(n) + (N-1)/2N x copy(n), N = 2"), std::string::npos);
  EXPECT_NE(one_node.find("cached or streaming stores, whichever is faster"), std::string::npos);
  EXPECT_EQ(one_node.find("link"), std::string::npos);
  // On a GPU the loops are the device's own: no store kinds to choose.
  EXPECT_EQ(roofline_description(2, 1, 0, false, false).find("streaming"), std::string::npos);
  const std::string nodes = roofline_description(2, 4, 125e6, false, true);
  EXPECT_NE(nodes.find("link = 2(M-1)/M x n / 0.125 GB/s (1 Gb/s) (--link-rate), M = 4"), std::string::npos);
  EXPECT_NE(roofline_description(2, 4, 125e6, true, true).find("measured between two nodes"), std::string::npos);
}

}  // namespace
}  // namespace arlab
