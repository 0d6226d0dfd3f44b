// The discrete-event simulator behind `arlab sim`: plays every rank's schedule (the same
// schedules the executor runs and the checker proves) on a Network. A step starts when its
// dependencies are done; its sends reserve their path at that moment; a receive completes
// when its matching message (same peer, same sequence number) has arrived and the receive
// is posted; a reduction occupies the rank's reduce engine for gamma x bytes; copies are free,
// as in the closed forms. The result is the time the last rank finishes, split into the
// latency, bandwidth and reduction time along the critical path that led to it.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/schedule.h"
#include "harness/sim_network.h"

namespace arlab {

struct SimOptions {
  uint32_t element_size = 4;
  double reduce_seconds_per_byte = 0;  // gamma
};

struct SimResult {
  SimTime finish;  // the last rank's
};

// Throws ScheduleError when the schedules cannot finish (a deadlock, an unmatched message).
SimResult simulate(const std::vector<RankSchedule>& world, Network& network, const SimOptions& options);

}  // namespace arlab
