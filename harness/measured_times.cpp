#include "harness/measured_times.h"

#include <algorithm>
#include <stdexcept>

namespace arlab {

MeasuredName parse_measured_name(const std::string& name) {
  const size_t slash = name.find('/');
  if (slash == std::string::npos) return {name};
  return {name.substr(0, slash), name.substr(slash + 1)};
}

double interpolated_seconds(const std::vector<double>& sizes, const std::vector<double>& seconds, double bytes) {
  if (sizes.size() == 1 || bytes <= sizes.front()) return seconds.front();
  // The measured interval that holds the size; past the largest, the last interval extended.
  size_t hi = std::upper_bound(sizes.begin(), sizes.end(), bytes) - sizes.begin();
  hi = std::min(std::max<size_t>(hi, 1), sizes.size() - 1);
  const size_t lo = hi - 1;
  const double slope = std::max(0.0, (seconds[hi] - seconds[lo]) / (sizes[hi] - sizes[lo]));
  if (bytes >= sizes.back()) return seconds.back() + slope * (bytes - sizes.back());
  return seconds[lo] + (seconds[hi] - seconds[lo]) * (bytes - sizes[lo]) / (sizes[hi] - sizes[lo]);
}

std::string fastest_measured(const MeasuredTimes& times, double bytes) {
  std::string best;
  double best_seconds = 0;
  if (times.sizes.empty()) return best;
  for (const auto& [algorithm, seconds] : times.seconds) {
    // An algorithm timed at fewer sizes than the rest stops at its path's limit.
    const bool stops_early = seconds.size() < times.sizes.size();
    if (seconds.empty() || (stops_early && bytes > times.sizes[seconds.size() - 1])) continue;
    const std::vector<double> sizes(times.sizes.begin(), times.sizes.begin() + static_cast<long>(seconds.size()));
    const double t = interpolated_seconds(sizes, seconds, bytes);
    if (best.empty() || t < best_seconds) best = algorithm, best_seconds = t;
  }
  return best;
}

std::string measured_times_mismatch(const MeasuredTimes& times, const std::string& transport, int nranks,
                                    int ranks_per_node) {
  if (times.transport == transport && times.nranks == nranks && times.ranks_per_node == ranks_per_node) return "";
  return "measured on -t " + times.transport + " at N = " + std::to_string(times.nranks) + ", " +
         std::to_string(times.ranks_per_node) + " per node; this run is -t " + transport + " at N = " +
         std::to_string(nranks) + ", " + std::to_string(ranks_per_node) + " per node";
}

void check_measured_times(const MeasuredTimes& times) {
  if (times.sizes.empty()) throw std::invalid_argument("measured times without sizes");
  for (size_t i = 0; i < times.sizes.size(); ++i)
    if (!(times.sizes[i] > 0) || (i > 0 && !(times.sizes[i] > times.sizes[i - 1])))
      throw std::invalid_argument("measured sizes must be positive and ascending");
  for (const auto& [algorithm, seconds] : times.seconds) {
    if (seconds.empty() || seconds.size() > times.sizes.size())
      throw std::invalid_argument(algorithm + ": " + std::to_string(seconds.size()) + " times for " +
                                  std::to_string(times.sizes.size()) + " sizes");
    for (double s : seconds)
      if (!(s > 0)) throw std::invalid_argument(algorithm + ": times must be positive");
  }
}

}  // namespace arlab
