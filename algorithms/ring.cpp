// Ring all-reduce: a reduce-scatter around the ring, then an all-gather around it.
//
// The buffer is cut into N blocks (partition.h). With 4 ranks, rank r at reduce-scatter
// step s sends block (r - s) to its right neighbour and receives block (r - s - 1) from
// its left one, adding it to its own copy:
//
//   step 0:  r0 sends b0, gets b3    r1 sends b1, gets b0   ...
//   step 2:  r0 sends b2, gets b1    ...  after N-1 steps rank r owns the full sum of b(r+1)
//
// The all-gather then passes the finished blocks around the ring: at step s rank r sends
// block (r + 1 - s) and receives block (r - s) straight into its output.
//
// Every block is further cut into pipeline chunks. All operations on chunk index c form
// one chain of dependencies (each step waits for the previous step of the same chunk), so
// chunk c+1 travels while chunk c is being reduced. Operations on different chunk indices
// touch disjoint elements, so the chain per chunk is all the ordering the data needs.
#include "algorithms/partition.h"
#include "algorithms/ring.h"
#include "algorithms/schedule_builder.h"

namespace arlab {

RankSchedule generate_ring(const Problem& p) {
  RankSchedule s;
  if (start_schedule(s, p)) return s;
  const int n = p.nranks, r = p.rank;
  const uint64_t chunk = p.chunk_elements();
  const uint64_t max_block = max_block_count(p.count, n);
  s.scratch_count = max_block;
  const int right = mod(r + 1, n), left = mod(r - 1, n);
  auto block = [&](int b) { return block_range(p.count, n, b); };

  const uint64_t max_chunks = num_chunks(max_block, chunk);
  // At most: per step and chunk, a transfer step (send + recv) and a reduce step.
  const size_t upper = static_cast<size_t>(2 * (n - 1) * max_chunks);
  s.reserve(upper + upper / 2, 2 * upper + upper / 2, upper + upper / 2);
  std::vector<ChainBuilder> chains(max_chunks, ChainBuilder(s));  // one chain per chunk index

  // Reduce-scatter: after step k, out[recv block] holds k + 2 ranks' contributions.
  for (int step = 0; step < n - 1; ++step) {
    const Range send_block = block(mod(r - step, n)), recv_block = block(mod(r - step - 1, n));
    const BufferId send_from = step == 0 ? BufferId::Input : BufferId::Output;
    for (uint64_t c = 0; c < max_chunks; ++c) {
      const Range out = chunk_range(send_block, chunk, c), in = chunk_range(recv_block, chunk, c);
      chains[c].step({Op::send(right, {send_from, out.offset, out.count}),
                      Op::recv(left, {BufferId::Scratch, c * chunk, in.count})});
      chains[c].step({Op::reduce({BufferId::Output, in.offset, in.count}, {BufferId::Input, in.offset, in.count},
                                 {BufferId::Scratch, c * chunk, in.count})});
    }
  }
  // All-gather: forward finished blocks; each arrives directly in the output.
  for (int step = 0; step < n - 1; ++step) {
    const Range send_block = block(mod(r + 1 - step, n)), recv_block = block(mod(r - step, n));
    for (uint64_t c = 0; c < max_chunks; ++c) {
      const Range out = chunk_range(send_block, chunk, c), in = chunk_range(recv_block, chunk, c);
      chains[c].step({Op::send(right, {BufferId::Output, out.offset, out.count}),
                      Op::recv(left, {BufferId::Output, in.offset, in.count})});
    }
  }
  return s;
}

}  // namespace arlab
