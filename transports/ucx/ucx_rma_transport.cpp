// -t ucx-rma: the one-sided protocol (transports/one_sided/protocol.h) over UCX RMA. Windows
// and flags are registered with ucp_mem_map and their rkeys exchanged over the bootstrap; a
// write is ucp_put_nbx of the data, ucp_worker_fence, then ucp_put_nbx of the 8-byte signal,
// so the receiver, polling its own flag memory, never sees the signal before the data.
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>

#include "transports/one_sided/one_sided_transport.h"
#include "transports/registry.h"
#include "transports/ucx/ucx_worker.h"

namespace arlab {
namespace {

// A local region registered with UCX and the packed key a peer needs to write into it.
class Registration {
 public:
  Registration(ucp_context_h context, void* address, size_t bytes) : context_(context) {
    if (bytes == 0) return;
    ucp_mem_map_params_t params{};
    params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
    params.address = address;
    params.length = bytes;
    ucx::check(ucp_mem_map(context, &params, &memh_), "ucp_mem_map(" + std::to_string(bytes) + " bytes)");
    void* packed = nullptr;
    size_t size = 0;
    ucx::check(ucp_rkey_pack(context, memh_, &packed, &size), "ucp_rkey_pack");
    key_.assign(static_cast<const char*>(packed), size);
    ucp_rkey_buffer_release(packed);
  }
  ~Registration() {
    if (memh_) ucp_mem_unmap(context_, memh_);
  }
  Registration(const Registration&) = delete;
  Registration& operator=(const Registration&) = delete;
  const std::string& packed_key() const { return key_; }

 private:
  ucp_context_h context_;
  ucp_mem_h memh_ = nullptr;
  std::string key_;
};

// Serialised as: descriptor, then the two packed keys with their lengths.
std::string pack_window(const one_sided::WindowDescriptor& d, const std::string& output_key, const std::string& scratch_key) {
  std::string out(reinterpret_cast<const char*>(&d), sizeof d);
  for (const std::string* key : {&output_key, &scratch_key}) {
    const uint64_t n = key->size();
    out.append(reinterpret_cast<const char*>(&n), sizeof n).append(*key);
  }
  return out;
}

class UcxRmaTransport final : public one_sided::OneSidedTransport {
 public:
  explicit UcxRmaTransport(Bootstrap& bootstrap)
      : OneSidedTransport(bootstrap, "ucx-rma"), worker_(bootstrap, UCP_FEATURE_RMA) {
    // This rank's flags, zeroed and registered; every peer unpacks their key.
    flags_.reset(static_cast<uint64_t*>(std::aligned_alloc(64, layout_.bytes())));
    std::memset(flags_.get(), 0, layout_.bytes());
    flag_registration_ = std::make_unique<Registration>(worker_.context(), flags_.get(), layout_.bytes());
    const uint64_t base = reinterpret_cast<uint64_t>(flags_.get());
    const auto all = bootstrap.gather_strings(std::string(reinterpret_cast<const char*>(&base), sizeof base) +
                                              flag_registration_->packed_key());
    peer_flags_.resize(bootstrap.size());
    for (int p = 0; p < bootstrap.size(); ++p) {
      std::memcpy(&peer_flags_[p].address, all[p].data(), sizeof(uint64_t));
      if (p != bootstrap.rank()) peer_flags_[p].rkey = unpack(p, all[p].substr(sizeof(uint64_t)));
    }
  }

  ~UcxRmaTransport() override {
    // Finish our puts (credits granted in the last run included) everywhere, then wait until
    // every rank has: after that barrier nobody writes into anybody's memory. Every rank keeps
    // progressing UCX meanwhile, since a peer's flush may need it.
    try {
      complete_credits();
      ucp_request_param_t param{};
      worker_.wait(ucp_worker_flush_nbx(worker_.worker(), &param), "ucp_worker_flush_nbx");
      bootstrap_.barrier_progressing([this] { worker_.progress(); });
    } catch (...) {
    }
    for (auto& p : peer_flags_)
      if (p.rkey) ucp_rkey_destroy(p.rkey);
    release_window_keys();
  }

  std::string library_version() const override { return worker_.transports_in_use(); }

 protected:
  Handle put_then_flag(int peer, const void* src, size_t bytes, WindowId window, uint64_t remote_address,
                       size_t flag_offset, uint64_t value) override {
    const Handle h = new_handle(value);
    ucp_request_param_t param{};
    PutPair& pair = puts_[h];
    pair.data = ucp_put_nbx(worker_.endpoint(peer), src, bytes, remote_address,
                            window == WindowId::Output ? window_keys_[peer].output : window_keys_[peer].scratch, &param);
    if (UCS_PTR_IS_ERR(pair.data)) ucx::check(UCS_PTR_STATUS(pair.data), "ucp_put_nbx(" + std::to_string(bytes) + " bytes to rank " + std::to_string(peer) + ")");
    ucx::check(ucp_worker_fence(worker_.worker()), "ucp_worker_fence");  // the data lands before the signal
    pair.flag = put_value(peer, flag_offset, pair.value.get());
    return h;
  }

