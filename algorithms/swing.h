#pragma once

#include "algorithms/schedule.h"

namespace arlab {

// Swing all-reduce (bandwidth-optimal variant), any N (extra ranks folded in and out).
RankSchedule generate_swing(const Problem& p);

}  // namespace arlab
