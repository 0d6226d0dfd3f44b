#include <gtest/gtest.h>

#include "harness/least_squares.h"

namespace arlab {
namespace {

// Times generated from known parameters (with 1 % of deterministic noise) give them back.
TEST(LeastSquares, RecoversKnownParameters) {
  const double alpha = 2e-6, beta = 2e-10, gamma = 5e-11;
  std::vector<Observation> obs;
  int i = 0;
  for (double rounds : {1.0, 2.0, 6.0, 14.0})
    for (double bytes : {8.0, 65536.0, 4194304.0}) {
      const double sent = bytes * rounds / 2, reduced = bytes * (1.5 - 1 / rounds);  // not proportional
      const double t = (alpha * rounds + beta * sent + gamma * reduced) * (1 + ((i++ % 3) - 1) * 0.01);
      obs.push_back({{rounds, sent, reduced}, t});
    }
  const auto x = fit_nonnegative(obs);
  EXPECT_NEAR(x[0], alpha, alpha * 0.05);
  EXPECT_NEAR(x[1], beta, beta * 0.05);
  EXPECT_NEAR(x[2], gamma, gamma * 0.25);
}

TEST(LeastSquares, NeverReturnsANegativeParameter) {
  // Times that fall with more bytes would need a negative beta: it is held at zero instead.
  const std::vector<Observation> obs = {{{1, 1000, 0}, 3e-6}, {{1, 100000, 0}, 2e-6}, {{2, 1000, 0}, 5e-6}};
  const auto x = fit_nonnegative(obs);
  for (double v : x) EXPECT_GE(v, 0);
  EXPECT_GT(x[0], 0);
}

}  // namespace
}  // namespace arlab
