#include "algorithms/registry.h"

#include "algorithms/binomial_tree.h"
#include "algorithms/named_table.h"
#include "algorithms/recursive_doubling.h"
#include "algorithms/ring.h"

namespace arlab {
namespace {

// Closed forms (alpha rounds, bytes sent, bytes reduced per rank). p = largest power of two
// <= N; a non-power of two adds the fold: one round in, one out, and the odd partner's
// extra send and reduce of the whole buffer.
CostCounts ring_cost(int n, double bytes) {
  return {2.0 * (n - 1), 2.0 * (n - 1) / n * bytes, 1.0 * (n - 1) / n * bytes};
}
CostCounts rd_cost(int n, double bytes) {
  const int p = floor_pow2(n), lg = ceil_log2(p), fold = n > p ? 1 : 0;
  return {lg + 2.0 * fold, bytes * (lg + fold), bytes * (lg + fold)};
}
CostCounts rabenseifner_cost(int n, double bytes) {
  const int p = floor_pow2(n), lg = ceil_log2(p), fold = n > p ? 1 : 0;
  return {2.0 * lg + 2 * fold, 2.0 * (p - 1) / p * bytes + fold * bytes, 1.0 * (p - 1) / p * bytes + fold * bytes};
}
CostCounts tree_cost(int n, double bytes) {
  const int lg = ceil_log2(n);
  return {2.0 * lg, bytes * lg, bytes * lg};
}

}  // namespace

const std::vector<AlgorithmInfo>& algorithms() {
  static const std::vector<AlgorithmInfo> table = {
      {"ring", "ring reduce-scatter + all-gather, 2(N-1) steps, bandwidth-optimal", generate_ring, ring_cost,
       "2(N-1) alpha + 2(N-1)/N n beta + (N-1)/N n gamma"},
      {"rd", "recursive doubling, lg N steps of the whole buffer, latency-optimal", generate_recursive_doubling,
       rd_cost, "(lg p + 2f) alpha + (lg p + f) n beta + (lg p + f) n gamma, f = 1 if N is not a power of two"},
      {"rabenseifner", "recursive-halving reduce-scatter + recursive-doubling all-gather", generate_rabenseifner,
       rabenseifner_cost, "(2 lg p + 2f) alpha + (2(p-1)/p + f) n beta + ((p-1)/p + f) n gamma"},
      {"tree", "binomial-tree reduce to rank 0 + binomial broadcast, pipelined in chunks", generate_binomial_tree,
       tree_cost, "2 ceil(lg N) alpha + ceil(lg N) n beta + ceil(lg N) n gamma"},
  };
  return table;
}

const AlgorithmInfo* find_algorithm(std::string_view name) { return find_named(algorithms(), name); }
std::string algorithm_names() { return join_names(algorithms()); }

}  // namespace arlab
