// A rotation-symmetric schedule: one template from which every rank's schedule follows by
// renaming, the way the ring is the same program on every rank, shifted by one.
//
// A template names peers by their distance (+1 is the right neighbour, -1 the left one) and
// slices by units: unit (b, c) is pipeline chunk c of block (rank + b) mod N of the N-block
// partition (partition.h). In the scratch buffer, unit (b, c) names slot c (it starts at
// c * chunk elements) holding as many elements as unit (b, c) does elsewhere. Rank r's schedule
// is expand(t, r): every distance and block shifted by r, every unit turned into its element
// range, and, as generators do, operations of zero elements and steps left empty dropped.
//
// Because the template is the same on every rank, the rotation checker (rotation_checker.h)
// can prove all N ranks at once by playing one of them: N in the thousands in milliseconds.
// Nothing here moves a byte.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/partition.h"
#include "algorithms/schedule.h"

namespace arlab {

struct UnitRef {
  BufferId buffer;
  int32_t block;   // relative to the rank: block (rank + block) mod N
  uint32_t chunk;  // pipeline chunk of that block (in Scratch: the slot)
  bool operator==(const UnitRef&) const = default;
};

// Kinds as in the schedule IR, two-sided only (Send, Recv, Reduce, Copy); `peer` is a
// distance, and the slices a kind does not use are left zero.
struct TemplateOp {
  OpKind kind;
  int32_t peer = 0;
  UnitRef dst{}, a{}, b{};

  static TemplateOp send(int distance, UnitRef src) { return {OpKind::Send, distance, {}, src, {}}; }
  static TemplateOp recv(int distance, UnitRef dst) { return {OpKind::Recv, distance, dst, {}, {}}; }
  static TemplateOp reduce(UnitRef dst, UnitRef a, UnitRef b) { return {OpKind::Reduce, 0, dst, a, b}; }
  static TemplateOp copy(UnitRef dst, UnitRef src) { return {OpKind::Copy, 0, dst, src, {}}; }
};

class RotationTemplate {
 public:
  // A world of `nranks` ranks, `count` elements each, blocks cut in chunks of
  // `chunk_elements` (Problem::chunk_elements()).
  RotationTemplate(int nranks, uint64_t count, uint64_t chunk_elements);

  // As RankSchedule::add_step: `ops` may run concurrently once every step in `deps` is done.
  uint32_t add_step(std::span<const TemplateOp> ops, std::span<const uint32_t> deps);

  int nranks() const { return nranks_; }
  uint64_t count() const { return count_; }
  uint64_t chunk_elements() const { return chunk_; }
  uint32_t chunks_per_block() const { return chunks_; }  // units (b, c) exist for c below this
  // Scratch elements the expansions need: the largest unit, when any op names the scratch.
  uint64_t scratch_count() const { return uses_scratch_ ? max_block_count(count_, nranks_) : 0; }

  size_t num_steps() const { return shape_.num_steps(); }
  size_t num_ops() const { return ops_.size(); }
  std::span<const TemplateOp> ops(size_t step) const {
    return {ops_.data() + op_begin_[step], op_begin_[step + 1] - op_begin_[step]};
  }
  std::span<const uint32_t> deps(size_t step) const { return shape_.deps(step); }
  uint32_t first_op(size_t step) const { return op_begin_[step]; }  // index of ops(step)[0] among all ops
  // The steps and their dependencies without operations: what HappensBefore and
  // step_dependents read.
  const RankSchedule& shape() const { return shape_; }

  // Where unit u lies in rank `rank`'s buffers.
  Range unit_range(int rank, UnitRef u) const;
  // How many of the N ranks see unit u with at least one element (the same for every u of
  // one chunk index, since rotating through all ranks visits every block once).
  uint64_t ranks_with_elements(UnitRef u) const;

 private:
  int nranks_;
  uint64_t count_, chunk_;
  uint32_t chunks_;
  bool uses_scratch_ = false;
  RankSchedule shape_;
  std::vector<TemplateOp> ops_;
  std::vector<uint32_t> op_begin_{0};
};

// Rank `rank`'s schedule: the executor's, the general checker's and `arlab explain`'s view.
RankSchedule expand(const RotationTemplate& t, int rank);

}  // namespace arlab
