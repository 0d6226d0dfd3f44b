// -t ucx: the lab's schedules over UCX tag matching (ucp_tag_send_nbx / ucp_tag_recv_nbx).
// The 64-bit tag is the sending rank in the high half and the message's sequence number
// (the executor's tag) in the low half, received with a full mask: one posted receive
// matches exactly one message.
#include <memory>

#include "transports/progress_passes.h"
#include "transports/registry.h"
#include "transports/slot_table.h"
#include "transports/ucx/ucx_worker.h"

namespace arlab {
namespace {

class UcxTransport final : public Transport {
 public:
  explicit UcxTransport(Bootstrap& bootstrap) : bootstrap_(bootstrap), worker_(bootstrap, UCP_FEATURE_TAG) {}

  std::string name() const override { return "ucx"; }
  TransportCapabilities capabilities() const override { return {}; }
  int rank() const override { return bootstrap_.rank(); }
  int size() const override { return bootstrap_.size(); }
  std::string library_version() const override { return worker_.transports_in_use(); }

  RequestId isend(int peer, const void* data, size_t bytes, uint32_t tag) override {
    ucp_request_param_t param{};
    return track(ucp_tag_send_nbx(worker_.endpoint(peer), data, bytes, make_tag(rank(), tag), &param), {true, peer, bytes});
  }

  RequestId irecv(int peer, void* data, size_t bytes, uint32_t tag) override {
    ucp_request_param_t param{};
    return track(ucp_tag_recv_nbx(worker_.worker(), data, bytes, make_tag(peer, tag), ~ucp_tag_t{0}, &param),
                 {false, peer, bytes});
  }

  bool test(RequestId id) override {
    Slot& slot = slots_[id];
    // One ucp_worker_progress per pass over the requests in flight (progress_passes.h).
    const ucs_status_t status = worker_.poll(slot.request, passes_.start_pass(slot.seen));
    if (status == UCS_INPROGRESS) return false;
    slot.request = nullptr;
    slots_.release(id);
    ucx::check(status, slot.message.describe());
    return true;
  }

  void barrier() override { bootstrap_.barrier(); }

 private:
  // What a request is, for the error message (built only when one fails).
  struct Message {
    bool send;
    int peer;
    size_t bytes;
    std::string describe() const {
      return std::string(send ? "ucp_tag_send_nbx(" : "ucp_tag_recv_nbx(") + std::to_string(bytes) +
             (send ? " bytes to rank " : " bytes from rank ") + std::to_string(peer) + ")";
    }
  };
  struct Slot {
    void* request;
    Message message;
    ProgressPasses::Mark seen;
  };
  static ucp_tag_t make_tag(int from, uint32_t tag) { return (static_cast<ucp_tag_t>(from) << 32) | tag; }

  RequestId track(void* request, const Message& message) {
    if (UCS_PTR_IS_ERR(request)) ucx::check(UCS_PTR_STATUS(request), message.describe());
    return slots_.add({request, message, passes_.current()});
  }

  Bootstrap& bootstrap_;
  ucx::Worker worker_;
  SlotTable<Slot> slots_;
  ProgressPasses passes_;
};

}  // namespace

std::unique_ptr<Transport> make_ucx_transport(const TransportContext& context) {
  return std::make_unique<UcxTransport>(host_memory_bootstrap(context, "ucx"));
}

}  // namespace arlab