  Handle put_flag(int peer, size_t flag_offset, uint64_t value) override {
    const Handle h = new_handle(value);
    puts_[h].flag = put_value(peer, flag_offset, puts_[h].value.get());
    return h;
  }

  bool handle_done(Handle h) override {
    PutPair& pair = puts_[h];
    for (auto [request, what] : {std::pair{&pair.data, "ucp_put_nbx (data)"}, std::pair{&pair.flag, "ucp_put_nbx (flag)"}}) {
      if (!*request) continue;
      const ucs_status_t status = worker_.poll(*request);
      if (status == UCS_INPROGRESS) return false;
      *request = nullptr;
      ucx::check(status, what);
    }
    puts_.release(h);
    return true;
  }

  uint64_t local_flag(size_t offset) override {
    return std::atomic_ref<uint64_t>(flags_.get()[offset / 8]).load(std::memory_order_acquire);
  }
  void progress() override { worker_.progress(); }

  // Registers this rank's output and scratch (the window cache calls this only when some
  // rank's buffers changed) and unpacks every peer's keys.
  std::vector<one_sided::WindowDescriptor> publish(const Windows& w) override {
    release_window_keys();
    output_ = std::make_unique<Registration>(worker_.context(), w.output, w.output_bytes);
    scratch_ = std::make_unique<Registration>(worker_.context(), w.scratch, w.scratch_bytes);
    const one_sided::WindowDescriptor mine{reinterpret_cast<uint64_t>(w.output), w.output_bytes,
                                           reinterpret_cast<uint64_t>(w.scratch), w.scratch_bytes};
    const auto all = bootstrap_.gather_strings(pack_window(mine, output_->packed_key(), scratch_->packed_key()));
    std::vector<one_sided::WindowDescriptor> out(all.size());
    window_keys_.assign(all.size(), {});
    for (int p = 0; p < static_cast<int>(all.size()); ++p) {
      const std::string& blob = all[p];
      std::memcpy(&out[p], blob.data(), sizeof(one_sided::WindowDescriptor));
      size_t pos = sizeof(one_sided::WindowDescriptor);
      ucp_rkey_h* keys[] = {&window_keys_[p].output, &window_keys_[p].scratch};
      for (ucp_rkey_h* key : keys) {
        uint64_t n = 0;
        std::memcpy(&n, blob.data() + pos, sizeof n);
        pos += sizeof n;
        if (n > 0 && p != rank()) *key = unpack(p, blob.substr(pos, n));
        pos += n;
      }
    }
    return out;
  }

 private:
  struct PeerFlags {
    uint64_t address = 0;
    ucp_rkey_h rkey = nullptr;
  };
  struct WindowKeys {
    ucp_rkey_h output = nullptr, scratch = nullptr;
  };
  struct PutPair {
    void* data = nullptr;
    void* flag = nullptr;
    std::unique_ptr<uint64_t> value;  // the flag's source stays put until the put completes
  };

  ucp_rkey_h unpack(int peer, const std::string& packed) {
    ucp_rkey_h key = nullptr;
    ucx::check(ucp_ep_rkey_unpack(worker_.endpoint(peer), packed.data(), &key),
               "ucp_ep_rkey_unpack(rank " + std::to_string(peer) + ")");
    return key;
  }

  void* put_value(int peer, size_t flag_offset, const uint64_t* value) {
    ucp_request_param_t param{};
    void* request = ucp_put_nbx(worker_.endpoint(peer), value, sizeof *value, peer_flags_[peer].address + flag_offset,
                                peer_flags_[peer].rkey, &param);
    if (UCS_PTR_IS_ERR(request)) ucx::check(UCS_PTR_STATUS(request), "ucp_put_nbx(flag to rank " + std::to_string(peer) + ")");
    return request;
  }

  Handle new_handle(uint64_t value) {
    const Handle h = puts_.acquire();
    if (!puts_[h].value) puts_[h].value = std::make_unique<uint64_t>();
    *puts_[h].value = value;
    return h;
  }

  void release_window_keys() {
    for (auto& k : window_keys_) {
      if (k.output) ucp_rkey_destroy(k.output);
      if (k.scratch) ucp_rkey_destroy(k.scratch);
    }
    window_keys_.clear();
    output_.reset();
    scratch_.reset();
  }

  struct FreeDeleter {
    void operator()(uint64_t* p) const { std::free(p); }
  };
  ucx::Worker worker_;
  std::unique_ptr<uint64_t, FreeDeleter> flags_;
  std::unique_ptr<Registration> flag_registration_, output_, scratch_;
  std::vector<PeerFlags> peer_flags_;
  std::vector<WindowKeys> window_keys_;
  // Handle 0 means "already complete" to the protocol: slot 0 is never handed out. A deque:
  // a reference to a slot stays valid while the table grows.
  SlotTable<PutPair, Handle, std::deque<PutPair>> puts_{1};
};

}  // namespace

std::unique_ptr<Transport> make_ucx_rma_transport(const TransportContext& context) {
  return std::make_unique<UcxRmaTransport>(host_memory_bootstrap(context, "ucx-rma"));
}

}  // namespace arlab
