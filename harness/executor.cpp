#include "harness/executor.h"

#include "harness/watchdog.h"
#include "harness/step_trace.h"

namespace arlab {

bool run_local_ops(const LocalWork& work, const RankBuffers& b, std::span<const Op> ops, size_t element_size) {
  const auto address = [&](BufferId id, uint64_t offset) { return b.address(id, offset, element_size); };
  bool any = false;
  for (const Op& op : ops) {
    any |= op.kind == OpKind::Reduce || op.kind == OpKind::Copy;
    if (op.kind == OpKind::Reduce)
      work.device.reduce(work.type, work.op, address(op.dst_buffer, op.dst_offset), address(op.a_buffer, op.a_offset),
                         address(op.b_buffer, op.b_offset), op.count);
    else if (op.kind == OpKind::Copy)
      work.device.copy(address(op.dst_buffer, op.dst_offset), address(op.a_buffer, op.a_offset), op.count * element_size);
  }
  return any;
}

Executor::Executor(const RankSchedule& schedule, size_t element_size)
    : schedule_(schedule), element_size_(element_size), tags_(message_sequence(schedule)),
      dependents_(step_dependents(schedule)) {
  sends_to_.assign(schedule.nranks, 0);
  receives_from_.assign(schedule.nranks, 0);
  for (const Op& op : schedule.all_ops()) {
    if (is_outgoing(op.kind)) ++sends_to_[op.peer];
    if (is_incoming(op.kind)) ++receives_from_[op.peer];
  }
}

// One-sided: attach this run's buffers as windows and take the run's message numbers.
void Executor::begin_one_sided_run(Transport& transport, const RankBuffers& b) {
  transport.attach_windows({b.output, schedule_.count * element_size_, b.scratch, schedule_.scratch_count * element_size_,
                            b.input, schedule_.count * element_size_});
  Transport::MessageCounters& counters = *transport.message_counters();
  send_base_ = counters.sent;
  receive_base_ = counters.received;
  for (size_t p = 0; p < sends_to_.size(); ++p) {
    counters.sent[p] += sends_to_[p];
    counters.received[p] += receives_from_[p];
  }
}

void Executor::run(Transport& transport, const LocalWork& work, const RankBuffers& buffers) {
  const size_t steps = schedule_.num_steps();
  remaining_ = dependents_.waits_for;
  pending_.assign(steps, 0);
  ready_.clear();
  in_flight_.clear();
  done_ = 0;
  for (uint32_t x = 0; x < steps; ++x)
    if (remaining_[x] == 0) ready_.push_back(x);
  one_sided_ = transport.capabilities().one_sided;
  if (one_sided_) begin_one_sided_run(transport, buffers);
  if (times_) times_->assign(steps, {});

  size_t next_ready = 0;
  IdlePoll poll;
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
    if (progressed)
      poll.progressed();
    else
      poll.idle([&] { return waiting_for(); });
  }
}

// What the run waits for, for the stall report: the oldest request in flight.
std::string Executor::waiting_for() const {
  if (in_flight_.empty()) return "nothing in flight, " + std::to_string(done_) + " of " + std::to_string(schedule_.num_steps()) + " steps done";
  const InFlight& f = in_flight_.front();
  const Op& op = schedule_.all_ops()[f.op];
  return "step " + std::to_string(f.step) + " of " + std::to_string(schedule_.num_steps()) + " waits for " +
         (is_incoming(op.kind) ? "a message from rank " : "rank ") + std::to_string(op.peer) +
         (is_incoming(op.kind) ? "" : " to take a message") + " (" + to_string(op) + ", " +
         std::to_string(op.count * element_size_) + " bytes, message " + std::to_string(tags_[f.op]) + " of the pair)";
}

void Executor::start_step(Transport& transport, const LocalWork& work, const RankBuffers& b, uint32_t step) {
  if (times_) (*times_)[step].start_us = steady_clock_us();
  const auto ops = schedule_.ops(step);
  const uint32_t first = schedule_.first_op(step);
  const auto address = [&](BufferId id, uint64_t offset) { return b.address(id, offset, element_size_); };
  // Receives first, so the matching message finds a posted buffer; then sends; then local work.
  for (int pass = 0; pass < 2; ++pass) {
    for (uint32_t i = 0; i < ops.size(); ++i) {
      const Op& op = ops[i];
      const size_t bytes = op.count * element_size_;
      const uint32_t tag = tags_[first + i];
      if (pass == 0 && is_incoming(op.kind)) {
        // On a two-sided transport a one-sided wait is a receive into the same slice.
        const RequestId id = one_sided_ && op.kind == OpKind::WaitSignal
                                 ? transport.wait_signal(op.peer, receive_base_[op.peer] + tag)
                                 : transport.irecv(op.peer, address(op.dst_buffer, op.dst_offset), bytes, tag);
        in_flight_.push_back({id, step, first + i});
        ++pending_[step];
      } else if (pass == 1 && is_outgoing(op.kind)) {
        // On a two-sided transport a one-sided write is a send; the receiver's wait names the destination.
        const RequestId id =
            one_sided_ && op.kind == OpKind::Write
                       ? transport.write(op.peer, address(op.a_buffer, op.a_offset), bytes,
                                         op.dst_buffer == BufferId::Scratch ? WindowId::Scratch : WindowId::Output,
                                         op.dst_offset * element_size_, send_base_[op.peer] + tag)
                       : transport.isend(op.peer, address(op.a_buffer, op.a_offset), bytes, tag);
        in_flight_.push_back({id, step, first + i});
        ++pending_[step];
      }
    }
  }
  // A later send may read what this step computed: on an asynchronous device, wait for it.
  if (run_local_ops(work, b, ops, element_size_) && work.device.asynchronous()) work.device.synchronize();
  if (pending_[step] == 0) complete_step(step);
}

void Executor::complete_step(uint32_t step) {
  if (times_) (*times_)[step].end_us = steady_clock_us();
  ++done_;
  for (uint32_t k = dependents_.begin[step]; k < dependents_.begin[step + 1]; ++k)
    if (--remaining_[dependents_.list[k]] == 0) ready_.push_back(dependents_.list[k]);
}

}  // namespace arlab
