// The computations behind `arlab fit` (fit_command.cpp prints them): measured points grouped by
// algorithm and transport, each point's counts from its schedules, the least-squares fit, the
// latency term's scaling with N, and the joint fit per transport that separates beta from gamma.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "algorithms/cost.h"
#include "harness/fabrics.h"
#include "harness/least_squares.h"
#include "harness/results_reader.h"

namespace arlab {

struct FitPoint {
  std::string algorithm;  // the schedule that ran (auto: the one it chose)
  std::string transport;
  int nranks = 1, ranks_per_node = 0;
  uint64_t bytes = 0, count = 0, chunk_bytes = 0;
  uint32_t element_size = 4;
  double seconds = 0;
  CostCounts counts;
};

struct FitGroup {
  std::string algorithm, transport;
  std::vector<FitPoint> points;
  std::vector<FitPoint> held_out;  // at the N left out of the fit, to be predicted
  double reduce_share = -1;  // >= 0: every point reduces this many bytes per byte sent (beta, gamma folded)
  FitReport fit;
};

// Every rank's schedule of a point, and its counts (cached): measured_cost() of that world.
std::vector<RankSchedule> world_of(const FitPoint& p);
CostCounts schedule_counts(const FitPoint& p);
using CountsFn = CostCounts (*)(const FitPoint&);

// The point's time in `arlab sim` on one switch with {alpha, beta, gamma}.
double simulate_point(const FitPoint& p, const std::array<double, 3>& parameters);

// Groups the rows of one placement and fits each group; rows at `hold_out_nranks` ranks go to
// held_out instead of the fit. Rows that cannot be fitted (the MPI library's own algorithm,
// auto without a recorded choice) are left out with a note. Throws UsageError for a datatype
// this build does not know.
std::vector<FitGroup> fit_groups(const std::vector<MeasuredPoint>& measured, const std::string& placement,
                                 std::vector<std::string>& notes, int hold_out_nranks = 0, CountsFn counts = schedule_counts);

// The smallest size measured at each N (median time over its points), in order of N: the
// latency term's evidence.
struct LatencyPoint {
  int nranks;
  uint64_t bytes;
  double seconds, rounds;
};
std::vector<LatencyPoint> latency_series(const FitGroup& group);

// Straight lines through the latency series against N - 1 and against log2 N: {a, b, R^2} each.
struct LatencyScaling {
  std::array<double, 3> linear, logarithmic;
  std::string size_label;  // "8 B"
};
LatencyScaling latency_scaling(const std::vector<LatencyPoint>& series);

// One fit per transport over all its algorithms, where they reduce different shares.
struct JointFit {
  std::string transport, algorithms;
  size_t points = 0;
  FitReport fit;
};
std::vector<JointFit> joint_fits(const std::vector<FitGroup>& groups);

// `arlab fit --json`: every group's and joint fit's parameters (schema arlab.fit-parameters.v1).
void write_fit_parameters(const std::string& path, const std::vector<FitGroup>& groups, const std::vector<JointFit>& joint);

// A link from such a file, for `arlab model` and `arlab sim` (--from-fit FILE[:ENTRY]): ENTRY
// is a transport (its joint fit) or ALGORITHM/TRANSPORT (that group's); without one, the
// first joint fit, else the first group. Throws UsageError naming the file and what is in it.
struct FittedLink {
  Link link;
  double gamma = 0;  // seconds per byte reduced; 0 where folded into beta
};
FittedLink read_fitted_link(const std::string& spec);

}  // namespace arlab
