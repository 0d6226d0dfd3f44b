#pragma once

#include "algorithms/schedule.h"

namespace arlab {

// Recursive doubling, any N (extra ranks folded in and out).
RankSchedule generate_recursive_doubling(const Problem& p);

// Rabenseifner: recursive-halving reduce-scatter, then recursive-doubling all-gather.
RankSchedule generate_rabenseifner(const Problem& p);

}  // namespace arlab
