// The transports, by the names users type after `-t`. A transport whose library was not
// found at configure time (or that this version does not have yet) is still listed, with
// the reason, so `-t ucx` can say why it is unavailable instead of "unknown".
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "transports/bootstrap.h"
#include "transports/device.h"
#include "transports/transport.h"

namespace arlab {

// What a transport may need from the run: the bootstrap (to exchange a communicator id)
// and the device whose memory and stream it works on.
struct TransportContext {
  Bootstrap* bootstrap = nullptr;
  Device* device = nullptr;
  // -t ibverbs: --ib-dev, --ib-port, --gid-index (empty / 0 / -1: choose).
  std::string ib_device;
  int ib_port = 0;
  int gid_index = -1;
  // Composite transports (shm+mpi, shm+ucx): ranks per node, 0 = as the launcher placed them.
  int ranks_per_node = 0;
};

struct TransportInfo {
  std::string_view name;
  std::string_view summary;
  std::unique_ptr<Transport> (*make)(const TransportContext&);  // nullptr when unavailable
  std::string_view unavailable_reason;
};

const std::vector<TransportInfo>& transports();
const TransportInfo* find_transport(std::string_view name);
std::string transport_names();  // every listed name, available or not

// Creates the transport; TransportUnavailable (naming the flag's accepted values) otherwise.
std::unique_ptr<Transport> make_transport(std::string_view name, const TransportContext& context = {});

// For transports that move host memory through the run's bootstrap (shm, ucx, ucx-rma):
// the bootstrap, or TransportUnavailable naming the transport when it cannot serve.
Bootstrap& host_memory_bootstrap(const TransportContext& context, const std::string& transport);

std::unique_ptr<Transport> make_mpi_transport(const TransportContext& context);
std::unique_ptr<Transport> make_nccl_transport(const TransportContext& context);
std::unique_ptr<Transport> make_shm_transport(const TransportContext& context);
std::unique_ptr<Transport> make_tcp_transport(const TransportContext& context);
std::unique_ptr<Transport> make_shm_tcp_transport(const TransportContext& context);
std::unique_ptr<Transport> make_ucx_transport(const TransportContext& context);
std::unique_ptr<Transport> make_ucx_rma_transport(const TransportContext& context);
std::unique_ptr<Transport> make_ibverbs_transport(const TransportContext& context);
std::unique_ptr<Transport> make_shm_mpi_transport(const TransportContext& context);
std::unique_ptr<Transport> make_shm_ucx_transport(const TransportContext& context);

}  // namespace arlab
