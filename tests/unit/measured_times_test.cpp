// auto by measured times (harness/measured_times.h): interpolation between the sizes `arlab
// tune` timed, the fastest at each size, when the times apply, and the tuning file's round trip.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "harness/collective.h"
#include "harness/errors.h"
#include "harness/tuning.h"

namespace arlab {
namespace {

// The shape jobs/local-cluster gave: rabenseifner ahead up to 256 KiB, ring ahead above.
MeasuredTimes cluster_like() {
  MeasuredTimes t;
  t.transport = "ucx";
  t.nranks = 4;
  t.ranks_per_node = 1;
  t.sizes = {8, 32768, 262144, 2097152};
  t.seconds["ring"] = {20e-6, 1.3e-3, 4.0e-3, 28e-3};
  t.seconds["rabenseifner"] = {18e-6, 1.0e-3, 3.8e-3, 41e-3};
  return t;
}

TEST(MeasuredTimes, InterpolatesLinearlyInSize) {
  const std::vector<double> sizes = {100, 200, 400};
  const std::vector<double> seconds = {1.0, 2.0, 3.0};
  EXPECT_DOUBLE_EQ(interpolated_seconds(sizes, seconds, 150), 1.5);
  EXPECT_DOUBLE_EQ(interpolated_seconds(sizes, seconds, 300), 2.5);
  EXPECT_DOUBLE_EQ(interpolated_seconds(sizes, seconds, 200), 2.0);
  EXPECT_DOUBLE_EQ(interpolated_seconds(sizes, seconds, 10), 1.0);    // below: the smallest's time
  EXPECT_DOUBLE_EQ(interpolated_seconds(sizes, seconds, 800), 5.0);   // above: the last slope, 1 s per 200 B
  // A last interval that falls (noise) is not extrapolated downwards.
  EXPECT_DOUBLE_EQ(interpolated_seconds(sizes, {1.0, 3.0, 2.0}, 4000), 2.0);
  EXPECT_DOUBLE_EQ(interpolated_seconds({64}, {7.0}, 1 << 20), 7.0);  // one size: its time everywhere
}

TEST(MeasuredTimes, FastestFollowsTheTimesNotTheModel) {
  const MeasuredTimes t = cluster_like();
  EXPECT_EQ(fastest_measured(t, 8), "rabenseifner");
  EXPECT_EQ(fastest_measured(t, 256 << 10), "rabenseifner");
  EXPECT_EQ(fastest_measured(t, 2 << 20), "ring");
  EXPECT_EQ(fastest_measured(t, 64 << 20), "ring");  // extrapolated: ring's slope is the smaller
  // The model alone picks rabenseifner at every large size (the same bytes, fewer rounds).
  MachineParams m;
  EXPECT_EQ(choose_algorithm(4, 64 << 20, 1, m).algorithm, "rabenseifner");
  m.measured = t;
  EXPECT_EQ(choose_algorithm(4, 64 << 20, 1, m).algorithm, "ring");
  EXPECT_EQ(choose_algorithm(4, 32 << 10, 1, m).algorithm, "rabenseifner");
}

TEST(MeasuredTimes, HierIsStoredWithItsInterNodeAlgorithm) {
  MachineParams m;
  m.measured = cluster_like();
  m.measured.seconds["hier/rd"] = {1e-6, 1e-6, 1e-6, 1e-6};
  const AutoChoice c = choose_algorithm(4, 1 << 20, 1, m);
  EXPECT_EQ(c.algorithm, "hier");
  EXPECT_EQ(c.inter, "rd");
}

TEST(MeasuredTimes, APathWithALimitCompetesOnlyUpToIt) {
  // oneshot timed up to 32 KiB (its slot): fastest there, out of the running above.
  MachineParams m;
  m.measured = cluster_like();
  m.measured.seconds["oneshot"] = {1e-6, 5e-6};
  EXPECT_EQ(fastest_measured(m.measured, 8), "oneshot");
  EXPECT_EQ(fastest_measured(m.measured, 32768), "oneshot");
  EXPECT_EQ(fastest_measured(m.measured, 32769), "rabenseifner");
  EXPECT_EQ(choose_algorithm(4, 16 << 10, 1, m).algorithm, "oneshot");
  EXPECT_NO_THROW(check_measured_times(m.measured));
  // Nothing timed that far: none, and choose_algorithm falls back to the model.
  MeasuredTimes only_small = m.measured;
  only_small.seconds = {{"oneshot", {1e-6}}};
  EXPECT_EQ(fastest_measured(only_small, 1 << 20), "");
  m.measured = only_small;
  EXPECT_FALSE(choose_algorithm(4, 1 << 20, 1, m).algorithm.empty());
  EXPECT_EQ(fastest_measured(MeasuredTimes{}, 8), "");
}

TEST(MeasuredTimes, ApplyOnlyToTheTransportAndShapeTheyWereTakenOn) {
  const MeasuredTimes t = cluster_like();
  EXPECT_EQ(measured_times_mismatch(t, "ucx", 4, 1), "");
  EXPECT_NE(measured_times_mismatch(t, "mpi", 4, 1), "");
  EXPECT_NE(measured_times_mismatch(t, "ucx", 8, 1), "");
  const std::string why = measured_times_mismatch(t, "ucx", 4, 2);
  EXPECT_NE(why.find("measured on -t ucx at N = 4, 1 per node"), std::string::npos) << why;
  EXPECT_NE(why.find("this run is -t ucx at N = 4, 2 per node"), std::string::npos) << why;
}

TEST(MeasuredTimes, MalformedTimesAreRefused) {
  MeasuredTimes t = cluster_like();
  EXPECT_NO_THROW(check_measured_times(t));
  t.seconds["ring"].push_back(1.0);  // more times than sizes
  EXPECT_THROW(check_measured_times(t), std::invalid_argument);
  t = cluster_like();
  t.seconds["ring"].clear();
  EXPECT_THROW(check_measured_times(t), std::invalid_argument);
  t = cluster_like();
  t.sizes = {8, 8, 16, 32};
  EXPECT_THROW(check_measured_times(t), std::invalid_argument);
  t = cluster_like();
  t.seconds["ring"][0] = -1;
  EXPECT_THROW(check_measured_times(t), std::invalid_argument);
}

TEST(MeasuredTimes, SurviveTheTuningFile) {
  const std::string path = testing::TempDir() + "arlab-measured-tuning.json";
  MachineParams p;
  p.measured = cluster_like();
  p.measured.seconds["oneshot"] = {1e-6};  // the slot paths are names the file takes too
  p.measured.seconds["twoshot"] = {2e-6, 3e-6, 4e-6, 5e-6};
  save_tuning(path, p, "a unit test");
  const MachineParams back = load_tuning(path);
  EXPECT_EQ(back.measured.transport, "ucx");
  EXPECT_EQ(back.measured.nranks, 4);
  EXPECT_EQ(back.measured.sizes, p.measured.sizes);
  EXPECT_EQ(back.measured.seconds, p.measured.seconds);
  // And through the text rank 0 hands to every rank.
  EXPECT_EQ(measured_times_from_json(measured_times_json(p.measured), "x").seconds, p.measured.seconds);
  EXPECT_TRUE(measured_times_from_json(measured_times_json(MeasuredTimes{}), "x").empty());
  // A file without measured times (arlab before them) still loads, with none.
  save_tuning(path, MachineParams{}, "no times");
  EXPECT_TRUE(load_tuning(path).measured.empty());
  std::remove(path.c_str());
}

TEST(MeasuredTimes, AnUnknownAlgorithmInTheFileIsOneLine) {
  const std::string path = testing::TempDir() + "arlab-measured-unknown.json";
  std::ofstream(path) << R"({"schema": "arlab.tuning.v1", "alpha_s": 1e-6, "beta_s_per_byte": 1e-9,
    "gamma_s_per_byte": 1e-10, "measured": {"transport": "mpi", "nranks": 2, "ranks_per_node": 2,
    "sizes": [8], "seconds": {"bogus": [1e-6]}}})";
  try {
    load_tuning(path);
    FAIL() << "an unknown algorithm was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown algorithm 'bogus'"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace arlab
