// The ring (and Swing) at N = 4096, out of place. A 4096-rank world holds
// about 84 million operations and the checker tracks 16 million buffer intervals at the
// peak: about 8 GiB and a minute per count on the 2-core build machine, so this binary runs
// on its own (RUN_SERIAL). In-place is covered at every N up to 1000 by ring_schedule_test.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "algorithms/checker.h"
#include "algorithms/ring.h"
#include "algorithms/swing.h"

namespace arlab {
namespace {

class Ring4096 : public ::testing::TestWithParam<uint64_t> {};

TEST_P(Ring4096, Checks) {
  Problem p;
  p.nranks = 4096;
  p.count = GetParam();
  p.element_size = 4;
  const auto t0 = std::chrono::steady_clock::now();
  const CheckStats stats = check_algorithm(generate_ring, p);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("ring N=4096 count=%lu: %lu messages, generated and checked in %.1f s\n",
              static_cast<unsigned long>(p.count), static_cast<unsigned long>(stats.messages), seconds);
  if (p.count >= 4096) EXPECT_EQ(stats.messages, 2ull * 4096 * 4095);
}

INSTANTIATE_TEST_SUITE_P(Counts, Ring4096, ::testing::Values(0, 1, 4095, 4096, 4097, 1000003));

// Swing's blocks are not contiguous, so a rank sends up to p/2 slices per step: 63 million
// operations at N = 4096, about 6 GiB and a minute per count.
class Swing4096 : public ::testing::TestWithParam<uint64_t> {};

TEST_P(Swing4096, Checks) {
  Problem p;
  p.nranks = 4096;
  p.count = GetParam();
  p.element_size = 4;
  const auto t0 = std::chrono::steady_clock::now();
  const CheckStats stats = check_algorithm(generate_swing, p);
  std::printf("swing N=4096 count=%lu: %lu messages, generated and checked in %.1f s\n",
              static_cast<unsigned long>(p.count), static_cast<unsigned long>(stats.messages),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

INSTANTIATE_TEST_SUITE_P(Counts, Swing4096, ::testing::Values(0, 1, 4095, 4097, 1000003));

}  // namespace
}  // namespace arlab
