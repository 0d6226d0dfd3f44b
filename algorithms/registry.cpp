#include "algorithms/registry.h"

#include <algorithm>

#include "algorithms/binomial_tree.h"
#include "algorithms/double_binary_tree.h"
#include "algorithms/hierarchical.h"
#include "algorithms/named_table.h"
#include "algorithms/recursive_doubling.h"
#include "algorithms/ring.h"
#include "algorithms/swing.h"

namespace arlab {
namespace {

// Closed forms: alpha = the critical path in message latencies (sends never block, so a
// message can travel while its receiver is still busy), bytes sent and reduced by the
// busiest rank. p = largest power of two <= N; f = 1 when N is not a power of two, for the
// fold: the odd partner sends and reduces one whole buffer more, and the fold costs two
// rounds in Rabenseifner and Swing but one in recursive doubling, whose first exchange
// among the unfolded ranks travels during the fold-in.
CostCounts ring_cost(const CostQuery& q) {
  const int n = q.nranks;
  const double bytes = q.bytes;
  return {2.0 * (n - 1), 2.0 * (n - 1) / n * bytes, 1.0 * (n - 1) / n * bytes};
}
// max over y < e of popcount(x ^ y), bit by bit from the top: y follows e's bits down to some
// bit where e has a 1 and y takes 0, and is free (all different from x) below it.
int max_distance_below(int x, int e, int bits) {
  int best = -1, prefix = 0;
  for (int k = bits - 1; k >= 0; --k) {
    const int xk = (x >> k) & 1, ek = (e >> k) & 1;
    if (ek) best = std::max(best, prefix + (xk != 0) + k);
    prefix += xk != ek;
  }
  return best;
}

// In recursive doubling a message from participant y reaches x after one latency per bit in
// which they differ, and the folded participants (new ranks below `extra`) start one latency
// late: x finishes at max over y of start(y) + popcount(x ^ y), then the folded ones hand the
// result back. With N a power of two this is lg p.
CostCounts rd_cost(const CostQuery& q) {
  const int n = q.nranks;
  const double bytes = q.bytes;
  const int p = floor_pow2(n), lg = ceil_log2(p), extra = n - p, fold = extra > 0 ? 1 : 0;
  int rounds = lg;
  for (int x = 0; fold && x < p; ++x)
    rounds = std::max(rounds, std::max(lg, 1 + max_distance_below(x, extra, lg)) + (x < extra ? 1 : 0));
  return {1.0 * rounds, bytes * (lg + fold), bytes * (lg + fold)};
}
CostCounts rabenseifner_cost(const CostQuery& q) {
  const int n = q.nranks;
  const double bytes = q.bytes;
  const int p = floor_pow2(n), lg = ceil_log2(p), fold = n > p ? 1 : 0;
  return {2.0 * lg + 2 * fold, 2.0 * (p - 1) / p * bytes + fold * bytes, 1.0 * (p - 1) / p * bytes + fold * bytes};
}
// The root receives from ceil(lg N) children and sends to as many; the latency is twice the
// depth, floor(lg N), because the root's nearer children report while farther ones climb.
CostCounts tree_cost(const CostQuery& q) {
  const int n = q.nranks;
  const double bytes = q.bytes;
  const int lg = ceil_log2(n), depth = ceil_log2(floor_pow2(n));
  return {2.0 * depth, bytes * lg, bytes * lg};
}

}  // namespace

const std::vector<AlgorithmInfo>& algorithms() {
  static const std::vector<AlgorithmInfo> table = {
      {"ring", "ring reduce-scatter + all-gather, 2(N-1) steps, bandwidth-optimal", generate_ring, ring_cost,
       "2(N-1) alpha + 2(N-1)/N n beta + (N-1)/N n gamma", ring_template},
      {"rd", "recursive doubling, lg N steps of the whole buffer, latency-optimal", generate_recursive_doubling,
       rd_cost, "R alpha + (lg p + f) n beta + (lg p + f) n gamma; R = lg p for N = p, up to lg p + 2 with the fold (see registry.cpp)"},
      {"rabenseifner", "recursive-halving reduce-scatter + recursive-doubling all-gather", generate_rabenseifner,
       rabenseifner_cost, "(2 lg p + 2f) alpha + (2(p-1)/p + f) n beta + ((p-1)/p + f) n gamma"},
      {"tree", "binomial-tree reduce to rank 0 + binomial broadcast, pipelined in chunks", generate_binomial_tree,
       tree_cost, "2 floor(lg N) alpha + ceil(lg N) n beta + ceil(lg N) n gamma"},
      {"dbtree", "double binary tree (NCCL's Tree): each half of the buffer on one of two complementary trees",
       generate_double_binary_tree, double_binary_tree_cost,
       "2 depth alpha + max_r sum_trees (children + has parent) n/2 beta + max_r sum_trees children n/2 gamma"},
      {"hier", "hierarchical: intra-node reduce-scatter, --inter all-reduce between nodes, intra-node all-gather",
       generate_hierarchical, hierarchical_cost,
       "(2 + R_inter) alpha + (2(K-1)/K n + B_inter(n/K)) beta + ((K-1)/K n + G_inter(n/K)) gamma, K ranks per node"},
      {"swing", "Swing (NSDI 2024): Rabenseifner's volume, partners at distance 1, 1, 3, 5, 11, ...", generate_swing,
       rabenseifner_cost, "(2 lg p + 2f) alpha + (2(p-1)/p + f) n beta + ((p-1)/p + f) n gamma"},
  };
  return table;
}

const AlgorithmInfo* find_algorithm(std::string_view name) { return find_named(algorithms(), name); }
std::string algorithm_names() { return join_names(algorithms()); }

}  // namespace arlab
