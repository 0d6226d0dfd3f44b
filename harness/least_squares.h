// Non-negative least squares for the three model parameters: minimises
// sum_i ((t_i - x . a_i) / t_i)^2 over x = (alpha, beta, gamma) >= 0 (relative errors, so
// an 8-byte time weighs as much as a 64 MiB one). Three unknowns: every subset of them is
// solved by the normal equations and the best non-negative solution kept.
#pragma once

#include <array>
#include <vector>

namespace arlab {

struct Observation {
  std::array<double, 3> counts;  // rounds, bytes sent, bytes reduced
  double seconds;
};

// Returns {alpha, beta, gamma}; zeros where a parameter does not help the fit.
std::array<double, 3> fit_nonnegative(const std::vector<Observation>& observations);

// The same fit over the parameters in `allowed` (bit j: parameter j may be non-zero), with
// what a reader needs to trust it: standard errors from the residuals (zero for parameters
// held at zero), R^2 of the predicted times, and the median relative error.
struct FitReport {
  std::array<double, 3> value{}, error{};
  double r_squared = 0, median_relative_error = 0;
  int parameters = 0;  // how many are non-zero
};
FitReport fit_with_errors(const std::vector<Observation>& observations, int allowed = 7);

// y = a + b x by ordinary least squares: {a, b, R^2}.
std::array<double, 3> fit_line(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace arlab
