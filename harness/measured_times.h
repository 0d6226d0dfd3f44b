// What `arlab tune` timed: each scheduled algorithm at a ladder of sizes, on one transport and
// one world shape. Where the times apply (the same transport, N and ranks per node), `auto`
// runs the algorithm they say is fastest at the size, as Open MPI's dynamic rules files and
// NCCL's tuner plugins do; the alpha-beta-gamma model decides only where they do not apply.
// The model cannot see what the times do: on jobs/local-cluster ring and rabenseifner send the
// same bytes, yet rabenseifner's pairwise exchanges reach 60 % of the link where ring reaches 94 %.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace arlab {

struct MeasuredTimes {
  std::string transport;
  int nranks = 0, ranks_per_node = 0;
  std::vector<double> sizes;  // bytes, ascending
  // Per algorithm ("hier/ring" for hier), one per size from the smallest; fewer where its path
  // has a limit (oneshot: its slot), and then it competes only up to its largest timed size.
  std::map<std::string, std::vector<double>> seconds;
  bool empty() const { return sizes.empty() || seconds.empty(); }
};

// A measured algorithm's name: "ring", or "hier/rd" for hier with rd between nodes.
struct MeasuredName {
  std::string algorithm, inter = "ring";  // inter: hier's inter-node algorithm
};
MeasuredName parse_measured_name(const std::string& name);

// An algorithm's time at `bytes`: linear in size between the measured sizes, extrapolated
// from the last two above the largest (never falling), the smallest's time below it.
double interpolated_seconds(const std::vector<double>& sizes, const std::vector<double>& seconds, double bytes);

// The algorithm with the least interpolated time at `bytes` (its name as stored), of those
// timed up to that size; "" when none was.
std::string fastest_measured(const MeasuredTimes& times, double bytes);

// "" when the times were taken on this transport and world shape; otherwise why they do not
// apply, for the run's header.
std::string measured_times_mismatch(const MeasuredTimes& times, const std::string& transport, int nranks,
                                    int ranks_per_node);

// Throws std::invalid_argument when the sizes are not ascending and positive or an algorithm
// has no time, more times than sizes, or one not positive (a tuning file edited by hand).
void check_measured_times(const MeasuredTimes& times);

}  // namespace arlab
