// Small tools the generators share for writing schedules.
#pragma once

#include <vector>

#include "algorithms/schedule.h"

namespace arlab {

// Builds one chain of steps, each waiting for the one before. Operations of zero elements are
// dropped (both ends of a transfer compute the same sizes, so both drop it), and a step left
// empty is not added. Generators keep one chain per pipeline chunk, or one for the rank.
class ChainBuilder {
 public:
  explicit ChainBuilder(RankSchedule& s) : s_(&s) {}
  void step(std::initializer_list<Op> ops) { step(std::span<const Op>(ops.begin(), ops.size())); }
  void step(std::span<const Op> ops) {
    kept_.clear();
    for (const Op& op : ops)
      if (op.count > 0) kept_.push_back(op);
    if (kept_.empty()) return;
    const uint32_t deps[1] = {last_};
    last_ = s_->add_step(kept_, std::span<const uint32_t>(deps, last_ == UINT32_MAX ? 0 : 1));
  }
  // The last step added (UINT32_MAX while none); later steps of this chain wait for it.
  uint32_t last() const { return last_; }
  void continue_after(uint32_t step) { last_ = step; }

 private:
  RankSchedule* s_;
  uint32_t last_ = UINT32_MAX;
  std::vector<Op> kept_;
};

// Fills in the schedule's header; for N = 1 adds the copy that is the whole all-reduce and
// returns true (the generator is done).
inline bool start_schedule(RankSchedule& s, const Problem& p) {
  s.rank = p.rank;
  s.nranks = p.nranks;
  s.count = p.count;
  if (p.nranks > 1) return false;
  if (p.count > 0) s.add_step({Op::copy({BufferId::Output, 0, p.count}, {BufferId::Input, 0, p.count})}, {});
  return true;
}

// The reduction of two slices with the lower rank's contribution first, so every rank that
// computes the same element computes it with the same operand order (bit-identical results
// even where the operation is not bitwise commutative, like min of +0 and -0).
inline Op ordered_reduce(Slice dst, Slice mine, Slice theirs, int my_rank, int their_rank) {
  return my_rank < their_rank ? Op::reduce(dst, mine, theirs) : Op::reduce(dst, theirs, mine);
}

}  // namespace arlab
