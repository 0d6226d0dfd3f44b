// Recursive doubling: lg p rounds; in round k every participant swaps its whole buffer with
// the rank whose new rank differs in bit k and reduces. Latency-optimal (lg p message
// rounds) but every round moves all n bytes, so it suits small messages.
//
//   4 ranks:  round 0: 0<->1, 2<->3     round 1: 0<->2, 1<->3     (each pair then holds
//             the sum of its group of 2, then of all 4)
//
// Non-powers of two fold the extra ranks in first and out last (power_of_two_fold.h).
#include "algorithms/power_of_two_fold.h"
#include "algorithms/recursive_doubling.h"

namespace arlab {

RankSchedule generate_recursive_doubling(const Problem& p) {
  return generate_folded(p, [&](ChainBuilder& chain, const PowerOfTwoFold& fold, BufferId data) {
    const Slice out{BufferId::Output, 0, p.count}, tmp{BufferId::Scratch, 0, p.count};
    Slice current{data, 0, p.count};
    // Exchange whole buffers with the partner at distance 1, 2, 4, ... among participants.
    for (int mask = 1; mask < fold.pof2; mask <<= 1) {
      const int partner = fold.real_rank(fold.new_rank ^ mask);
      chain.step({Op::send(partner, current), Op::recv(partner, tmp)});
      chain.step({ordered_reduce(out, current, tmp, p.rank, partner)});
      current = out;
    }
  });
}

}  // namespace arlab
