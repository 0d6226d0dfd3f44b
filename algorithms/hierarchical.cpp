// Hierarchical all-reduce (the seeds' NVLink-inside, InfiniBand-outside case): ranks r..r+K-1
// form a node. With S = the smallest node's size, the buffer is cut into S slices and
//   1. intra-node reduce-scatter: local rank j < S gathers and reduces slice j of its node;
//   2. inter-node all-reduce: the M ranks that own slice j (local rank j on every node) run
//      any algorithm of the registry on it (--inter), in place on that slice (a rank alone
//      on its node has reduced nothing: it runs the algorithm from its input, as on its own);
//   3. intra-node all-gather: each owner hands its finished slice to the rest of its node.
// Only 2 x slice bytes per owner cross the slow network instead of the whole buffer.
// The intra-node phases (--intra) are "direct" (every rank sends each slice straight to its
// owner: one round, K-1 messages; serves nodes of different sizes, where local ranks >= S own
// nothing and just send and receive) or "ring" (K-1 rounds of one message; equal nodes).
#include "algorithms/hierarchical.h"

#include <tuple>

#include "algorithms/errors.h"
#include "algorithms/named_table.h"
#include "algorithms/partition.h"
#include "algorithms/registry.h"
#include "algorithms/schedule_builder.h"

