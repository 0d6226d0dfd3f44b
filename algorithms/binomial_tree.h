#pragma once

#include "algorithms/schedule.h"

namespace arlab {

// Binomial-tree reduce to rank 0 and binomial broadcast, pipelined in chunks; any N.
RankSchedule generate_binomial_tree(const Problem& p);

}  // namespace arlab
