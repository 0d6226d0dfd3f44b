#include "harness/pmpi/communicator_state.h"

#include <algorithm>

#include "harness/devices.h"
#include "harness/tuning.h"
#include "transports/mpi/mpi_comm.h"
#include "transports/registry.h"

namespace arlab {

CommunicatorState::CommunicatorState(MPI_Comm comm, const InterposeConfig& config)
    : config_(config), boot_(make_mpi_bootstrap_on(comm)), device_(make_host_device()) {
  // Every rank tries; if any cannot, all go to the MPI library (a rank alone would hang the rest).
  std::string error;
  TransportContext context;
  context.bootstrap = boot_.get();
  context.device = device_.get();
  try {
    transport_ = make_transport(config.transport, context);
  } catch (const std::exception& e) {
    error = e.what();
  }
  for (const std::string& e : boot_->gather_strings(error))
    if (!e.empty() && unavailable_.empty()) unavailable_ = e;
  if (!unavailable_.empty()) {
    transport_.reset();
    return;
  }
  // What `auto` chooses with must be equal on every rank, as in `arlab bench`.
  ranks_per_node_ = static_cast<int>(boot_->max(boot_->local_size()));
  machine_ = load_tuning(default_tuning_path(boot_->hostname()));
  agree_on_tuning(machine_, *boot_, config.transport, ranks_per_node_);
}

CommunicatorState::~CommunicatorState() {
  cache_.clear();  // collectives first: they hold the transport's windows
  transport_.reset();
}

int CommunicatorState::rank() const { return boot_->rank(); }

void CommunicatorState::allreduce(const void* input, void* output, uint64_t count, DataType type, RedOp op) {
  collective_for(type, op, count).run(input, output);
}

Collective& CommunicatorState::collective_for(DataType type, RedOp op, uint64_t count) {
  const auto same = [&](const Cached& c) { return c.type == type && c.op == op && c.count == count; };
  if (auto it = std::find_if(cache_.begin(), cache_.end(), same); it != cache_.end()) {
    std::rotate(it, it + 1, cache_.end());  // now the most recent
    return *cache_.back().collective;
  }
  if (cache_.size() == kMaxCached) cache_.erase(cache_.begin());
  AllreduceSpec spec{config_.algorithm, type, op, count, config_.chunk_bytes, ranks_per_node_, "ring", "direct", machine_};
  Transport& transport = *transport_;
  auto collective = make_collective(spec, transport, *device_, [&transport](std::string_view) -> Transport& { return transport; });
  cache_.push_back({type, op, count, std::move(collective)});
  return *cache_.back().collective;
}

}  // namespace arlab
