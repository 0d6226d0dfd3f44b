// The schedule IR: what an all-reduce algorithm is, as plain data.
//
// A generator (ring.cpp, ...) turns a Problem into one RankSchedule per rank. A rank's
// schedule is an ordered list of steps; each step is a set of operations that may run
// concurrently and a list of earlier steps it waits for. Three consumers read the same
// data: the executor (harness/) runs it on a transport, the checker proves it correct
// without data, and `arlab explain` prints it. Nothing here moves a byte.
//
// Slices are counted in elements, not bytes: a schedule is the same for every datatype
// of one element size, and the executor scales offsets by the element size.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace arlab {

enum class BufferId : uint8_t { Input, Output, Scratch };

struct Slice {
  BufferId buffer;
  uint64_t offset;  // elements
  uint64_t count;   // elements
};

enum class OpKind : uint8_t {
  Send,        // send(peer, a): two-sided, matched with the peer's Recv in order
  Recv,        // recv(peer, dst)
  Write,       // write(peer, a -> dst in the peer's buffers) + signal (one-sided)
  WaitSignal,  // wait for the peer's Write into my dst slice
  Reduce,      // dst = a (op) b, elementwise
  Copy,        // dst = a
};

// One operation. Kept to 40 bytes because the checker holds every rank's schedule of a
// 4096-rank ring at once. Fields a kind does not use are zero.
struct Op {
  OpKind kind;
  BufferId dst_buffer;
  BufferId a_buffer;
  BufferId b_buffer;
  int32_t peer;
  uint64_t count;
  uint64_t dst_offset;
  uint64_t a_offset;
  uint64_t b_offset;

  Slice dst() const { return {dst_buffer, dst_offset, count}; }
  Slice a() const { return {a_buffer, a_offset, count}; }
  Slice b() const { return {b_buffer, b_offset, count}; }

  static Op send(int peer, Slice src);
  static Op recv(int peer, Slice dst);
  static Op write(int peer, Slice src, Slice remote_dst);
  static Op wait_signal(int peer, Slice dst);
  static Op reduce(Slice dst, Slice a, Slice b);
  static Op copy(Slice dst, Slice src);
};

bool is_incoming(OpKind kind);  // Recv, WaitSignal: the op that a peer's message completes
bool is_outgoing(OpKind kind);  // Send, Write

// What the generator is asked to produce.
struct Problem {
  int rank = 0;
  int nranks = 1;
  uint64_t count = 0;            // elements per rank
  uint32_t element_size = 4;     // bytes; used only to turn chunk bytes into elements
  uint64_t chunk_bytes = 0;      // pipeline chunk; 0 = no pipelining
  int ranks_per_node = 0;        // 0 = all ranks on one node (used by hierarchical generators)
  std::string inter = "ring";    // hier: the all-reduce among nodes
  std::string intra = "direct";  // hier: the reduce-scatter / all-gather inside a node

  uint64_t chunk_elements() const;
};

// Steps stored CSR-style: step i owns ops [step_op_begin[i], step_op_begin[i+1]) and
// deps [step_dep_begin[i], step_dep_begin[i+1]).
class RankSchedule {
 public:
  RankSchedule() : step_op_begin_{0}, step_dep_begin_{0} {}

  // Appends a step made of `ops` that waits for `deps` (indices of earlier steps).
  // Returns the new step's index. A step with no ops is still a valid join point.
  uint32_t add_step(std::span<const Op> ops, std::span<const uint32_t> deps);
  uint32_t add_step(std::initializer_list<Op> ops, std::initializer_list<uint32_t> deps) {
    return add_step(std::span<const Op>(ops.begin(), ops.size()),
                    std::span<const uint32_t>(deps.begin(), deps.size()));
  }

  // Generators that know their size reserve it, so a 4096-rank world is built without
  // reallocation (and without the slack of vector growth).
  void reserve(size_t steps, size_t ops, size_t deps) {
    ops_.reserve(ops);
    deps_.reserve(deps);
    step_op_begin_.reserve(steps + 1);
    step_dep_begin_.reserve(steps + 1);
  }

  size_t num_steps() const { return step_op_begin_.size() - 1; }
  size_t num_ops() const { return ops_.size(); }
  std::span<const Op> ops(size_t step) const {
    return {ops_.data() + step_op_begin_[step], step_op_begin_[step + 1] - step_op_begin_[step]};
  }
  std::span<const uint32_t> deps(size_t step) const {
    return {deps_.data() + step_dep_begin_[step],
            step_dep_begin_[step + 1] - step_dep_begin_[step]};
  }
  std::span<const Op> all_ops() const { return ops_; }
  // For passes that rewrite ops in place (one_sided.cpp); steps and dependencies stay.
  std::span<Op> mutable_ops() { return ops_; }
  uint32_t first_op(size_t step) const { return step_op_begin_[step]; }

  uint64_t scratch_count = 0;  // elements of scratch the schedule needs
  int rank = 0;
  int nranks = 1;
  uint64_t count = 0;

 private:
  std::vector<Op> ops_;
  std::vector<uint32_t> deps_;
  std::vector<uint32_t> step_op_begin_;
  std::vector<uint32_t> step_dep_begin_;
};

// The k-th send to (or receive from) a peer, counted in op order, gets sequence number k: the
// executor sends it as the message tag, the checker matches messages by it.
std::vector<uint32_t> message_sequence(const RankSchedule& s);

// Who waits for each step, in CSR form (step x releases list[begin[x] .. begin[x+1])), and how
// many steps each one waits for: what the executor and the checker need to run a schedule.
struct StepDependents {
  std::vector<uint32_t> begin, list, waits_for;
};
StepDependents step_dependents(const RankSchedule& s);

std::string to_string(BufferId buffer);
std::string to_string(OpKind kind);
std::string to_string(const Slice& slice);
std::string to_string(const Op& op);

}  // namespace arlab
