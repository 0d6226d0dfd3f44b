#include "harness/executor.h"

#include <sched.h>

namespace arlab {

namespace {
// Polls without progress before giving the core away; keeps oversubscribed runs moving.
constexpr int kSpinsBeforeYield = 64;
}  // namespace

void run_local_ops(const LocalWork& work, const RankBuffers& b, std::span<const Op> ops, size_t element_size) {
  const auto address = [&](BufferId id, uint64_t offset) { return b.address(id, offset, element_size); };
  for (const Op& op : ops) {
    if (op.kind == OpKind::Reduce)
      work.device.reduce(work.type, work.op, address(op.dst_buffer, op.dst_offset), address(op.a_buffer, op.a_offset),
                         address(op.b_buffer, op.b_offset), op.count);
    else if (op.kind == OpKind::Copy)
      work.device.copy(address(op.dst_buffer, op.dst_offset), address(op.a_buffer, op.a_offset), op.count * element_size);
  }
}

Executor::Executor(const RankSchedule& schedule, size_t element_size)
    : schedule_(schedule), element_size_(element_size), tags_(message_sequence(schedule)),
      dependents_(step_dependents(schedule)) {}

void Executor::run(Transport& transport, const LocalWork& work, const RankBuffers& buffers) {
  const size_t steps = schedule_.num_steps();
  remaining_ = dependents_.waits_for;
  pending_.assign(steps, 0);
  ready_.clear();
  in_flight_.clear();
  done_ = 0;
  for (uint32_t x = 0; x < steps; ++x)
    if (remaining_[x] == 0) ready_.push_back(x);

  size_t next_ready = 0;
  int idle = 0;
  while (done_ < steps) {
    bool progressed = false;
    // Start every step whose dependencies are done (ready_ grows as steps complete).
    while (next_ready < ready_.size()) {
      start_step(transport, work, buffers, ready_[next_ready++]);
      progressed = true;
    }
    // Poll the requests in flight; swap-remove the completed ones.
    for (size_t i = 0; i < in_flight_.size();) {
      if (transport.test(in_flight_[i].request)) {
        const uint32_t step = in_flight_[i].step;
        in_flight_[i] = in_flight_.back();
        in_flight_.pop_back();
        if (--pending_[step] == 0) complete_step(step);
        progressed = true;
      } else {
        ++i;
      }
    }
    if (progressed) {
      idle = 0;
    } else if (++idle >= kSpinsBeforeYield) {
      sched_yield();
      idle = 0;
    }
  }
}

void Executor::start_step(Transport& transport, const LocalWork& work, const RankBuffers& b, uint32_t step) {
  const auto ops = schedule_.ops(step);
  const uint32_t first = schedule_.first_op(step);
  const auto address = [&](BufferId id, uint64_t offset) { return b.address(id, offset, element_size_); };
  // Receives first, so the matching message finds a posted buffer; then sends; then local work.
  for (int pass = 0; pass < 2; ++pass) {
    for (uint32_t i = 0; i < ops.size(); ++i) {
      const Op& op = ops[i];
      const size_t bytes = op.count * element_size_;
      if (pass == 0 && is_incoming(op.kind)) {
        // A one-sided wait is lowered to a receive into the same slice.
        in_flight_.push_back({transport.irecv(op.peer, address(op.dst_buffer, op.dst_offset), bytes, tags_[first + i]), step});
        ++pending_[step];
      } else if (pass == 1 && is_outgoing(op.kind)) {
        // A one-sided write is lowered to a send; the receiver's wait names the destination.
        in_flight_.push_back({transport.isend(op.peer, address(op.a_buffer, op.a_offset), bytes, tags_[first + i]), step});
        ++pending_[step];
      }
    }
  }
  run_local_ops(work, b, ops, element_size_);
  // A later send may read what this step computed: on an asynchronous device, wait for it.
  if (work.device.asynchronous()) work.device.synchronize();
  if (pending_[step] == 0) complete_step(step);
}

void Executor::complete_step(uint32_t step) {
  ++done_;
  for (uint32_t k = dependents_.begin[step]; k < dependents_.begin[step + 1]; ++k)
    if (--remaining_[dependents_.list[k]] == 0) ready_.push_back(dependents_.list[k]);
}

}  // namespace arlab
