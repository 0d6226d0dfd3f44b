// The standard way recursive-doubling algorithms serve any N (Thakur, Rabenseifner and Gropp
// 2005): with p the largest power of two <= N and extra = N - p, the first 2 * extra ranks
// pair up; each even one hands its data to its odd neighbour before the main algorithm
// ("fold in") and gets the result back after it ("fold out"). The remaining p ranks run the
// power-of-two algorithm under new ranks 0..p-1.
#pragma once

#include "algorithms/schedule.h"

namespace arlab {

struct PowerOfTwoFold {
  int pof2;      // p
  int extra;     // N - p
  int new_rank;  // rank among the p participants, -1 for a rank that folds in and waits

  PowerOfTwoFold(int rank, int nranks) {
    pof2 = 1;
    while (pof2 * 2 <= nranks) pof2 *= 2;
    extra = nranks - pof2;
    if (rank < 2 * extra)
      new_rank = rank % 2 == 0 ? -1 : rank / 2;
    else
      new_rank = rank - extra;
  }
  // The real rank of participant `nr`.
  int real_rank(int nr) const { return nr < extra ? nr * 2 + 1 : nr + extra; }
};

inline int ceil_log2_of_pow2(int p) {
  int k = 0;
  while ((1 << k) < p) ++k;
  return k;
}

// Builds a schedule as one chain of steps, each waiting for the one before: the ordering
// recursive doubling needs (every step uses what the previous one produced).
class ChainBuilder {
 public:
  explicit ChainBuilder(RankSchedule& s) : s_(s) {}
  void step(std::initializer_list<Op> ops) { step(std::vector<Op>(ops)); }
  void step(const std::vector<Op>& ops) {
    std::vector<Op> kept;
    for (const Op& op : ops)
      if (op.count > 0) kept.push_back(op);  // both ends skip the same empty transfers
    if (kept.empty()) return;
    std::vector<uint32_t> deps;
    if (last_ != UINT32_MAX) deps.push_back(last_);
    last_ = s_.add_step(kept, deps);
  }

 private:
  RankSchedule& s_;
  uint32_t last_ = UINT32_MAX;
};

// A schedule for p's rank with its header filled in, and the copy that is a one-rank
// all-reduce when N = 1 (returns true then: the generator is done).
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

// Fold in: an even rank below 2 * extra hands its whole input to its odd neighbour, which adds
// it to its own (scratch holds the n elements in between). Returns where this rank's data now
// is: the output for the odd neighbour, the input for everyone else.
inline BufferId fold_in(ChainBuilder& chain, const PowerOfTwoFold& fold, int rank, uint64_t n) {
  const Slice in{BufferId::Input, 0, n}, out{BufferId::Output, 0, n}, tmp{BufferId::Scratch, 0, n};
  if (fold.new_rank < 0) {
    chain.step({Op::send(rank + 1, in)});
  } else if (rank < 2 * fold.extra) {
    chain.step({Op::recv(rank - 1, tmp)});
    chain.step({ordered_reduce(out, in, tmp, rank, rank - 1)});
    return BufferId::Output;
  }
  return BufferId::Input;
}

// Fold out: the odd neighbour returns the finished result.
inline void fold_out(ChainBuilder& chain, const PowerOfTwoFold& fold, int rank, uint64_t n) {
  const Slice out{BufferId::Output, 0, n};
  if (fold.new_rank < 0)
    chain.step({Op::recv(rank + 1, out)});
  else if (rank < 2 * fold.extra)
    chain.step({Op::send(rank - 1, out)});
}

}  // namespace arlab
