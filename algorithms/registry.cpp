#include "algorithms/registry.h"

#include "algorithms/binomial_tree.h"
#include "algorithms/named_table.h"
#include "algorithms/recursive_doubling.h"
#include "algorithms/ring.h"

namespace arlab {

const std::vector<AlgorithmInfo>& algorithms() {
  static const std::vector<AlgorithmInfo> table = {
      {"ring", "ring reduce-scatter + all-gather, 2(N-1) steps, bandwidth-optimal", generate_ring},
      {"rd", "recursive doubling, lg N steps of the whole buffer, latency-optimal", generate_recursive_doubling},
      {"rabenseifner", "recursive-halving reduce-scatter + recursive-doubling all-gather", generate_rabenseifner},
      {"tree", "binomial-tree reduce to rank 0 + binomial broadcast, pipelined in chunks", generate_binomial_tree},
  };
  return table;
}

const AlgorithmInfo* find_algorithm(std::string_view name) { return find_named(algorithms(), name); }
std::string algorithm_names() { return join_names(algorithms()); }

}  // namespace arlab
