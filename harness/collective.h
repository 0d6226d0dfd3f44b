// One all-reduce the harness can run and time: a scheduled algorithm on a transport
// (ScheduledAllreduce), or a library's own all-reduce (the baselines `mpi` and `nccl`).
// Everything that does not depend on the data — the schedule, the executor's plan, the
// scratch buffer — is built once per (algorithm, size) and reused by every iteration.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/datatype.h"
#include "harness/step_trace.h"
#include "harness/tuning.h"
#include "transports/device.h"
#include "transports/transport.h"

namespace arlab {

struct AllreduceSpec {
  std::string algorithm;  // a schedule generator or a baseline name
  DataType type = DataType::Float32;
  RedOp op = RedOp::Sum;
  uint64_t count = 0;
  uint64_t chunk_bytes = 0;
  int ranks_per_node = 0;
  std::string inter = "ring", intra = "direct";  // hier's phases
  MachineParams machine{};  // what `auto` chooses with
  bool lockstep = false;  // run round by round (always, on a stream-ordered transport)
  // Input and output lie in the transport's symmetric memory (Transport::allocate_symmetric),
  // on every rank: twoshot (and auto's twoshot) reads the peers' buffers directly, any size,
  // and a one-sided schedule gets its scratch there too (its writes into peers become copies).
  bool symmetric = false;
};

class Collective {
 public:
  virtual ~Collective() = default;
  virtual void run(const void* input, void* output) = 0;  // output == input: in place
  virtual std::string chosen() const { return ""; }        // auto: the algorithm it picked
  // One call with its steps timed (us since this call began): a schedule's steps, or the
  // whole call as one span where there is no schedule to walk (baselines, slot paths, lockstep).
  virtual std::vector<TracedSpan> run_traced(const void* input, void* output);
};

// Finds transports by name (created once, shared by every collective of a run).
using TransportLookup = std::function<Transport&(std::string_view name)>;

// Builds `spec.algorithm` for this rank, its buffers on `device`. Scheduled algorithms run on
// `transport`; baselines on their own library's transport. Throws UsageError for unknown
// names and for a baseline whose library cannot read the device's memory.
std::unique_ptr<Collective> make_collective(const AllreduceSpec& spec, Transport& transport, Device& device,
                                            const TransportLookup& lookup);

struct BaselineInfo {
  std::string_view name;
  std::string_view summary;
  std::string_view transport;
};
const std::vector<BaselineInfo>& baselines();

// UsageError when --lockstep asks for send / receive rounds on a one-sided transport.
void check_lockstep(bool lockstep, const Transport& transport);
bool is_known_algorithm(std::string_view name);  // a generator, a baseline or auto

// The scheduled algorithm with the least measured time for n bytes (machine.measured, where
// the run kept it: the same transport and world shape), else the lowest modelled time.
// With several nodes (0 < ranks_per_node < N) hier competes too, with each flat algorithm
// between nodes. Returns the algorithm and, for hier, its inter-node algorithm.
struct AutoChoice {
  std::string algorithm, inter;
};
AutoChoice choose_algorithm(int nranks, double bytes, int ranks_per_node, const MachineParams& machine);
// Before the model: the transport's paths through shared memory, where it has them.
// "oneshot" while the bytes each rank folds from its peers, (N-1) n, stay small, "twoshot"
// above (any size: over its slot, in pieces), "" for a scheduled algorithm.
struct SlotPaths {
  size_t one_step_limit = 0, two_step_limit = 0;  // bytes in one call; 0: no such path
  bool symmetric = false;     // twoshot straight through symmetric buffers: no limit
  bool cores_shared = true;   // ranks outnumber cores (every wait is a yield)
};
std::string choose_slot_path(int nranks, size_t bytes, const SlotPaths& paths);
// "oneshot" or "twoshot": a transport's path through shared slots, not a schedule.
bool is_slot_path(std::string_view name);
std::string all_algorithm_names();

}  // namespace arlab
