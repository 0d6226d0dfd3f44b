#include "algorithms/cost.h"

#include <algorithm>

namespace arlab {

int ceil_log2(int n) {
  int k = 0;
  while ((1 << k) < n) ++k;
  return k;
}

int floor_pow2(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

CostCounts measured_cost(const std::vector<RankSchedule>& world, uint32_t element_size) {
  CostCounts worst;
  for (const RankSchedule& s : world) {
    // Longest path through the step graph, counting the steps that exchange messages.
    std::vector<uint32_t> depth(s.num_steps(), 0);
    uint32_t rounds = 0;
    double sent = 0, reduced = 0;
    for (size_t x = 0; x < s.num_steps(); ++x) {
      bool communicates = false;
      for (const Op& op : s.ops(x)) {
        communicates |= is_outgoing(op.kind) || is_incoming(op.kind);
        if (is_outgoing(op.kind)) sent += static_cast<double>(op.count) * element_size;
        if (op.kind == OpKind::Reduce) reduced += static_cast<double>(op.count) * element_size;
      }
      uint32_t before = 0;
      for (uint32_t d : s.deps(x)) before = std::max(before, depth[d]);
      depth[x] = before + (communicates ? 1 : 0);
      rounds = std::max(rounds, depth[x]);
    }
    worst.rounds = std::max<double>(worst.rounds, rounds);
    worst.bytes_sent = std::max(worst.bytes_sent, sent);
    worst.bytes_reduced = std::max(worst.bytes_reduced, reduced);
  }
  return worst;
}

}  // namespace arlab
