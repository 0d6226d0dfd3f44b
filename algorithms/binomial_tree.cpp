// Binomial tree: reduce to rank 0, then broadcast from it, both along a binomial tree, the
// buffer pipelined in chunks. Rank r's children are r + 1, r + 2, r + 4, ... below its lowest
// set bit; its parent is r minus that bit.
//
//   8 ranks:  0 <- 1, 0 <- 2 <- 3, 0 <- 4 <- 5, 4 <- 6 <- 7    (reduce; broadcast reverses)
//
// lg N rounds each way, and every round carries the whole buffer: latency-friendly, not
// bandwidth-optimal. Chunks pipeline the tree: chunk c+1 climbs while chunk c is reduced.
#include "algorithms/binomial_tree.h"

#include "algorithms/partition.h"
#include "algorithms/schedule_builder.h"

namespace arlab {

RankSchedule generate_binomial_tree(const Problem& p) {
  RankSchedule s;
  if (start_schedule(s, p)) return s;
  const int r = p.rank, n = p.nranks;
  s.scratch_count = p.count;
  const int lowbit = r == 0 ? 1 << 30 : r & -r;
  std::vector<int> children;  // in the order their subtrees are reduced: nearest first
  for (int mask = 1; mask < lowbit && r + mask < n; mask <<= 1) children.push_back(r + mask);
  const int parent = r == 0 ? -1 : r - lowbit;

  const uint64_t chunk = p.chunk_elements();
  const Range whole{0, p.count};
  const uint64_t chunks = num_chunks(p.count, chunk);
  // One chain of steps per chunk; chains of different chunks run concurrently.
  for (uint64_t c = 0; c < chunks; ++c) {
    const Range part = chunk_range(whole, chunk, c);
    const Slice in{BufferId::Input, part.offset, part.count}, out{BufferId::Output, part.offset, part.count};
    const Slice tmp{BufferId::Scratch, part.offset, part.count};
    ChainBuilder chain(s);
    // Reduce: my subtree's sum accumulates in out (contiguous ranks, lowest first).
    Slice acc = in;
    for (int child : children) {
      chain.step({Op::recv(child, tmp)});
      chain.step({ordered_reduce(out, acc, tmp, r, child)});
      acc = out;
    }
    if (parent >= 0) {
      chain.step({Op::send(parent, acc)});
      chain.step({Op::recv(parent, out)});
    }
    // Broadcast: farthest child first, so the deepest subtree starts earliest.
    for (auto it = children.rbegin(); it != children.rend(); ++it) chain.step({Op::send(*it, out)});
  }
  return s;
}

}  // namespace arlab
