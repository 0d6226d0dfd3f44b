#pragma once

#include "algorithms/schedule.h"

namespace arlab {

// Ring all-reduce (reduce-scatter + all-gather), any N >= 1, any count, pipelined in
// chunks of Problem::chunk_bytes.
RankSchedule generate_ring(const Problem& p);

}  // namespace arlab
