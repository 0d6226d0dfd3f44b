#include "algorithms/cost.h"

#include "algorithms/checker.h"

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
  worst.rounds = static_cast<double>(check_schedules(world).rounds);
  for (const RankSchedule& s : world) {
    double sent = 0, reduced = 0;
    for (const Op& op : s.all_ops()) {
      if (is_outgoing(op.kind)) sent += static_cast<double>(op.count) * element_size;
      if (op.kind == OpKind::Reduce) reduced += static_cast<double>(op.count) * element_size;
    }
    worst.bytes_sent = std::max(worst.bytes_sent, sent);
    worst.bytes_reduced = std::max(worst.bytes_reduced, reduced);
  }
  return worst;
}

}  // namespace arlab
