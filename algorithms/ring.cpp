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
//
// Every rank runs the same program shifted by its rank, so the ring is written once, as a
// rotation template (rotation_template.h): blocks relative to the rank, neighbours at +1
// and -1. Each rank's schedule is that template expanded, and the rotation checker proves
// the template for all ranks at once.
#include "algorithms/ring.h"

namespace arlab {

RotationTemplate ring_template(const Problem& p) {
  const int n = p.nranks;
  RotationTemplate t(n, p.count, p.chunk_elements());
  const uint32_t chunks = t.chunks_per_block();
  const auto unit = [](BufferId buffer, int block, uint32_t c) { return UnitRef{buffer, block, c}; };
  if (n == 1) {  // the whole all-reduce is a copy
    std::vector<TemplateOp> copies;
    for (uint32_t c = 0; c < chunks; ++c) copies.push_back(TemplateOp::copy(unit(BufferId::Output, 0, c), unit(BufferId::Input, 0, c)));
    if (!copies.empty()) t.add_step(copies, {});
    return t;
  }
  // One chain of steps per chunk index: each step waits for the chain's last one.
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> last(chunks, kNone);
  const auto chain_step = [&](uint32_t c, std::initializer_list<TemplateOp> ops) {
    const uint32_t dep[1] = {last[c]};
    last[c] = t.add_step(std::span<const TemplateOp>(ops.begin(), ops.size()),
                         std::span<const uint32_t>(dep, last[c] == kNone ? 0 : 1));
  };

  // Reduce-scatter: after step k, out[recv block] holds k + 2 ranks' contributions.
  for (int step = 0; step < n - 1; ++step) {
    const int send_block = -step, recv_block = -step - 1;
    const BufferId send_from = step == 0 ? BufferId::Input : BufferId::Output;
    for (uint32_t c = 0; c < chunks; ++c) {
      chain_step(c, {TemplateOp::send(+1, unit(send_from, send_block, c)),
                     TemplateOp::recv(-1, unit(BufferId::Scratch, recv_block, c))});
      chain_step(c, {TemplateOp::reduce(unit(BufferId::Output, recv_block, c), unit(BufferId::Input, recv_block, c),
                                        unit(BufferId::Scratch, recv_block, c))});
    }
  }
  // All-gather: forward finished blocks; each arrives directly in the output.
  for (int step = 0; step < n - 1; ++step) {
    const int send_block = 1 - step, recv_block = -step;
    for (uint32_t c = 0; c < chunks; ++c)
      chain_step(c, {TemplateOp::send(+1, unit(BufferId::Output, send_block, c)),
                     TemplateOp::recv(-1, unit(BufferId::Output, recv_block, c))});
  }
  return t;
}

RankSchedule generate_ring(const Problem& p) { return expand(ring_template(p), p.rank); }

}  // namespace arlab
