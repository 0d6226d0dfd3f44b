// The alpha-beta-gamma counts of an all-reduce: how many message rounds, how many bytes each
// rank sends, how many bytes each rank reduces. Each algorithm states them in closed form
// (its entry in the registry); measured_cost() reads the same three numbers off the
// schedules themselves, so `arlab explain --cost` and the tests can show the two agree.
//   time ~ rounds * alpha + bytes_sent * beta + bytes_reduced * gamma
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/schedule.h"

namespace arlab {

struct CostCounts {
  double rounds = 0;         // the critical path in message latencies, across all ranks
  double bytes_sent = 0;     // by the busiest rank
  double bytes_reduced = 0;  // by the busiest rank (bytes of the reduced result)
};

// The three counts measured from a world's schedules: rounds from the symbolic checker's run
// (which also proves the schedules correct), bytes as maxima over ranks.
CostCounts measured_cost(const std::vector<RankSchedule>& world, uint32_t element_size);

// What a closed form is asked: N, bytes per rank, and for hierarchical algorithms the node size
// (0: one node) and the algorithm between nodes.
struct CostQuery {
  int nranks = 1;
  double bytes = 0;
  int ranks_per_node = 0;
  std::string inter = "ring";
  std::string intra = "direct";
};

// Predicted time under the model.
inline double model_time(const CostCounts& c, double alpha, double beta, double gamma) {
  return c.rounds * alpha + c.bytes_sent * beta + c.bytes_reduced * gamma;
}

// Helpers for closed forms.
int ceil_log2(int n);    // rounds of a binomial tree over n ranks
int floor_pow2(int n);   // p: the largest power of two <= n

}  // namespace arlab
