// `arlab fit RESULTS...`: alpha, beta and gamma per algorithm and transport from measured
// times, by least squares against the counts read off each algorithm's own schedules (the
// rounds on the critical path, the bytes the busiest rank sends and reduces), not formulas.
//
// Every generator reduces a fixed share of what it sends (ring and the trees half a byte per
// byte, recursive doubling one), so one algorithm alone cannot tell beta from gamma: its fit
// reports beta with the reduction folded in, and says so. Algorithms with different shares,
// measured on one transport, separate them: the joint fit per transport.
#include "harness/fit_command.h"

#include <cmath>
#include <cstdio>
#include <set>

#include "algorithms/registry.h"
#include "harness/bench_options.h"
#include "harness/cli.h"
#include "harness/errors.h"
#include "harness/fit.h"
#include "harness/plot_runner.h"
#include "harness/units.h"

namespace arlab {
namespace {

std::string format_seconds_per_byte(double s) {
  char text[96];
  if (s > 0)
    std::snprintf(text, sizeof text, "%.4g ns/B (%s)", s * 1e9, format_bandwidth(1 / s).c_str());
  else
    std::snprintf(text, sizeof text, "0");
  return text;
}

void print_parameters(const FitReport& f, bool folded) {
  std::printf("  alpha = %s +- %s per message round\n", format_duration(f.value[0]).c_str(), format_duration(f.error[0]).c_str());
  std::printf("  beta  = %s +- %.2g ns/B%s\n", format_seconds_per_byte(f.value[1]).c_str(), f.error[1] * 1e9,
              folded ? "  (includes the reduction: beta + share x gamma)" : "");
  if (!folded) std::printf("  gamma = %s +- %.2g ns/B\n", format_seconds_per_byte(f.value[2]).c_str(), f.error[2] * 1e9);
  std::printf("  R^2 = %.4f, median |error| %.1f %%\n", f.r_squared, 100 * f.median_relative_error);
}

// Which grows the latency term: the smallest size's time at each N against N - 1 and log2 N.
void print_latency_scaling(const FitGroup& g, const FitReport& f) {
  const auto series = latency_series(g);
  std::printf("  latency term alpha x rounds:");
  for (const auto& s : series) std::printf("  N=%d: %s (%g rounds)", s.nranks, format_duration(f.value[0] * s.rounds).c_str(), s.rounds);
  std::printf("\n");
  if (series.size() < 3) {
    std::printf("  latency scaling: needs 3 or more values of N (have %zu)\n", series.size());
    return;
  }
  const LatencyScaling s = latency_scaling(series);
  std::printf("  latency scaling (the %s time at N = %d..%d): linear in N: R^2 %.4f (%s per rank); log2 N: R^2 %.4f (%s per doubling)\n",
              s.size_label.c_str(), series.front().nranks, series.back().nranks, s.linear[2], format_duration(s.linear[1]).c_str(),
              s.logarithmic[2], format_duration(s.logarithmic[1]).c_str());
  std::printf("  -> %s fits better\n", s.linear[2] >= s.logarithmic[2] ? "linear in N" : "logarithmic in N");
}

// The held-out points, simulated with the fitted parameters (beta folded: gamma as zero).
void print_prediction(const FitGroup& g) {
  if (g.held_out.empty()) return;
  std::printf("  predicting N = %d (not in the fit) with arlab sim on one switch:\n", g.held_out.front().nranks);
  std::printf("  %12s %14s %14s %9s\n", "bytes", "measured(us)", "simulated(us)", "error");
  int within = 0;
  for (const FitPoint& p : g.held_out) {
    const double simulated = simulate_point(p, g.fit.value), error = (simulated - p.seconds) / p.seconds;
    within += std::fabs(error) <= 0.3;
    std::printf("  %12lu %14.2f %14.2f %+8.1f%%%s\n", static_cast<unsigned long>(p.bytes), p.seconds * 1e6, simulated * 1e6,
                100 * error, std::fabs(error) > 0.3 ? "  MISSED (beyond 30 %)" : "");
  }
  std::printf("  %d of %zu held-out points within 30 %%\n", within, g.held_out.size());
}

void report_group(const FitGroup& g) {
  std::set<int> ranks;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const FitPoint& p : g.points) {
    ranks.insert(p.nranks);
    lo = std::min(lo, p.bytes);
    hi = std::max(hi, p.bytes);
  }
  std::printf("%s on %s: %zu points, N = %d..%d, %lu..%lu bytes\n", g.algorithm.c_str(), g.transport.c_str(), g.points.size(),
              *ranks.begin(), *ranks.rbegin(), static_cast<unsigned long>(lo), static_cast<unsigned long>(hi));
  const bool folded = g.reduce_share >= 0;
  const int parameters = folded ? 2 : 3;
  if (g.points.size() < static_cast<size_t>(parameters + 2)) {
    std::printf("  too few points to fit %d parameters (%zu; at least %d needed): no numbers\n\n", parameters, g.points.size(),
                parameters + 2);
    return;
  }
  if (folded) std::printf("  reduces %.3g byte per byte sent at every point: beta and gamma cannot be told apart here\n", g.reduce_share);
  print_parameters(g.fit, folded);
  print_latency_scaling(g, g.fit);
  print_prediction(g);
  std::printf("\n");
}

}  // namespace

int run_fit(int argc, char** argv) {
  CLI::App app{"arlab fit: alpha, beta, gamma per algorithm and transport from arlab bench results"};
  std::vector<std::string> files;
  std::string plot, placement = "out";
  app.add_option("results", files, "CSV or JSON files from arlab bench (any mix of N, algorithms, transports)")->required();
  app.add_option("--placement", placement, "out (out-of-place) or in")->capture_default_str();
  app.add_option("--plot", plot, "draw measured points and fitted curves into this PNG");
  std::string json;
  app.add_option("--json", json, "write the fitted parameters (for arlab model / sim --from-fit)");
  int hold_out = 0;
  app.add_option("--hold-out", hold_out, "leave the rows at this N out of the fit, then predict them with arlab sim");
  parse_flags(app, argc, argv);
  if (placement != "out" && placement != "in") throw UsageError("--placement: '" + placement + "' (accepted: out, in)");
  if (!plot.empty()) check_writable("--plot", plot);
  if (!json.empty()) check_writable("--json", json);

  std::vector<MeasuredPoint> measured;
  for (const std::string& file : files) {
    auto points = read_results(file);
    measured.insert(measured.end(), points.begin(), points.end());
  }
  std::vector<std::string> notes;
  const std::vector<FitGroup> groups = fit_groups(measured, placement, notes, hold_out);
  if (groups.empty()) throw UsageError("no rows to fit in " + files.front() + (files.size() > 1 ? " and the others" : "") + " (placement " + placement + ")");
  for (const FitGroup& g : groups) report_group(g);
  for (const std::string& note : notes) std::printf("# %s\n", note.c_str());
  // Per transport, algorithms that reduce different shares of what they send separate beta from gamma.
  const std::vector<JointFit> joint = joint_fits(groups);
  for (const JointFit& j : joint) {
    std::printf("%s, %s together (%zu points): beta and gamma separated\n", j.transport.c_str(), j.algorithms.c_str(), j.points);
    print_parameters(j.fit, false);
    std::printf("\n");
  }
  if (!json.empty()) write_fit_parameters(json, groups, joint);
  if (!plot.empty()) draw_fit(groups, plot);
  return 0;
}

}  // namespace arlab
