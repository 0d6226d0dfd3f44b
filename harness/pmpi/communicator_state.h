// What the PMPI library keeps per application communicator: a bootstrap on a private
// duplicate of it, the transport, and the collectives built so far (schedule, executor plan,
// scratch) for the most recent (datatype, operation, count) triples. Created collectively on
// the communicator's first served all-reduce, freed by the communicator's attribute delete
// callback (MPI_Comm_free) or at MPI_Finalize.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/datatype.h"
#include "harness/collective.h"
#include "harness/pmpi/interpose_config.h"
#include "transports/bootstrap.h"
#include "transports/device.h"
#include "transports/transport.h"

namespace arlab {

class CommunicatorState {
 public:
  // Collective over `comm`. When the transport cannot serve it on some rank, every rank
  // records why (unavailable()) and the communicator's calls go to the MPI library.
  CommunicatorState(MPI_Comm comm, const InterposeConfig& config);
  ~CommunicatorState();

  const std::string& unavailable() const { return unavailable_; }
  int rank() const;

  // The all-reduce, on this communicator's transport. Throws what the transport throws.
  void allreduce(const void* input, void* output, uint64_t count, DataType type, RedOp op);

 private:
  Collective& collective_for(DataType type, RedOp op, uint64_t count);

  const InterposeConfig& config_;
  std::unique_ptr<Bootstrap> boot_;
  std::unique_ptr<Device> device_;
  std::unique_ptr<Transport> transport_;
  MachineParams machine_;
  int ranks_per_node_ = 0;
  std::string unavailable_;

  // The most recently used collectives, newest last; bounded so that applications reducing
  // many sizes do not keep every schedule.
  struct Cached {
    DataType type;
    RedOp op;
    uint64_t count;
    std::unique_ptr<Collective> collective;
  };
  static constexpr size_t kMaxCached = 16;
  std::vector<Cached> cache_;
};

}  // namespace arlab
