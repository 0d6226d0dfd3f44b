// Hierarchical all-reduce (the seeds' NVLink-inside, InfiniBand-outside case): ranks r..r+K-1
// form a node. With S = the smallest node's size, the buffer is cut into S slices and
//   1. intra-node reduce-scatter: local rank j < S gathers and reduces slice j of its node;
//   2. inter-node all-reduce: the M ranks that own slice j (local rank j on every node) run
//      any algorithm of the registry on it (--inter), in place on that slice;
//   3. intra-node all-gather: each owner hands its finished slice to the rest of its node.
// Only 2 x slice bytes per owner cross the slow network instead of the whole buffer.
// The intra-node phases are "direct": every rank sends each slice straight to its owner
// (one round, K-1 messages), which also serves nodes of different sizes (the last node may
// be smaller: local ranks >= S then own nothing and just send and receive).
#include "algorithms/hierarchical.h"

#include <tuple>

#include "algorithms/errors.h"
#include "algorithms/partition.h"
#include "algorithms/power_of_two_fold.h"
#include "algorithms/registry.h"

namespace arlab {
namespace {

// Appends `sub`, one participant's schedule of the inter-node all-reduce, to `s`: its peers
// become real ranks, its input and output both become out[slice] (in place), its scratch
// sits at `scratch_base`. Steps that waited for nothing now wait for `after`.
uint32_t append_remapped(RankSchedule& s, const RankSchedule& sub, const std::vector<int>& peers, Range slice,
                         uint64_t scratch_base, uint32_t after) {
  const uint32_t offset = static_cast<uint32_t>(s.num_steps());
  const auto place = [&](BufferId buffer, uint64_t at) -> std::pair<BufferId, uint64_t> {
    if (buffer == BufferId::Scratch) return {BufferId::Scratch, scratch_base + at};
    return {BufferId::Output, slice.offset + at};
  };
  uint32_t last = after;
  std::vector<Op> ops;
  std::vector<uint32_t> deps;
  for (size_t x = 0; x < sub.num_steps(); ++x) {
    ops.clear();
    deps.clear();
    for (Op op : sub.ops(x)) {
      if (op.peer >= 0) op.peer = peers[op.peer];
      std::tie(op.dst_buffer, op.dst_offset) = place(op.dst_buffer, op.dst_offset);
      std::tie(op.a_buffer, op.a_offset) = place(op.a_buffer, op.a_offset);
      std::tie(op.b_buffer, op.b_offset) = place(op.b_buffer, op.b_offset);
      // A copy of a slice onto itself (the one-rank case) is nothing to do.
      if (op.kind == OpKind::Copy && op.dst_buffer == op.a_buffer && op.dst_offset == op.a_offset) continue;
      ops.push_back(op);
    }
    for (uint32_t d : sub.deps(x)) deps.push_back(d + offset);
    if (deps.empty() && after != UINT32_MAX) deps.push_back(after);
    last = s.add_step(ops, deps);
  }
  // One join step, so what follows waits for the whole inter-node phase.
  if (sub.num_steps() > 0) {
    deps.clear();
    for (size_t x = 0; x < sub.num_steps(); ++x) deps.push_back(static_cast<uint32_t>(x) + offset);
    last = s.add_step(std::span<const Op>{}, deps);
  }
  return last;
}

}  // namespace

// Equal nodes of K ranks, M = N / K of them: one round in, the inter-node algorithm on n/K
// bytes, one round out.
CostCounts hierarchical_cost(const CostQuery& q) {
  const int k = q.ranks_per_node > 0 ? std::min(q.ranks_per_node, q.nranks) : q.nranks, nodes = q.nranks / k;
  const double slice = q.bytes / k, intra = (k - 1) * slice;
  CostCounts c{k > 1 ? 2.0 : 0.0, 2 * intra, intra};
  if (nodes > 1) {
    const AlgorithmInfo* inter = find_algorithm(q.inter);
    if (!inter || q.inter == "hier") throw UnsupportedProblem("--inter: '" + q.inter + "' cannot run between nodes");
    CostQuery sub = q;
    sub.nranks = nodes;
    sub.bytes = slice;
    sub.ranks_per_node = 0;
    const CostCounts between = inter->closed_form(sub);
    c.rounds += between.rounds;
    c.bytes_sent += between.bytes_sent;
    c.bytes_reduced += between.bytes_reduced;
  }
  return c;
}

RankSchedule generate_hierarchical(const Problem& p) {
  const AlgorithmInfo* inter = find_algorithm(p.inter);
  if (!inter || p.inter == "hier")
    throw UnsupportedProblem("--inter: '" + p.inter + "' is not an algorithm hier can run between nodes (accepted: " +
                             algorithm_names() + ", except hier)");
  if (p.intra != "direct")
    throw UnsupportedProblem("--intra: '" + p.intra + "' is not available (accepted: direct)");
  const int n = p.nranks, r = p.rank;
  const int k = p.ranks_per_node > 0 ? std::min(p.ranks_per_node, n) : n;
  const int nodes = (n + k - 1) / k, node = r / k, local = r % k, base = node * k;
  const int last_node_size = n - (nodes - 1) * k, slices = std::min(k, last_node_size);
  const int node_size = node == nodes - 1 ? last_node_size : k;

  RankSchedule s;
  s.rank = r;
  s.nranks = n;
  s.count = p.count;
  const uint64_t max_slice = max_block_count(p.count, slices);
  const auto slice = [&](int j) { return block_range(p.count, slices, j); };
  // Scratch: one landing slot per local sender for my slice, then the inter phase's scratch.
  const uint64_t landing = static_cast<uint64_t>(node_size) * max_slice;
  uint32_t last = UINT32_MAX;
  const auto chain = [&](const std::vector<Op>& ops) {
    if (ops.empty()) return;
    std::vector<uint32_t> deps;
    if (last != UINT32_MAX) deps.push_back(last);
    last = s.add_step(ops, deps);
  };

  // 1. Intra-node reduce-scatter, direct: slice j goes to local rank j.
  std::vector<Op> exchange;
  for (int j = 0; j < slices; ++j)
    if (j != local && slice(j).count) exchange.push_back(Op::send(base + j, {BufferId::Input, slice(j).offset, slice(j).count}));
  const Range mine = local < slices ? slice(local) : Range{};
  if (mine.count)
    for (int l = 0; l < node_size; ++l)
      if (l != local) exchange.push_back(Op::recv(base + l, {BufferId::Scratch, l * max_slice, mine.count}));
  chain(exchange);
  if (mine.count) {
    // My own contribution first (in place it is the output itself), then the others in rank
    // order from their landing slots.
    const Slice out{BufferId::Output, mine.offset, mine.count};
    Slice acc{BufferId::Input, mine.offset, mine.count};
    if (node_size == 1) chain({Op::copy(out, acc)});
    for (int l = 0; l < node_size; ++l) {
      if (l == local) continue;
      chain({Op::reduce(out, acc, {BufferId::Scratch, l * max_slice, mine.count})});
      acc = out;
    }
  }

  // 2. Inter-node all-reduce of my slice among the owners of the same slice on every node.
  uint64_t inter_scratch = 0;
  if (local < slices && nodes > 1) {
    Problem sub = p;
    sub.rank = node;
    sub.nranks = nodes;
    sub.count = mine.count;
    sub.ranks_per_node = 0;
    const RankSchedule inner = inter->generate(sub);
    inter_scratch = inner.scratch_count;
    std::vector<int> peers(nodes);
    for (int m = 0; m < nodes; ++m) peers[m] = m * k + local;
    last = append_remapped(s, inner, peers, mine, landing, last);
  }

  // 3. Intra-node all-gather, direct: each owner hands its finished slice to its node.
  std::vector<Op> share;
  if (mine.count)
    for (int l = 0; l < node_size; ++l)
      if (l != local) share.push_back(Op::send(base + l, {BufferId::Output, mine.offset, mine.count}));
  for (int j = 0; j < slices; ++j)
    if (j != local && slice(j).count) share.push_back(Op::recv(base + j, {BufferId::Output, slice(j).offset, slice(j).count}));
  chain(share);
  s.scratch_count = landing + inter_scratch;
  return s;
}

}  // namespace arlab
