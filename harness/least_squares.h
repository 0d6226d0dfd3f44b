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

}  // namespace arlab
