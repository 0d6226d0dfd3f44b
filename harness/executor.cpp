#include "harness/executor.h"

#include <sched.h>

#include <cstring>
#include <unordered_map>

namespace arlab {

namespace {
// Polls without progress before giving the core away; keeps oversubscribed runs moving.
constexpr int kSpinsBeforeYield = 64;
}  // namespace

Executor::Executor(const RankSchedule& schedule, size_t element_size)
    : schedule_(schedule), element_size_(element_size) {
  const size_t steps = schedule.num_steps();
  // Message tags: count sends and receives per peer in op order, as the checker does.
  std::unordered_map<int, uint32_t> sent, received;
  tags_.resize(schedule.num_ops());
  for (size_t i = 0; i < schedule.num_ops(); ++i) {
    const Op& op = schedule.all_ops()[i];
    if (is_outgoing(op.kind)) tags_[i] = sent[op.peer]++;
    if (is_incoming(op.kind)) tags_[i] = received[op.peer]++;
  }
  // Dependents in CSR form so completing a step releases its successors in O(successors).
  dependents_begin_.assign(steps + 1, 0);
  dep_count_.resize(steps);
  for (size_t x = 0; x < steps; ++x) {
    dep_count_[x] = static_cast<uint32_t>(schedule.deps(x).size());
    for (uint32_t d : schedule.deps(x)) ++dependents_begin_[d + 1];
  }
  for (size_t x = 0; x < steps; ++x) dependents_begin_[x + 1] += dependents_begin_[x];
  dependents_.resize(dependents_begin_[steps]);
  std::vector<uint32_t> fill(dependents_begin_.begin(), dependents_begin_.end() - 1);
  for (size_t x = 0; x < steps; ++x)
    for (uint32_t d : schedule.deps(x)) dependents_[fill[d]++] = static_cast<uint32_t>(x);
}

char* Executor::address(const RankBuffers& b, BufferId id, uint64_t offset) const {
  char* base = id == BufferId::Input ? const_cast<char*>(static_cast<const char*>(b.input))
             : id == BufferId::Output ? static_cast<char*>(b.output)
                                      : static_cast<char*>(b.scratch);
  return base + offset * element_size_;
}

void Executor::run(Transport& transport, const RankBuffers& buffers, ReduceFn reduce) {
  const size_t steps = schedule_.num_steps();
  remaining_ = dep_count_;
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
  for (uint32_t k = dependents_begin_[step]; k < dependents_begin_[step + 1]; ++k)
    if (--remaining_[dependents_[k]] == 0) ready_.push_back(dependents_[k]);
}

}  // namespace arlab
