// The roofline's arithmetic: the memory bound from the two loops' times, the link bound from
// the rate, and the header that says which was used.
#include "harness/roofline.h"

#include <gtest/gtest.h>

namespace arlab {
namespace {

TEST(Roofline, OneRankCopiesOnce) { EXPECT_DOUBLE_EQ(memory_bound_us({10, 30}, 1), 10); }

TEST(Roofline, TwoRanksHalfAReduceAndHalfACopy) {
  // Each rank reduces its half (read 2 x n/2, write n/2: half a reduce of n) and copies the
  // peer's half (half a copy of n).
  EXPECT_DOUBLE_EQ(memory_bound_us({10, 30}, 2), 30 / 2.0 + 10 / 2.0);
}

TEST(Roofline, ManyRanksApproachAThirdOfAReducePlusACopy) {
  // N = 4: reduce-scatter moves 5/4 n of the reduce loop's 3n, all-gather 3/4 of a copy.
  EXPECT_DOUBLE_EQ(memory_bound_us({12, 36}, 4), 5.0 / 12 * 36 + 0.75 * 12);
  EXPECT_NEAR(memory_bound_us({12, 36}, 100000), 36 / 3.0 + 12, 1e-3);
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
  const std::string one_node = roofline_description(2, 1, 0, false);
  EXPECT_NE(one_node.find("(N+1)/3N x reduce(n) + (N-1)/N x copy(n), N = 2"), std::string::npos);
  EXPECT_EQ(one_node.find("link"), std::string::npos);
  const std::string nodes = roofline_description(2, 4, 125e6, false);
  EXPECT_NE(nodes.find("link = 2(M-1)/M x n / 0.125 GB/s (1 Gb/s) (--link-rate), M = 4"), std::string::npos);
  EXPECT_NE(roofline_description(2, 4, 125e6, true).find("measured between two nodes"), std::string::npos);
}

}  // namespace
}  // namespace arlab