namespace arlab {
namespace {

// Appends `sub`, one participant's schedule of the inter-node all-reduce, to `s`: its peers
// become real ranks, its output becomes out[slice] and its input in[slice] (`from_input`: a
// rank alone on its node, which has nothing to reduce first) or out[slice] (in place, after
// the intra-node reduce-scatter), its scratch sits at `scratch_base`. Steps that waited for
// nothing now wait for `after`.
uint32_t append_remapped(RankSchedule& s, const RankSchedule& sub, const std::vector<int>& peers, Range slice,
                         bool from_input, uint64_t scratch_base, uint32_t after) {
  const uint32_t offset = static_cast<uint32_t>(s.num_steps());
  const auto place = [&](BufferId buffer, uint64_t at) -> std::pair<BufferId, uint64_t> {
    if (buffer == BufferId::Scratch) return {BufferId::Scratch, scratch_base + at};
    if (buffer == BufferId::Input && from_input) return {BufferId::Input, slice.offset + at};
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

// Equal nodes of K ranks, M = N / K of them: the intra-node reduce-scatter (one round direct,
// K-1 as a ring), the inter-node algorithm on n/K bytes, the all-gather back. Either way each
// rank sends (K-1)/K n inside the node each way and reduces (K-1)/K n.
CostCounts hierarchical_cost(const CostQuery& q) {
  const int k = q.ranks_per_node > 0 ? std::min(q.ranks_per_node, q.nranks) : q.nranks, nodes = q.nranks / k;
  const double slice = q.bytes / k, intra = (k - 1) * slice;
  const double intra_rounds = k == 1 ? 0.0 : q.intra == "ring" ? 2.0 * (k - 1) : 2.0;
  CostCounts c{intra_rounds, 2 * intra, intra};
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

namespace {

// Where this rank sits: nodes of k consecutive ranks, the last one possibly smaller.
struct NodeLayout {
  int k, nodes, node, local, base, node_size, slices;
};


// Intra-node reduce-scatter and all-gather, one pair per --intra name. reduce_scatter leaves
// this rank's slice (the one it returns) reduced over its node in out[]; all_gather hands
// every finished slice to the whole node.
struct IntraNodePhases {
  std::string_view name;
  Range (*reduce_scatter)(const NodeLayout& l, uint64_t count, ChainBuilder& chain);
  void (*all_gather)(const NodeLayout& l, uint64_t count, Range mine, ChainBuilder& chain);
  uint64_t (*scratch)(const NodeLayout& l, uint64_t count);
};

Range slice_of(const NodeLayout& l, uint64_t count, int j) { return block_range(count, l.slices, j); }

// direct: slice j goes straight to local rank j (one round, node_size - 1 messages); any node
// sizes: local ranks >= slices own nothing.
uint64_t direct_scratch(const NodeLayout& l, uint64_t count) {
  return l.node_size == 1 ? 0 : l.node_size * max_block_count(count, l.slices);  // alone: nothing lands
}

Range direct_reduce_scatter(const NodeLayout& l, uint64_t count, ChainBuilder& chain) {
  const uint64_t slot = max_block_count(count, l.slices);
  std::vector<Op> exchange;
  // Staggered: the d-th message goes to local rank + d and the d-th receive is from local rank
  // - d, so in every round each rank sends to one peer and hears from one (no incast).
  for (int d = 1; d < l.node_size; ++d) {
    const int j = mod(l.local + d, l.node_size);
    const Range sj = j < l.slices ? slice_of(l, count, j) : Range{};
    if (sj.count) exchange.push_back(Op::send(l.base + j, {BufferId::Input, sj.offset, sj.count}));
  }
  const Range mine = l.local < l.slices ? slice_of(l, count, l.local) : Range{};
  if (mine.count)
    for (int d = 1; d < l.node_size; ++d) {
      const int o = mod(l.local - d, l.node_size);
      exchange.push_back(Op::recv(l.base + o, {BufferId::Scratch, o * slot, mine.count}));
    }
  chain.step(exchange);
  if (mine.count) {
    // My own contribution first (in place it is the output itself), then the others in rank
    // order from their landing slots.
    const Slice out{BufferId::Output, mine.offset, mine.count};
    Slice acc{BufferId::Input, mine.offset, mine.count};
    // Alone on its node the rank's input is already its slice's sum: the inter-node phase
    // reads it from the input (append_remapped), and only a single rank copies it.
    if (l.node_size == 1 && l.nodes == 1) chain.step({Op::copy(out, acc)});
    for (int o = 0; o < l.node_size; ++o) {
      if (o == l.local) continue;
      chain.step({Op::reduce(out, acc, {BufferId::Scratch, o * slot, mine.count})});
      acc = out;
    }
  }
  return mine;
}

void direct_all_gather(const NodeLayout& l, uint64_t count, Range mine, ChainBuilder& chain) {
  std::vector<Op> share;
  // Staggered as in the reduce-scatter.
  if (mine.count)
    for (int d = 1; d < l.node_size; ++d)
      share.push_back(Op::send(l.base + mod(l.local + d, l.node_size), {BufferId::Output, mine.offset, mine.count}));
  for (int d = 1; d < l.node_size; ++d) {
    const int j = mod(l.local - d, l.node_size);
    const Range sj = j < l.slices ? slice_of(l, count, j) : Range{};
    if (sj.count) share.push_back(Op::recv(l.base + j, {BufferId::Output, sj.offset, sj.count}));
  }
  chain.step(share);
}

// ring: the ring's two halves inside the node (node_size - 1 rounds each, one message per
// round); member i ends owning slice i + 1. Needs nodes of equal size.
uint64_t ring_scratch(const NodeLayout& l, uint64_t count) { return max_block_count(count, l.slices); }

Range ring_reduce_scatter(const NodeLayout& l, uint64_t count, ChainBuilder& chain) {
  const int k = l.node_size, right = l.base + mod(l.local + 1, k), left = l.base + mod(l.local - 1, k);
  if (k == 1) {  // as in direct_reduce_scatter: only a single rank copies
    if (l.nodes == 1) chain.step({Op::copy({BufferId::Output, 0, count}, {BufferId::Input, 0, count})});
    return {0, count};
  }
  // Step s: send slice (i - s), receive slice (i - s - 1) and add it to my own.
  for (int step = 0; step < k - 1; ++step) {
    const Range give = slice_of(l, count, mod(l.local - step, k)), take = slice_of(l, count, mod(l.local - step - 1, k));
    const BufferId from = step == 0 ? BufferId::Input : BufferId::Output;
    chain.step({Op::send(right, {from, give.offset, give.count}), Op::recv(left, {BufferId::Scratch, 0, take.count})});
    chain.step({Op::reduce({BufferId::Output, take.offset, take.count}, {BufferId::Input, take.offset, take.count},
                      {BufferId::Scratch, 0, take.count})});
  }
  return slice_of(l, count, mod(l.local + 1, k));
}

void ring_all_gather(const NodeLayout& l, uint64_t count, Range, ChainBuilder& chain) {
  const int k = l.node_size, right = l.base + mod(l.local + 1, k), left = l.base + mod(l.local - 1, k);
  for (int step = 0; step < k - 1; ++step) {
    const Range give = slice_of(l, count, mod(l.local + 1 - step, k)), take = slice_of(l, count, mod(l.local - step, k));
    chain.step({Op::send(right, {BufferId::Output, give.offset, give.count}),
           Op::recv(left, {BufferId::Output, take.offset, take.count})});
  }
}

const std::vector<IntraNodePhases>& intra_node_phases() {
  static const std::vector<IntraNodePhases> table = {
      {"direct", direct_reduce_scatter, direct_all_gather, direct_scratch},
      {"ring", ring_reduce_scatter, ring_all_gather, ring_scratch},
  };
  return table;
}

}  // namespace

std::string intra_node_names() { return join_names(intra_node_phases()); }
bool is_intra_node_phase(std::string_view name) { return find_named(intra_node_phases(), name) != nullptr; }

RankSchedule generate_hierarchical(const Problem& p) {
  const AlgorithmInfo* inter = find_algorithm(p.inter);
  if (!inter || p.inter == "hier")
    throw UnsupportedProblem("--inter: '" + p.inter + "' is not an algorithm hier can run between nodes (accepted: " +
                             algorithm_names() + ", except hier)");
  const IntraNodePhases* intra = find_named(intra_node_phases(), p.intra);
  if (!intra) throw UnsupportedProblem("--intra: unknown '" + p.intra + "' (accepted: " + intra_node_names() + ")");
  NodeLayout l;
  l.k = p.ranks_per_node > 0 ? std::min(p.ranks_per_node, p.nranks) : p.nranks;
  l.nodes = (p.nranks + l.k - 1) / l.k;
  l.node = p.rank / l.k;
  l.local = p.rank % l.k;
  l.base = l.node * l.k;
  const int last_node_size = p.nranks - (l.nodes - 1) * l.k;
  l.slices = std::min(l.k, last_node_size);
  l.node_size = l.node == l.nodes - 1 ? last_node_size : l.k;
  if (p.intra == "ring" && last_node_size != l.k)
    throw UnsupportedProblem("--intra ring needs nodes of equal size (" + std::to_string(p.nranks) + " ranks, " +
                             std::to_string(l.k) + " per node); use --intra direct");

  RankSchedule s;
  s.rank = p.rank;
  s.nranks = p.nranks;
  s.count = p.count;
  const uint64_t intra_scratch = intra->scratch(l, p.count);
  ChainBuilder chain(s);

  // 1. Intra-node reduce-scatter.
  const Range mine = intra->reduce_scatter(l, p.count, chain);

  // 2. Inter-node all-reduce of my slice among the owners of the same slice on every node.
  uint64_t inter_scratch = 0;
  if (l.local < l.slices && l.nodes > 1) {
    Problem sub = p;
    sub.rank = l.node;
    sub.nranks = l.nodes;
    sub.count = mine.count;
    sub.ranks_per_node = 0;
    const RankSchedule inner = inter->generate(sub);
    inter_scratch = inner.scratch_count;
    std::vector<int> peers(l.nodes);
    for (int m = 0; m < l.nodes; ++m) peers[m] = m * l.k + l.local;
    chain.continue_after(append_remapped(s, inner, peers, mine, l.node_size == 1, intra_scratch, chain.last()));
  }

  // 3. Intra-node all-gather.
  intra->all_gather(l, p.count, mine, chain);
  s.scratch_count = intra_scratch + inter_scratch;
  return s;
}

}  // namespace arlab
