#include "harness/lockstep_executor.h"

#include <algorithm>
#include <numeric>

#include "harness/watchdog.h"

namespace arlab {

LockstepExecutor::LockstepExecutor(const RankSchedule& schedule, const std::vector<uint32_t>& step_rounds,
                                   size_t element_size)
    : schedule_(schedule), element_size_(element_size) {
  const uint32_t nrounds = step_rounds.empty() ? 0 : *std::max_element(step_rounds.begin(), step_rounds.end()) + 1;
  // Steps sorted by round (stable: in schedule order within a round).
  steps_.resize(schedule.num_steps());
  std::iota(steps_.begin(), steps_.end(), 0u);
  std::stable_sort(steps_.begin(), steps_.end(), [&](uint32_t a, uint32_t b) { return step_rounds[a] < step_rounds[b]; });
  round_begin_.assign(nrounds + 1, 0);
  for (uint32_t s : steps_) ++round_begin_[step_rounds[s] + 1];
  std::partial_sum(round_begin_.begin(), round_begin_.end(), round_begin_.begin());

  // Each round's messages, in tag order.
  const std::vector<uint32_t> tags = message_sequence(schedule);
  message_begin_.push_back(0);
  for (uint32_t k = 0; k < nrounds; ++k) {
    const size_t first = messages_.size();
    for (uint32_t i = round_begin_[k]; i < round_begin_[k + 1]; ++i) {
      const uint32_t step = steps_[i];
      const auto ops = schedule.ops(step);
      for (uint32_t j = 0; j < ops.size(); ++j) {
        const Op& op = ops[j];
        const uint32_t tag = tags[schedule.first_op(step) + j];
        if (is_incoming(op.kind)) messages_.push_back({false, op.peer, op.dst_buffer, op.dst_offset, op.count, tag});
        if (is_outgoing(op.kind)) messages_.push_back({true, op.peer, op.a_buffer, op.a_offset, op.count, tag});
      }
    }
    std::stable_sort(messages_.begin() + first, messages_.end(),
                     [](const Message& a, const Message& b) { return a.tag < b.tag; });
    message_begin_.push_back(static_cast<uint32_t>(messages_.size()));
  }
}

void LockstepExecutor::run(Transport& transport, const LocalWork& work, const RankBuffers& buffers) {
  for (size_t k = 0; k + 1 < round_begin_.size(); ++k) {
    // The round's messages, as one group.
    requests_.clear();
    if (message_begin_[k] < message_begin_[k + 1]) {
      transport.group_begin();
      for (uint32_t i = message_begin_[k]; i < message_begin_[k + 1]; ++i) {
        const Message& m = messages_[i];
        char* data = buffers.address(m.buffer, m.offset, element_size_);
        const size_t bytes = m.count * element_size_;
        requests_.push_back(m.outgoing ? transport.isend(m.peer, data, bytes, m.tag)
                                       : transport.irecv(m.peer, data, bytes, m.tag));
      }
      transport.group_end();
      // Wait for every message of the round (on a stream-ordered transport: already in order).
      IdlePoll poll;
      for (size_t i = 0; i < requests_.size(); ++i) {
        while (!transport.test(requests_[i]))
          poll.idle([&] {
            const Message& m = messages_[message_begin_[k] + i];
            return "round " + std::to_string(k) + " waits for " + (m.outgoing ? "rank " : "a message from rank ") +
                   std::to_string(m.peer) + (m.outgoing ? " to take a message" : "") + " (" +
                   std::to_string(m.count * element_size_) + " bytes)";
          });
        poll.progressed();
      }
    }
    // Then the round's reductions and copies.
    for (uint32_t i = round_begin_[k]; i < round_begin_[k + 1]; ++i)
      run_local_ops(work, buffers, schedule_.ops(steps_[i]), element_size_);
  }
}

}  // namespace arlab
