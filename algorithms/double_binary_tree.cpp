// Double binary tree (Sanders, Speck and Traeff 2009; what NCCL calls Tree): the buffer is
// halved, and each half is reduced up and broadcast down its own binary tree. The two trees
// are complementary: the second is the first mirrored (even N) or shifted by one (odd N), so
// a rank that is an interior node of one tree is a leaf of the other, and every rank sends
// and receives about the same amount. Both halves are pipelined in chunks.
//
// The first tree is in-order: a rank's level is its lowest set bit, its children are
// rank -+ half that bit, and rank 0, the root, has the one child 2^k (the largest power of
// two below N). With 8 ranks:      0
//                                  4
//                              2       6
//                            1   3   5   7
// A subtree is a contiguous range of ranks, so every node adds left subtree, itself, right
// subtree in rank order.
#include "algorithms/double_binary_tree.h"

#include <algorithm>

#include "algorithms/partition.h"
#include "algorithms/schedule_builder.h"

namespace arlab {
namespace {

struct TreeNode {
  int parent = -1;
  int children[2] = {-1, -1};  // below and above this rank
};

// The in-order binary tree over ranks 0..n-1.
TreeNode in_order_tree(int rank, int n) {
  TreeNode node;
  if (n == 1) return node;
  int bit = 1;
  while (bit < n && !(bit & rank)) bit <<= 1;
  if (rank == 0) {
    node.children[1] = bit >> 1;  // the loop ran off the top: bit is the first power of two >= n
    return node;
  }
  // My parent sits one level up: clear my bit and set the next one, unless that is past the end.
  node.parent = (rank ^ bit) | (bit << 1);
  if (node.parent >= n) node.parent = rank ^ bit;
  int low = bit >> 1;
  if (low == 0) return node;
  node.children[0] = rank - low;
  // The upper child may not exist; a smaller step down the levels may still land inside.
  while (low > 0 && rank + low >= n) low >>= 1;
  node.children[1] = low > 0 ? rank + low : -1;
  return node;
}

// The complementary tree: mirrored for even n, shifted by one for odd n.
TreeNode second_tree(int rank, int n) {
  const bool mirror = n % 2 == 0;
  const auto to = [&](int r) { return r < 0 ? -1 : mirror ? n - 1 - r : (r + 1) % n; };
  const TreeNode t = in_order_tree(mirror ? n - 1 - rank : mod(rank - 1, n), n);
  TreeNode out;
  out.parent = to(t.parent);
  out.children[0] = to(t.children[0]);
  out.children[1] = to(t.children[1]);
  return out;
}

TreeNode tree_node(int tree, int rank, int n) { return tree == 0 ? in_order_tree(rank, n) : second_tree(rank, n); }

}  // namespace

// From the trees' shapes: each half climbs to its root and comes back down, one latency per
// edge, a node sending up once all its children have reported; both halves run at once.
CostCounts double_binary_tree_cost(const CostQuery& q) {
  const int n = q.nranks;
  CostCounts c;
  const double half = q.bytes / 2;
  std::vector<double> sent(n, 0), reduced(n, 0);
  for (int t = 0; t < 2; ++t) {
    std::vector<TreeNode> nodes(n);
    for (int r = 0; r < n; ++r) nodes[r] = tree_node(t, r, n);
    // up[r]: when r sends its subtree's sum up. Children have... any rank order, so iterate
    // to a fixed point (the tree has depth lg N).
    std::vector<int> up(n, 0), down(n, -1);
    for (bool changed = true; changed;) {
      changed = false;
      for (int r = 0; r < n; ++r)
        for (int child : nodes[r].children)
          if (child >= 0 && up[child] + 1 > up[r]) up[r] = up[child] + 1, changed = true;
    }
    int root = 0;
    while (nodes[root].parent >= 0) root = nodes[root].parent;
    down[root] = up[root];
    for (bool changed = true; changed;) {
      changed = false;
      for (int r = 0; r < n; ++r)
        if (down[r] < 0 && down[nodes[r].parent] >= 0) down[r] = down[nodes[r].parent] + 1, changed = true;
    }
    for (int r = 0; r < n; ++r) {
      c.rounds = std::max<double>(c.rounds, down[r]);
      const int children = (nodes[r].children[0] >= 0) + (nodes[r].children[1] >= 0);
      sent[r] += half * (children + (nodes[r].parent >= 0));
      reduced[r] += half * children;
    }
  }
  for (int r = 0; r < n; ++r) {
    c.bytes_sent = std::max(c.bytes_sent, sent[r]);
    c.bytes_reduced = std::max(c.bytes_reduced, reduced[r]);
  }
  return c;
}

bool double_binary_tree_interior(int tree, int rank, int n) {
  const TreeNode node = tree_node(tree, rank, n);
  return node.children[0] >= 0 || node.children[1] >= 0;
}

RankSchedule generate_double_binary_tree(const Problem& p) {
  RankSchedule s;
  if (start_schedule(s, p)) return s;
  const int r = p.rank, n = p.nranks;
  // Scratch: one landing area per child slot, each as large as the buffer.
  s.scratch_count = 2 * p.count;
  const uint64_t chunk = p.chunk_elements();
  const TreeNode trees[2] = {in_order_tree(r, n), second_tree(r, n)};
  for (int half = 0; half < 2; ++half) {
    const Range part = block_range(p.count, 2, half);
    const TreeNode& node = trees[half];
    for (uint64_t c = 0; c < num_chunks(part.count, chunk); ++c) {
      const Range piece = chunk_range(part, chunk, c);
      const Slice in{BufferId::Input, piece.offset, piece.count}, out{BufferId::Output, piece.offset, piece.count};
      ChainBuilder chain(s);
      // Up: receive both children's sums, add them around my own contribution in rank order.
      std::vector<Op> receive;
      for (int k = 0; k < 2; ++k)
        if (node.children[k] >= 0)
          receive.push_back(Op::recv(node.children[k], {BufferId::Scratch, k * p.count + piece.offset, piece.count}));
      chain.step(receive);
      Slice acc = in;
      for (int k = 0; k < 2; ++k) {
        if (node.children[k] < 0) continue;
        const Slice theirs{BufferId::Scratch, k * p.count + piece.offset, piece.count};
        chain.step({ordered_reduce(out, acc, theirs, r, node.children[k])});
        acc = out;
      }
      if (node.parent >= 0) {
        chain.step({Op::send(node.parent, acc)});
        chain.step({Op::recv(node.parent, out)});
      }
      // Down: pass the finished chunk to both children at once.
      std::vector<Op> forward;
      for (int k = 0; k < 2; ++k)
        if (node.children[k] >= 0) forward.push_back(Op::send(node.children[k], out));
      chain.step(forward);
    }
  }
  return s;
}

}  // namespace arlab
