// Swing all-reduce (De Sensi et al., "Swing: Short-cutting Rings for Higher Bandwidth
// Allreduce", NSDI 2024), bandwidth-optimal variant: a reduce-scatter then an all-gather in
// lg p steps each, like Rabenseifner, but at step s rank r talks to
//
//     peer(r, s) = r + rho(s)  (r even)   or   r - rho(s)  (r odd),   mod p,
//     rho(s) = 1, -1, 3, -5, 11, -21, ... = (1 - (-2)^(s+1)) / 3
//
// so on a torus or ring-shaped network most steps stay short instead of doubling in
// distance. Which blocks travel: R(x, s), the ranks whose block x gathers over steps s..,
// is {x} plus R(peer(x, t), t+1) for every t >= s; at reduce-scatter step s rank r keeps
// R(r, s+1) and sends its partner R(peer, s+1). The all-gather runs the same steps backwards.
// Non-powers of two fold the extra ranks in first and out last (power_of_two_fold.h).
#include <algorithm>

#include "algorithms/cost.h"
#include "algorithms/partition.h"
#include "algorithms/power_of_two_fold.h"
#include "algorithms/swing.h"

namespace arlab {
namespace {

int swing_peer(int r, int s, int p) {
  long long rho = 1, term = 1;
  for (int i = 1; i <= s; ++i) term *= -2, rho += term;
  return mod(r % 2 == 0 ? r + rho : r - rho, p);
}

// R(x, s): appends the ranks whose blocks x is responsible for from step s on.
void responsible(int x, int s, int steps, int p, std::vector<int>& out) {
  out.push_back(x);
  for (int t = s; t < steps; ++t) responsible(swing_peer(x, t, p), t + 1, steps, p, out);
}

// The element ranges of a set of blocks, adjacent blocks merged into one slice.
std::vector<Range> block_slices(std::vector<int> blocks, uint64_t count, int p) {
  std::sort(blocks.begin(), blocks.end());
  std::vector<Range> out;
  for (int b : blocks) {
    const Range r = block_range(count, p, b);
    if (!out.empty() && out.back().offset + out.back().count == r.offset)
      out.back().count += r.count;
    else
      out.push_back(r);
  }
  return out;
}

}  // namespace

RankSchedule generate_swing(const Problem& p) {
  return generate_folded(p, [&](ChainBuilder& chain, const PowerOfTwoFold& fold, BufferId current) {
    const uint64_t n = p.count;
    const int me = fold.new_rank, np = fold.pof2, steps = ceil_log2(np);
    std::vector<std::vector<Range>> keep(steps), give(steps);
    for (int step = 0; step < steps; ++step) {
      std::vector<int> mine, theirs;
      responsible(me, step + 1, steps, np, mine);
      responsible(swing_peer(me, step, np), step + 1, steps, np, theirs);
      keep[step] = block_slices(mine, n, np);
      give[step] = block_slices(theirs, n, np);
    }
    // Reduce-scatter: send the partner's share, receive and reduce mine.
    std::vector<Op> transfer, reduce;
    for (int step = 0; step < steps; ++step) {
      const int partner = fold.real_rank(swing_peer(me, step, np));
      transfer.clear();
      reduce.clear();
      for (const Range& g : give[step]) transfer.push_back(Op::send(partner, {current, g.offset, g.count}));
      for (const Range& k : keep[step]) {
        transfer.push_back(Op::recv(partner, {BufferId::Scratch, k.offset, k.count}));
        reduce.push_back(ordered_reduce({BufferId::Output, k.offset, k.count}, {current, k.offset, k.count},
                                        {BufferId::Scratch, k.offset, k.count}, p.rank, partner));
      }
      chain.step(transfer);
      chain.step(reduce);
      current = BufferId::Output;
    }
    // All-gather: the same partners backwards; what I kept at step s I now hold finished.
    for (int step = steps - 1; step >= 0; --step) {
      const int partner = fold.real_rank(swing_peer(me, step, np));
      transfer.clear();
      for (const Range& k : keep[step]) transfer.push_back(Op::send(partner, {BufferId::Output, k.offset, k.count}));
      for (const Range& g : give[step]) transfer.push_back(Op::recv(partner, {BufferId::Output, g.offset, g.count}));
      chain.step(transfer);
    }
  });
}

}  // namespace arlab
