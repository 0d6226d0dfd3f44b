#pragma once

#include "algorithms/rotation_template.h"
#include "algorithms/schedule.h"

namespace arlab {

// Ring all-reduce (reduce-scatter + all-gather), any N >= 1, any count, pipelined in
// chunks of Problem::chunk_bytes. The template is the same for every rank (rank ignored);
// generate_ring is rank p.rank's expansion of it.
RotationTemplate ring_template(const Problem& p);
RankSchedule generate_ring(const Problem& p);

}  // namespace arlab
