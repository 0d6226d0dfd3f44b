#include "harness/least_squares.h"

#include <cmath>
#include <limits>

namespace arlab {
namespace {

// Solves the k x k system m x = v (k <= 3) by Gaussian elimination; false if singular.
bool solve(std::array<std::array<double, 3>, 3> m, std::array<double, 3> v, int k, std::array<double, 3>& x) {
  for (int c = 0; c < k; ++c) {
    int pivot = c;
    for (int r = c + 1; r < k; ++r)
      if (std::fabs(m[r][c]) > std::fabs(m[pivot][c])) pivot = r;
    if (std::fabs(m[pivot][c]) < 1e-300) return false;
    std::swap(m[c], m[pivot]);
    std::swap(v[c], v[pivot]);
    for (int r = 0; r < k; ++r) {
      if (r == c) continue;
      const double f = m[r][c] / m[c][c];
      for (int j = c; j < k; ++j) m[r][j] -= f * m[c][j];
      v[r] -= f * v[c];
    }
  }
  for (int c = 0; c < k; ++c) x[c] = v[c] / m[c][c];
  return true;
}

}  // namespace

std::array<double, 3> fit_nonnegative(const std::vector<Observation>& obs) {
  std::array<double, 3> best{0, 0, 0};
  double best_residual = std::numeric_limits<double>::infinity();
  // Each non-empty subset of the parameters (bit j set: parameter j is free).
  for (int subset = 1; subset < 8; ++subset) {
    int idx[3], k = 0;
    for (int j = 0; j < 3; ++j)
      if (subset >> j & 1) idx[k++] = j;
    // Normal equations of the relative-error problem: rows a_i / t_i, targets 1.
    std::array<std::array<double, 3>, 3> m{};
    std::array<double, 3> v{}, x{};
    for (const Observation& o : obs)
      for (int a = 0; a < k; ++a) {
        const double ra = o.counts[idx[a]] / o.seconds;
        v[a] += ra;
        for (int b = 0; b < k; ++b) m[a][b] += ra * o.counts[idx[b]] / o.seconds;
      }
    if (!solve(m, v, k, x)) continue;
    std::array<double, 3> full{0, 0, 0};
    bool nonnegative = true;
    for (int a = 0; a < k; ++a) nonnegative &= x[a] >= 0, full[idx[a]] = x[a];
    if (!nonnegative) continue;
    double residual = 0;
    for (const Observation& o : obs) {
      const double predicted = full[0] * o.counts[0] + full[1] * o.counts[1] + full[2] * o.counts[2];
      residual += std::pow((o.seconds - predicted) / o.seconds, 2);
    }
    if (residual < best_residual) best_residual = residual, best = full;
  }
  return best;
}

}  // namespace arlab
