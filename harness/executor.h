// The executor: the one place where a schedule meets a transport. It posts every operation
// whose step's dependencies are done, polls the transport for completions, and runs local
// reductions and copies with the CPU reducer as soon as their step starts.
#pragma once

#include <cstddef>
#include <vector>

#include "algorithms/reducers.h"
#include "algorithms/schedule.h"
#include "transports/transport.h"

namespace arlab {

struct RankBuffers {
  const void* input;
  void* output;   // may equal input (in-place)
  void* scratch;  // schedule.scratch_count elements
};

class Executor {
 public:
  // Prepares everything that does not depend on the data: message tags, dependents.
  Executor(const RankSchedule& schedule, size_t element_size);

  void run(Transport& transport, const RankBuffers& buffers, ReduceFn reduce);

 private:
  char* address(const RankBuffers& b, BufferId id, uint64_t offset) const;
  void start_step(Transport& transport, const RankBuffers& buffers, ReduceFn reduce, uint32_t step);
  void complete_step(uint32_t step);

  const RankSchedule& schedule_;
  size_t element_size_;
  std::vector<uint32_t> tags_;  // per op: the k-th message to / from a peer carries tag k
  StepDependents dependents_;

  // Per-run state, kept to avoid allocating on every call.
  std::vector<uint32_t> remaining_, pending_, ready_;
  struct InFlight {
    RequestId request;
    uint32_t step;
  };
  std::vector<InFlight> in_flight_;
  size_t done_ = 0;
};

}  // namespace arlab
