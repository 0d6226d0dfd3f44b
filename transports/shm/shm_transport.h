// The shm transport for the ranks that share a node, for composite transports
// (transports/hybrid/): node_of[r] is rank r's node; only same-node pairs may be used.
#pragma once

#include <memory>
#include <vector>

#include "transports/bootstrap.h"
#include "transports/transport.h"

namespace arlab {

std::unique_ptr<Transport> make_shm_transport_for_nodes(Bootstrap& bootstrap, std::vector<int> node_of);

}  // namespace arlab
