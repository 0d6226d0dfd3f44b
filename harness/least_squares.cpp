#include "harness/least_squares.h"

#include <algorithm>
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

// The relative-error normal equations over the parameters in `idx`: rows a_i / t_i, targets 1.
void normal_equations(const std::vector<Observation>& obs, const int* idx, int k, std::array<std::array<double, 3>, 3>& m,
                      std::array<double, 3>& v) {
  m = {};
  v = {};
  for (const Observation& o : obs)
    for (int a = 0; a < k; ++a) {
      const double ra = o.counts[idx[a]] / o.seconds;
      v[a] += ra;
      for (int b = 0; b < k; ++b) m[a][b] += ra * o.counts[idx[b]] / o.seconds;
    }
}

double relative_residual(const std::vector<Observation>& obs, const std::array<double, 3>& x) {
  double residual = 0;
  for (const Observation& o : obs) {
    const double predicted = x[0] * o.counts[0] + x[1] * o.counts[1] + x[2] * o.counts[2];
    residual += std::pow((o.seconds - predicted) / o.seconds, 2);
  }
  return residual;
}

}  // namespace

FitReport fit_with_errors(const std::vector<Observation>& obs, int allowed) {
  FitReport report;
  double best_residual = std::numeric_limits<double>::infinity();
  int best_subset = 0;
  // Each non-empty subset of the allowed parameters (bit j set: parameter j is free); the
  // best non-negative solution wins.
  for (int subset = 1; subset < 8; ++subset) {
    if (subset & ~allowed) continue;
    int idx[3], k = 0;
    for (int j = 0; j < 3; ++j)
      if (subset >> j & 1) idx[k++] = j;
    std::array<std::array<double, 3>, 3> m;
    std::array<double, 3> v, x{};
    normal_equations(obs, idx, k, m, v);
    if (!solve(m, v, k, x)) continue;
    std::array<double, 3> full{0, 0, 0};
    bool nonnegative = true;
    for (int a = 0; a < k; ++a) {
      nonnegative &= x[a] >= 0;
      full[idx[a]] = x[a];
    }
    const double residual = relative_residual(obs, full);
    if (nonnegative && residual < best_residual) {
      best_residual = residual;
      best_subset = subset;
      report.value = full;
      report.parameters = k;
    }
  }
  if (best_subset == 0) return report;
  // Standard errors: sigma^2 (R^T R)^-1 on the free parameters, sigma^2 = residual / (n - k).
  int idx[3], k = 0;
  for (int j = 0; j < 3; ++j)
    if (best_subset >> j & 1) idx[k++] = j;
  std::array<std::array<double, 3>, 3> m;
  std::array<double, 3> v;
  normal_equations(obs, idx, k, m, v);
  const double sigma2 = obs.size() > static_cast<size_t>(k) ? best_residual / static_cast<double>(obs.size() - k) : 0;
  for (int a = 0; a < k; ++a) {
    std::array<double, 3> unit{}, column{};
    unit[a] = 1;
    if (solve(m, unit, k, column)) report.error[idx[a]] = std::sqrt(std::max(0.0, sigma2 * column[a]));
  }
  // R^2 of the times and the median relative error.
  double mean = 0, total = 0, residual = 0;
  for (const Observation& o : obs) mean += o.seconds / static_cast<double>(obs.size());
  std::vector<double> relative;
  for (const Observation& o : obs) {
    const double predicted = report.value[0] * o.counts[0] + report.value[1] * o.counts[1] + report.value[2] * o.counts[2];
    total += (o.seconds - mean) * (o.seconds - mean);
    residual += (o.seconds - predicted) * (o.seconds - predicted);
    relative.push_back(std::fabs(o.seconds - predicted) / o.seconds);
  }
  report.r_squared = total > 0 ? 1 - residual / total : 1;
  std::nth_element(relative.begin(), relative.begin() + relative.size() / 2, relative.end());
  report.median_relative_error = relative[relative.size() / 2];
  return report;
}

std::array<double, 3> fit_line(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  const double denominator = n * sxx - sx * sx;
  const double b = denominator != 0 ? (n * sxy - sx * sy) / denominator : 0, a = (sy - b * sx) / n;
  double total = 0, residual = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    total += (y[i] - sy / n) * (y[i] - sy / n);
    residual += (y[i] - a - b * x[i]) * (y[i] - a - b * x[i]);
  }
  return {a, b, total > 0 ? 1 - residual / total : 1};
}

std::array<double, 3> fit_nonnegative(const std::vector<Observation>& obs) { return fit_with_errors(obs).value; }

}  // namespace arlab
