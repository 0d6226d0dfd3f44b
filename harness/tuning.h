// The machine parameters the `auto` algorithm chooses with: alpha (seconds per message
// round), beta (seconds per byte sent), gamma (seconds per byte reduced). `arlab tune`
// measures them and saves results/tuning/<host>.json; without that file the built-in
// defaults below are used, and the run says so.
#pragma once

#include <string>

#include "harness/measured_times.h"
#include "transports/bootstrap.h"

namespace arlab {

struct MachineParams {
  double alpha = 2e-6;        // 2 us: an MPI message between processes on one node
  double beta = 1.0 / 5e9;    // 5 GB/s
  double gamma = 1.0 / 10e9;  // 10 GB/s of reduction
  std::string source = "built-in defaults";
  // What `arlab tune` timed; where it applies, auto picks by it (harness/measured_times.h).
  MeasuredTimes measured;
};

std::string default_tuning_path(const std::string& hostname);  // results/tuning/<host>.json

// Reads a tuning file; a missing file gives the defaults, a malformed one throws UsageError.
MachineParams load_tuning(const std::string& path);
// Every rank takes the maxima of alpha, beta and gamma over ranks and rank 0's measured
// times, kept only where they were taken on this transport and world shape (else dropped,
// and `source` says why): then all ranks choose alike. Collective.
void agree_on_tuning(MachineParams& params, Bootstrap& boot, const std::string& transport, int ranks_per_node);
// The measured times as JSON text and back (rank 0's go to every rank, so all choose alike).
std::string measured_times_json(const MeasuredTimes& times);
MeasuredTimes measured_times_from_json(const std::string& text, const std::string& path);
void save_tuning(const std::string& path, const MachineParams& params, const std::string& details);

}  // namespace arlab
