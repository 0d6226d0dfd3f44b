#include "harness/executor.h"

#include <sched.h>

#include <cstring>

namespace arlab {

namespace {
// Polls without progress before giving the core away; keeps oversubscribed runs moving.
constexpr int kSpinsBeforeYield = 64;
}  // namespace

Executor::Executor(const RankSchedule& schedule, size_t element_size)
    : schedule_(schedule), element_size_(element_size), tags_(message_sequence(schedule)),
      dependents_(step_dependents(schedule)) {}

char* Executor::address(const RankBuffers& b, BufferId id, uint64_t offset) const {
  char* base = id == BufferId::Input ? const_cast<char*>(static_cast<const char*>(b.input))
             : id == BufferId::Output ? static_cast<char*>(b.output)
                                      : static_cast<char*>(b.scratch);
  return base + offset * element_size_;
}

void Executor::run(Transport& transport, const RankBuffers& buffers, ReduceFn reduce) {
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
      start_step(transport, buffers, reduce, ready_[next_ready++]);
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

void Executor::start_step(Transport& transport, const RankBuffers& b, ReduceFn reduce, uint32_t step) {
  const auto ops = schedule_.ops(step);
  const uint32_t first = schedule_.first_op(step);
  // Receives first, so the matching message finds a posted buffer; then sends; then local work.
  for (int pass = 0; pass < 3; ++pass) {
    for (uint32_t i = 0; i < ops.size(); ++i) {
      const Op& op = ops[i];
      const size_t bytes = op.count * element_size_;
      if (pass == 0 && is_incoming(op.kind)) {
        // A one-sided wait is lowered to a receive into the same slice.
        in_flight_.push_back({transport.irecv(op.peer, address(b, op.dst_buffer, op.dst_offset), bytes, tags_[first + i]), step});
        ++pending_[step];
      } else if (pass == 1 && is_outgoing(op.kind)) {
        // A one-sided write is lowered to a send; the receiver's wait names the destination.
        in_flight_.push_back({transport.isend(op.peer, address(b, op.a_buffer, op.a_offset), bytes, tags_[first + i]), step});
        ++pending_[step];
      } else if (pass == 2 && op.kind == OpKind::Reduce) {
        reduce(address(b, op.dst_buffer, op.dst_offset), address(b, op.a_buffer, op.a_offset),
               address(b, op.b_buffer, op.b_offset), op.count);
      } else if (pass == 2 && op.kind == OpKind::Copy) {
        char* dst = address(b, op.dst_buffer, op.dst_offset);
        const char* src = address(b, op.a_buffer, op.a_offset);
        if (dst != src) std::memcpy(dst, src, bytes);
      }
    }
  }
  if (pending_[step] == 0) complete_step(step);
}

void Executor::complete_step(uint32_t step) {
  ++done_;
  for (uint32_t k = dependents_.begin[step]; k < dependents_.begin[step + 1]; ++k)
    if (--remaining_[dependents_.list[k]] == 0) ready_.push_back(dependents_.list[k]);
}

}  // namespace arlab
