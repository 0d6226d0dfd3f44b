// The standard way recursive-doubling algorithms serve any N (Thakur, Rabenseifner and Gropp
// 2005): with p the largest power of two <= N and extra = N - p, the first 2 * extra ranks
// pair up; each even one hands its data to its odd neighbour before the main algorithm
// ("fold in") and gets the result back after it ("fold out"). The remaining p ranks run the
// power-of-two algorithm under new ranks 0..p-1.
#pragma once

#include "algorithms/schedule_builder.h"

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

// The shape recursive doubling, Rabenseifner and Swing share: fold in, run `power_of_two`
// (chain, fold, the buffer holding this rank's data) among the p participants, fold out.
// Scratch: n elements.
template <class PowerOfTwoBody>
RankSchedule generate_folded(const Problem& p, PowerOfTwoBody&& power_of_two) {
  RankSchedule s;
  if (start_schedule(s, p)) return s;
  s.scratch_count = p.count;
  ChainBuilder chain(s);
  const PowerOfTwoFold fold(p.rank, p.nranks);
  const BufferId current = fold_in(chain, fold, p.rank, p.count);
  if (fold.new_rank >= 0) power_of_two(chain, fold, current);
  fold_out(chain, fold, p.rank, p.count);
  return s;
}

}  // namespace arlab
