// Composite transports: shared memory inside a node, another transport between nodes
// (-t shm+mpi, -t shm+tcp, -t shm+ucx), so that hier's intra-node phases run one-copy over shm while its
// inter-node all-reduce crosses the network. Each message goes by its pair: same node,
// one-sided over shm (the schedule's send / receive lowered to write / signal for that pair
// only); different nodes, two-sided over the other transport.
//
// Nodes are what the launcher says (ranks sharing memory), or, with --ranks-per-node K,
// blocks of K consecutive ranks, which lets one machine stand in for several nodes.
#include <map>
#include <memory>

#include "transports/registry.h"
#include "transports/shm/shm_transport.h"

namespace arlab {
namespace {

std::vector<int> nodes_of_ranks(Bootstrap& boot, int ranks_per_node) {
  std::vector<int> node_of(boot.size());
  if (ranks_per_node > 0) {
    for (int r = 0; r < boot.size(); ++r) node_of[r] = r / ranks_per_node;
    return node_of;
  }
  std::map<std::string, int> ids;
  const auto hosts = boot.gather_strings(boot.hostname());
  for (int r = 0; r < boot.size(); ++r) node_of[r] = ids.emplace(hosts[r], static_cast<int>(ids.size())).first->second;
  return node_of;
}

class HybridTransport final : public Transport {
 public:
  HybridTransport(Bootstrap& boot, std::vector<int> node_of, std::unique_ptr<Transport> between, std::string name)
      : boot_(boot), node_of_(node_of), inside_(make_shm_transport_for_nodes(boot, std::move(node_of))),
        between_(std::move(between)), name_(std::move(name)) {}

  std::string name() const override { return name_; }
  TransportCapabilities capabilities() const override { return {.one_sided = true}; }
  int rank() const override { return boot_.rank(); }
  int size() const override { return boot_.size(); }
  std::string library_version() const override { return between_->library_version(); }
  bool one_sided_between(int a, int b) const override { return node_of_[a] == node_of_[b]; }

  // Request ids: the low bit says which transport holds the request.
  RequestId isend(int peer, const void* data, size_t bytes, uint32_t tag) override {
    return between_->isend(peer, data, bytes, tag) << 1 | 1;
  }
  RequestId irecv(int peer, void* data, size_t bytes, uint32_t tag) override {
    return between_->irecv(peer, data, bytes, tag) << 1 | 1;
  }
  RequestId write(int peer, const void* src, size_t bytes, WindowId window, uint64_t offset, uint64_t seq) override {
    return inside_->write(peer, src, bytes, window, offset, seq) << 1;
  }
  RequestId wait_signal(int peer, uint64_t seq) override { return inside_->wait_signal(peer, seq) << 1; }
  bool test(RequestId id) override { return (id & 1 ? between_ : inside_)->test(id >> 1); }

  void attach_windows(const Windows& windows) override { inside_->attach_windows(windows); }
  MessageCounters* message_counters() override { return inside_->message_counters(); }
  void barrier() override { boot_.barrier(); }

 private:
  Bootstrap& boot_;
  std::vector<int> node_of_;
  std::unique_ptr<Transport> inside_, between_;
  std::string name_;
};

std::unique_ptr<Transport> make_hybrid(const TransportContext& context, const std::string& between) {
  Bootstrap& boot = host_memory_bootstrap(context, "shm+" + between);
  std::vector<int> node_of = nodes_of_ranks(boot, context.ranks_per_node);
  return std::make_unique<HybridTransport>(boot, std::move(node_of), make_transport(between, context), "shm+" + between);
}

}  // namespace

std::unique_ptr<Transport> make_shm_mpi_transport(const TransportContext& context) { return make_hybrid(context, "mpi"); }
std::unique_ptr<Transport> make_shm_tcp_transport(const TransportContext& context) { return make_hybrid(context, "tcp"); }
std::unique_ptr<Transport> make_shm_ucx_transport(const TransportContext& context) { return make_hybrid(context, "ucx"); }

}  // namespace arlab
