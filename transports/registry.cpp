#include "transports/registry.h"

#include "algorithms/named_table.h"
#include "arlab_config.h"

namespace arlab {

const std::vector<TransportInfo>& transports() {
  static const std::vector<TransportInfo> table = {
      {"mpi", "MPI_Isend / MPI_Irecv (any launcher, any number of ranks)", make_mpi_transport, ""},
      {"shm", "one node: one-copy writes (cross-memory attach) + flags in POSIX shared memory", make_shm_transport, ""},
      {"tcp", "TCP sockets, one connection per pair (Gloo's transport; ARLAB_SOCKET_IFNAME picks the interface)", make_tcp_transport, ""},
      {"shm+mpi", "shm inside a node, MPI between nodes (hier's two halves)", make_shm_mpi_transport, ""},
      {"shm+tcp", "shm inside a node, TCP sockets between nodes", make_shm_tcp_transport, ""},
#if ARLAB_HAVE_UCX
      {"ucx", "UCX tag send / recv (wires from UCX_TLS)", make_ucx_transport, ""},
      {"ucx-rma", "UCX one-sided put + fence + flag (wires from UCX_TLS)", make_ucx_rma_transport, ""},
      {"shm+ucx", "shm inside a node, UCX tag send / recv between nodes", make_shm_ucx_transport, ""},
#else
      {"ucx", "UCX tag send / recv", nullptr, "not built: UCX was not found (configure with -DARLAB_WITH_UCX=ON)"},
      {"ucx-rma", "UCX one-sided put", nullptr, "not built: UCX was not found (configure with -DARLAB_WITH_UCX=ON)"},
      {"shm+ucx", "shm inside a node, UCX between nodes", nullptr, "not built: UCX was not found (configure with -DARLAB_WITH_UCX=ON)"},
#endif
#if ARLAB_HAVE_IBVERBS
      {"ibverbs", "RDMA WRITE WITH IMMEDIATE over RC queue pairs (InfiniBand / RoCE; GPUDirect with --device cuda)", make_ibverbs_transport, ""},
#else
      {"ibverbs", "RDMA WRITE WITH IMMEDIATE over RC queue pairs", nullptr, "not built: libibverbs was not found (configure with -DARLAB_WITH_IBVERBS=ON)"},
#endif
#if ARLAB_HAVE_NCCL
      {"nccl", "ncclSend / ncclRecv on CUDA devices, round by round on the device's stream", make_nccl_transport, ""},
#else
      {"nccl", "ncclSend / ncclRecv on CUDA devices", nullptr, "not built: NCCL was not found (configure with -DARLAB_WITH_NCCL=ON)"},
#endif
  };
  return table;
}

const TransportInfo* find_transport(std::string_view name) { return find_named(transports(), name); }

std::string transport_names() { return join_names(transports()); }

Bootstrap& host_memory_bootstrap(const TransportContext& context, const std::string& transport) {
  if (!context.bootstrap) throw TransportUnavailable("-t " + transport + ": needs the run's bootstrap");
  if (context.device && context.device->is_gpu())
    throw TransportUnavailable("-t " + transport + " moves host memory; with --device cuda use -t nccl");
  return *context.bootstrap;
}

std::unique_ptr<Transport> make_transport(std::string_view name, const TransportContext& context) {
  const TransportInfo* info = find_transport(name);
  if (!info) throw TransportUnavailable("-t: unknown transport '" + std::string(name) + "' (accepted: " + transport_names() + ")");
  if (!info->make) throw TransportUnavailable("-t " + std::string(name) + ": " + std::string(info->unavailable_reason));
  return info->make(context);
}

}  // namespace arlab
