// Rabenseifner's all-reduce (Thakur, Rabenseifner and Gropp 2005): a reduce-scatter by
// recursive halving, then an all-gather by recursive doubling. 2 lg p rounds, and like the
// ring only 2(p-1)/p of the buffer crosses each rank's link.
//
// Reduce-scatter, 4 participants, blocks b0..b3: round 0 pairs ranks 2 apart; rank 0 keeps
// b0-b1 and sends b2-b3 to rank 2, which keeps b2-b3. Round 1 pairs ranks 1 apart inside
// each half; afterwards participant i holds the full sum of block i. The all-gather runs the
// same pairs backwards, doubling the finished range each round.
//
// Non-powers of two fold the extra ranks in first and out last (power_of_two_fold.h).
#include "algorithms/partition.h"
#include "algorithms/power_of_two_fold.h"
#include "algorithms/recursive_doubling.h"

namespace arlab {
namespace {

// Elements covered by blocks [first, last) of `nblocks` over `count`.
Range blocks(uint64_t count, int nblocks, int first, int last) {
  const Range a = block_range(count, nblocks, first);
  const Range b = block_range(count, nblocks, last - 1);
  return {a.offset, b.offset + b.count - a.offset};
}

Slice slice(BufferId buffer, Range r) { return {buffer, r.offset, r.count}; }

}  // namespace

RankSchedule generate_rabenseifner(const Problem& p) {
  return generate_folded(p, [&](ChainBuilder& chain, const PowerOfTwoFold& fold, BufferId current) {
    const uint64_t n = p.count;
    const int me = fold.new_rank, np = fold.pof2;
    // Recursive halving: [lo, hi) is the range of blocks this rank still reduces.
    int lo = 0, hi = np;
    for (int mask = np / 2; mask >= 1; mask /= 2) {
      const int partner = fold.real_rank(me ^ mask), mid = (lo + hi) / 2;
      const bool keep_low = (me & mask) == 0;
      const Range keep = keep_low ? blocks(n, np, lo, mid) : blocks(n, np, mid, hi);
      const Range give = keep_low ? blocks(n, np, mid, hi) : blocks(n, np, lo, mid);
      chain.step({Op::send(partner, slice(current, give)), Op::recv(partner, slice(BufferId::Scratch, keep))});
      chain.step({ordered_reduce(slice(BufferId::Output, keep), slice(current, keep), slice(BufferId::Scratch, keep),
                                 p.rank, partner)});
      current = BufferId::Output;
      (keep_low ? hi : lo) = mid;
    }
    // Recursive doubling all-gather: the finished range doubles each round.
    for (int mask = 1; mask < np; mask *= 2) {
      const int partner = fold.real_rank(me ^ mask);
      const int mine = me / mask * mask, theirs = (me ^ mask) / mask * mask;
      chain.step({Op::send(partner, slice(BufferId::Output, blocks(n, np, mine, mine + mask))),
                  Op::recv(partner, slice(BufferId::Output, blocks(n, np, theirs, theirs + mask)))});
    }
  });
}

}  // namespace arlab
