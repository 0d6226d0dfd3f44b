// The executor: where a schedule meets a transport. It posts every operation whose step's
// dependencies are done, polls the transport for completions, and runs local reductions and
// copies on the device (CPU reducers, or CUDA kernels) as soon as their step starts.
// Stream-ordered transports (nccl) use the lockstep executor instead (lockstep_executor.h).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "algorithms/datatype.h"
#include "algorithms/schedule.h"
#include "transports/device.h"
#include "transports/transport.h"

namespace arlab {

struct RankBuffers {
  const void* input;
  void* output;   // may equal input (in-place)
  void* scratch;  // schedule.scratch_count elements

  char* address(BufferId id, uint64_t offset, size_t element_size) const {
    char* base = id == BufferId::Input ? const_cast<char*>(static_cast<const char*>(input))
               : id == BufferId::Output ? static_cast<char*>(output)
                                        : static_cast<char*>(scratch);
    return base + offset * element_size;
  }
};

// What a run reduces, and where its local work runs.
struct LocalWork {
  Device& device;
  DataType type;
  RedOp op;
};

// Runs the local ops (reduce, copy) among `ops` on the device, in order; false when there were none.
bool run_local_ops(const LocalWork& work, const RankBuffers& buffers, std::span<const Op> ops, size_t element_size);

class Executor {
 public:
  // Prepares everything that does not depend on the data: message tags, dependents.
  Executor(const RankSchedule& schedule, size_t element_size);

  void run(Transport& transport, const LocalWork& work, const RankBuffers& buffers);
  // While set, run() records when each step started and completed (steady clock, us) here,
  // one entry per step; nullptr (the default) records nothing.
  struct StepTimes {
    double start_us = 0, end_us = 0;
  };
  void record_steps(std::vector<StepTimes>* times) { times_ = times; }

 private:
  void start_step(Transport& transport, const LocalWork& work, const RankBuffers& buffers, uint32_t step);
  void complete_step(uint32_t step);
  void begin_one_sided_run(Transport& transport, const RankBuffers& buffers);
  std::string waiting_for() const;

  const RankSchedule& schedule_;
  size_t element_size_;
  std::vector<uint32_t> tags_;  // per op: the k-th message to / from a peer carries tag k
  // One-sided transports: messages to / from each peer per run, and this run's first numbers.
  std::vector<uint64_t> sends_to_, receives_from_, send_base_, receive_base_;
  StepDependents dependents_;

  // Per-run state, kept to avoid allocating on every call.
  std::vector<uint32_t> remaining_, pending_, ready_;
  struct InFlight {
    RequestId request;
    uint32_t step;
    uint32_t op;  // index into the schedule's ops
  };
  std::vector<InFlight> in_flight_;
  size_t done_ = 0;
  bool one_sided_ = false;
  std::vector<StepTimes>* times_ = nullptr;
};

}  // namespace arlab
