// The lockstep executor: runs a rank's schedule round by round (algorithms/lockstep.h).
// Each round posts all its messages between group_begin() and group_end(), waits for them,
// then runs the round's local ops. On a stream-ordered transport (nccl) the "wait" is the
// stream itself: messages, reductions and copies are enqueued in order and the host never
// blocks. On a two-sided transport (mpi) the same rounds run bulk-synchronously, which is
// how the lowering is tested on machines without GPUs.
#pragma once

#include <cstdint>
#include <vector>

#include "harness/executor.h"

namespace arlab {

class LockstepExecutor {
 public:
  // step_rounds: this rank's row of lockstep_rounds().
  LockstepExecutor(const RankSchedule& schedule, const std::vector<uint32_t>& step_rounds, size_t element_size);

  void run(Transport& transport, const LocalWork& work, const RankBuffers& buffers);
  size_t rounds() const { return round_begin_.empty() ? 0 : round_begin_.size() - 1; }

 private:
  struct Message {
    bool outgoing;
    int peer;
    BufferId buffer;
    uint64_t offset, count;
    uint32_t tag;
  };

  const RankSchedule& schedule_;
  size_t element_size_;
  // Round k's messages are messages_[message_begin_[k] .. message_begin_[k+1]), ordered by
  // tag so that several messages between one pair in a round keep the schedule's order;
  // its steps (for the local ops) are steps_[round_begin_[k] .. round_begin_[k+1]).
  std::vector<Message> messages_;
  std::vector<uint32_t> message_begin_, steps_, round_begin_;
  std::vector<RequestId> requests_;
};

}  // namespace arlab
