// arlab fit against data whose parameters are known: times from the simulator with alpha,
// beta and gamma set, perturbed by +-1 % noise. The joint fit of ring, recursive doubling and
// Rabenseifner (which reduce different shares of what they send) recovers all three within
// 2 %; a single algorithm recovers alpha and beta with the reduction folded in.
#include <gtest/gtest.h>

#include <random>

#include "harness/fit.h"
#include "harness/simulator.h"

namespace arlab {
namespace {

constexpr double kAlpha = 2e-6, kBeta = 1 / 12.5e9, kGamma = 1 / 5e9;

// One measured point per algorithm, N and size, its time simulated and perturbed.
std::vector<MeasuredPoint> simulated_sweep(std::initializer_list<const char*> algorithms, std::initializer_list<int> ranks,
                                           double noise, uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> jitter(-noise, noise);
  std::vector<MeasuredPoint> out;
  for (const char* algorithm : algorithms)
    for (int n : ranks)
      for (uint64_t bytes = 8; bytes <= (16u << 20); bytes *= 4) {
        FitPoint p;
        p.algorithm = algorithm;
        p.nranks = n;
        p.count = bytes / 4;
        p.bytes = bytes;
        const double seconds = simulate_point(p, {kAlpha, kBeta, kGamma}) * (1 + jitter(random));
        MeasuredPoint m;
        m.algorithm = algorithm;
        m.transport = "test";
        m.nranks = n;
        m.bytes = bytes;
        m.count = bytes / 4;
        m.type = "float32";
        m.placement = "out";
        m.time_us = seconds * 1e6;
        out.push_back(m);
      }
  return out;
}

TEST(Fit, JointFitRecoversAlphaBetaGammaWithinTwoPercent) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    std::vector<std::string> notes;
    const auto groups = fit_groups(simulated_sweep({"ring", "rd", "rabenseifner"}, {2, 4, 8, 16}, 0.01, seed), "out", notes);
    ASSERT_EQ(groups.size(), 3u);
    const auto joint = joint_fits(groups);
    ASSERT_EQ(joint.size(), 1u);
    const FitReport& f = joint[0].fit;
    EXPECT_NEAR(f.value[0], kAlpha, 0.02 * kAlpha) << "seed " << seed;
    EXPECT_NEAR(f.value[1], kBeta, 0.02 * kBeta) << "seed " << seed;
    EXPECT_NEAR(f.value[2], kGamma, 0.02 * kGamma) << "seed " << seed;
    EXPECT_GT(f.r_squared, 0.99);
    EXPECT_LT(f.median_relative_error, 0.01);
  }
}

TEST(Fit, OneAlgorithmFoldsTheReductionIntoBeta) {
  std::vector<std::string> notes;
  const auto groups = fit_groups(simulated_sweep({"ring"}, {2, 4, 8, 16}, 0.005, 7), "out", notes);
  ASSERT_EQ(groups.size(), 1u);
  const FitGroup& ring = groups[0];
  EXPECT_DOUBLE_EQ(ring.reduce_share, 0.5);  // ring reduces (N-1)/N n and sends 2(N-1)/N n
  EXPECT_NEAR(ring.fit.value[0], kAlpha, 0.02 * kAlpha);
  EXPECT_NEAR(ring.fit.value[1], kBeta + 0.5 * kGamma, 0.02 * (kBeta + 0.5 * kGamma));
  EXPECT_EQ(ring.fit.value[2], 0);
  EXPECT_TRUE(joint_fits(groups).empty());  // nothing to separate beta from gamma
}

TEST(Fit, LatencyTermIsLinearForRingAndLogarithmicForRecursiveDoubling) {
  std::vector<std::string> notes;
  const auto groups = fit_groups(simulated_sweep({"ring", "rd"}, {2, 4, 8, 16, 32}, 0.0, 1), "out", notes);
  for (const FitGroup& g : groups) {
    const LatencyScaling s = latency_scaling(latency_series(g));
    if (g.algorithm == "ring") {
      EXPECT_GT(s.linear[2], s.logarithmic[2]);
      EXPECT_NEAR(s.linear[1], 2 * kAlpha, 0.01 * kAlpha);  // two rounds more per rank
    } else {
      EXPECT_GT(s.logarithmic[2], s.linear[2]);
      EXPECT_NEAR(s.logarithmic[1], kAlpha, 0.01 * kAlpha);  // one round more per doubling
    }
  }
}

TEST(Fit, HeldOutRanksArePredictedNotFitted) {
  std::vector<std::string> notes;
  const auto groups = fit_groups(simulated_sweep({"rd"}, {2, 4, 8, 16}, 0.0, 1), "out", notes, 16);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].held_out.size(), 11u);
  for (const FitPoint& p : groups[0].points) EXPECT_NE(p.nranks, 16);
  for (const FitPoint& p : groups[0].held_out)
    EXPECT_NEAR(simulate_point(p, groups[0].fit.value), p.seconds, 0.01 * p.seconds) << p.bytes;
}

TEST(Fit, RowsWithoutASchedulesAreLeftOutWithANote) {
  auto sweep = simulated_sweep({"ring"}, {2, 4}, 0.0, 1);
  MeasuredPoint mpi = sweep.front();
  mpi.algorithm = "mpi";
  sweep.push_back(mpi);
  std::vector<std::string> notes;
  const auto groups = fit_groups(sweep, "out", notes);
  ASSERT_EQ(groups.size(), 1u);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("mpi on test: 1 rows not fitted"), std::string::npos) << notes[0];
}

}  // namespace
}  // namespace arlab
