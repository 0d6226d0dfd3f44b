#include "transports/progress_passes.h"

#include <gtest/gtest.h>

#include <vector>

namespace arlab {
namespace {

// Runs `passes` executor passes over k requests that never complete, each request tested once
// per pass in posting order, and counts the progress calls the rule asks for.
int progress_calls(int k, int passes) {
  ProgressPasses rule;
  std::vector<ProgressPasses::Mark> seen(k, rule.current());
  int calls = 0;
  for (int pass = 0; pass < passes; ++pass)
    for (int r = 0; r < k; ++r) calls += rule.start_pass(seen[r]) ? 1 : 0;
  return calls;
}

TEST(ProgressPasses, OneProgressPerPassOverTheRequestsInFlight) {
  EXPECT_EQ(progress_calls(1, 100), 100);  // a lone wait loop progresses on every test()
  EXPECT_EQ(progress_calls(2, 100), 100);
  EXPECT_EQ(progress_calls(7, 100), 100);  // not 700
}

TEST(ProgressPasses, ARequestPostedMidPassProgressesOnItsFirstTest) {
  ProgressPasses rule;
  ProgressPasses::Mark a = rule.current();
  EXPECT_TRUE(rule.start_pass(a));  // a starts pass 1
  ProgressPasses::Mark b = rule.current();  // posted after pass 1 started
  EXPECT_TRUE(rule.start_pass(b));  // b has not seen any progress since it was posted
  EXPECT_FALSE(rule.start_pass(a));  // a reads the result of b's pass
  EXPECT_TRUE(rule.start_pass(b));  // b saw that pass, so it starts the next one
  EXPECT_FALSE(rule.start_pass(a));
}

TEST(ProgressPasses, TestingTheSameRequestAgainAlwaysProgresses) {
  ProgressPasses rule;
  ProgressPasses::Mark a = rule.current(), b = rule.current();
  EXPECT_TRUE(rule.start_pass(a));
  EXPECT_FALSE(rule.start_pass(b));
  // The executor waits on a alone for a while: every test of a progresses.
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(rule.start_pass(a));
  EXPECT_FALSE(rule.start_pass(b));  // b has not seen the latest pass yet
  EXPECT_TRUE(rule.start_pass(b));
}

}  // namespace
}  // namespace arlab
