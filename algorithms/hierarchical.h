#pragma once

#include <string>
#include <string_view>

#include "algorithms/cost.h"
#include "algorithms/schedule.h"

namespace arlab {

// Hierarchical all-reduce: intra-node reduce-scatter, an inter-node all-reduce of each slice
// (Problem::inter), intra-node all-gather. Nodes are Problem::ranks_per_node consecutive
// ranks; the last node may be smaller.
RankSchedule generate_hierarchical(const Problem& p);
CostCounts hierarchical_cost(const CostQuery& q);
std::string intra_node_names();  // the --intra choices
bool is_intra_node_phase(std::string_view name);

}  // namespace arlab
