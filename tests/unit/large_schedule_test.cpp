// Ring and Swing at N = 4096 through the general checker, which holds every rank's schedule at
// once. A 4096-rank ring holds about 84 million operations and the checker tracks 16 million
// buffer intervals at the peak (about 8 GiB, 47 s on the 2-core build machine); Swing's
// blocks are not contiguous, so a rank sends up to p/2 slices per step (63 million operations,
// about 6 GiB). It runs beside the other tests, none of which comes near that
// (tests/CMakeLists.txt). The ring is proved at 4096 and 16384 for every count by the
// rotation checker (rotation_checker_test.cpp); here it runs once through the general
// checker, which must agree with the rotation checker's counts. Swing runs every count the
// issues name. In-place is covered at every N up to 1000 by algorithm_schedules_test; the
// other algorithms are checked at 4096 there too.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "algorithms/checker.h"
#include "algorithms/registry.h"
#include "algorithms/rotation_checker.h"

namespace arlab {
namespace {

struct Case {
  std::string algorithm;
  uint64_t count;
};

class World4096 : public ::testing::TestWithParam<Case> {};

TEST_P(World4096, Checks) {
  Problem p;
  p.nranks = 4096;
  p.count = GetParam().count;
  p.element_size = 4;
  const AlgorithmInfo& a = *find_algorithm(GetParam().algorithm);
  const auto t0 = std::chrono::steady_clock::now();
  const CheckStats stats = check_algorithm(a.generate, p);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s N=4096 count=%lu: %lu messages, generated and checked in %.1f s\n", GetParam().algorithm.c_str(),
              static_cast<unsigned long>(p.count), static_cast<unsigned long>(stats.messages), seconds);
  if (a.rotation) {
    const CheckStats rotation = check_rotation_template(a.rotation(p));
    EXPECT_EQ(stats.messages, rotation.messages);
    EXPECT_EQ(stats.ops, rotation.ops);
    EXPECT_EQ(stats.rounds, rotation.rounds);
  }
  if (GetParam().algorithm == "ring") {
    EXPECT_EQ(stats.messages, 2ull * 4096 * 4095);
  }
}

std::vector<Case> cases() {
  std::vector<Case> out{{"ring", 1000003}};
  for (uint64_t count : {0, 1, 4095, 4096, 4097, 1000003}) out.push_back({"swing", count});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Counts, World4096, ::testing::ValuesIn(cases()), [](const auto& info) {
  return info.param.algorithm + "_" + std::to_string(info.param.count);
});

}  // namespace
}  // namespace arlab
