#pragma once

#include "algorithms/cost.h"
#include "algorithms/schedule.h"

namespace arlab {

// Double binary tree: each half of the buffer reduced and broadcast along one of two
// complementary binary trees, pipelined in chunks; any N.
RankSchedule generate_double_binary_tree(const Problem& p);
CostCounts double_binary_tree_cost(const CostQuery& q);

// Whether `rank` has children in tree 0 or 1 (for tests of the trees' complementarity).
bool double_binary_tree_interior(int tree, int rank, int nranks);

}  // namespace arlab
