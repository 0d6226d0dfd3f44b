#include "algorithms/rotation_template.h"

#include <algorithm>

#include "algorithms/errors.h"

namespace arlab {

RotationTemplate::RotationTemplate(int nranks, uint64_t count, uint64_t chunk_elements)
    : nranks_(nranks), count_(count), chunk_(std::max<uint64_t>(1, chunk_elements)) {
  if (nranks < 1) throw ScheduleError("RotationTemplate(nranks=" + std::to_string(nranks) + "): needs at least one rank");
  chunks_ = static_cast<uint32_t>(num_chunks(max_block_count(count, nranks), chunk_));
  shape_.nranks = nranks;
  shape_.count = count;
}

uint32_t RotationTemplate::add_step(std::span<const TemplateOp> ops, std::span<const uint32_t> deps) {
  for (const TemplateOp& op : ops)
    for (const UnitRef& u : {op.dst, op.a, op.b}) uses_scratch_ |= u.buffer == BufferId::Scratch;
  ops_.insert(ops_.end(), ops.begin(), ops.end());
  op_begin_.push_back(static_cast<uint32_t>(ops_.size()));
  return shape_.add_step({}, deps);
}

Range RotationTemplate::unit_range(int rank, UnitRef u) const {
  const Range block = block_range(count_, nranks_, mod(static_cast<long long>(rank) + u.block, nranks_));
  const Range chunk = chunk_range(block, chunk_, u.chunk);
  if (u.buffer == BufferId::Scratch) return {u.chunk * chunk_, chunk.count};
  return chunk;
}

uint64_t RotationTemplate::ranks_with_elements(UnitRef u) const {
  const uint64_t base = count_ / nranks_, extra = count_ % nranks_;
  // Blocks 0 .. extra-1 hold base + 1 elements, the others base.
  const auto has_chunk = [&](uint64_t block_size) { return u.chunk < num_chunks(block_size, chunk_); };
  return (has_chunk(base + 1) ? extra : 0) + (has_chunk(base) ? nranks_ - extra : 0);
}

RankSchedule expand(const RotationTemplate& t, int rank) {
  const int n = t.nranks();
  RankSchedule s;
  s.rank = rank;
  s.nranks = n;
  s.count = t.count();
  s.scratch_count = t.scratch_count();
  s.reserve(t.num_steps(), t.num_ops(), t.num_steps());
  const auto slice = [&](UnitRef u) {
    const Range range = t.unit_range(rank, u);
    return Slice{u.buffer, range.offset, range.count};
  };
  const auto peer = [&](int distance) { return mod(static_cast<long long>(rank) + distance, n); };

  // A dropped step hands its dependencies on to the steps that waited for it: kept[x] is x's
  // index in the schedule, or for a dropped x, inherited[inherited_begin[x] ..] are the kept
  // steps it stood for. Orderings between the kept steps stay exactly as in the template.
  constexpr uint32_t kDropped = UINT32_MAX;
  std::vector<uint32_t> kept(t.num_steps(), kDropped), inherited_begin(t.num_steps() + 1, 0), inherited;
  std::vector<Op> ops;
  std::vector<uint32_t> deps;
  for (size_t x = 0; x < t.num_steps(); ++x) {
    deps.clear();
    for (uint32_t d : t.deps(x)) {
      if (kept[d] != kDropped)
        deps.push_back(kept[d]);
      else
        deps.insert(deps.end(), inherited.begin() + inherited_begin[d], inherited.begin() + inherited_begin[d + 1]);
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    ops.clear();
    for (const TemplateOp& op : t.ops(x)) {
      Op e;
      switch (op.kind) {
        case OpKind::Send: e = Op::send(peer(op.peer), slice(op.a)); break;
        case OpKind::Recv: e = Op::recv(peer(op.peer), slice(op.dst)); break;
        case OpKind::Reduce: e = Op::reduce(slice(op.dst), slice(op.a), slice(op.b)); break;
        case OpKind::Copy: e = Op::copy(slice(op.dst), slice(op.a)); break;
        default: throw ScheduleError("expand: " + to_string(op.kind) + " has no place in a rotation template");
      }
      if (e.count > 0) ops.push_back(e);
    }
    if (!ops.empty()) {
      kept[x] = s.add_step(ops, deps);
    } else {
      inherited.insert(inherited.end(), deps.begin(), deps.end());
    }
    inherited_begin[x + 1] = static_cast<uint32_t>(inherited.size());
  }
  return s;
}

}  // namespace arlab
