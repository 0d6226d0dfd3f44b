// The symbolic checker: runs a whole world's schedules without data and proves that
//  - every rank's output holds every rank's contribution exactly once,
//  - every send (write) is matched by a receive (wait) of the same size, in order,
//  - no operation reads a slice that is uninitialised or whose writer is not ordered
//    before it by the schedule's dependencies, and no two unordered operations write
//    the same slice or one writes what the other still reads (races),
//  - nothing deadlocks.
// Throws ScheduleError naming the rank, step and operation at the first violation.
#pragma once

#include <vector>

#include "algorithms/schedule.h"

namespace arlab {

struct CheckOptions {
  bool in_place = false;  // input and output are one buffer
};

struct CheckStats {
  uint64_t steps = 0;
  uint64_t ops = 0;
  uint64_t messages = 0;
  // The critical path in message latencies: the world's finishing time when every message
  // takes one unit and everything else takes none (alpha = 1, beta = gamma = 0).
  uint64_t rounds = 0;
};

CheckStats check_schedules(const std::vector<RankSchedule>& world, const CheckOptions& options = {});

// Generates every rank's schedule for `problem` (rank ignored) and checks them.
using ScheduleGeneratorFn = RankSchedule (*)(const Problem&);
CheckStats check_algorithm(ScheduleGeneratorFn generate, Problem problem, const CheckOptions& options = {});

}  // namespace arlab
