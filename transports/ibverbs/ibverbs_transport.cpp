// -t ibverbs: the one-sided protocol (transports/one_sided/protocol.h) in raw verbs.
//
// One RC queue pair per peer (verbs_setup.cpp). A write is one RDMA WRITE WITH IMMEDIATE:
// the data goes straight into the peer's registered window, and the 32-bit immediate (the
// message number, protocol.h's Immediate) arrives at the peer as a receive completion, after
// the data is in place: the signal costs no second message. A credit is a zero-byte RDMA
// WRITE WITH IMMEDIATE the other way. Each rank keeps its signal and credit flags in its own
// memory and sets them as the completions come in, so nothing but the windows is ever
// registered for remote access, and only for writing.
#include <arpa/inet.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

#include "transports/ibverbs/verbs_memory.h"
#include "transports/ibverbs/verbs_setup.h"
#include "transports/one_sided/one_sided_transport.h"
#include "transports/registry.h"

namespace arlab {
namespace {

using one_sided::Immediate;

constexpr uint32_t kQueueDepth = 2 * one_sided::kSlots + 16;  // writes and credits in flight per peer

class IbverbsTransport final : public one_sided::OneSidedTransport {
 public:
  IbverbsTransport(Bootstrap& boot, const verbs::PortChoice& choice, bool gpu_memory)
      : OneSidedTransport(boot, "ibverbs"), gpu_memory_(gpu_memory), port_(verbs::open_port(choice)) {
    pd_ = ibv_alloc_pd(port_.context);
    if (!pd_) throw TransportError("ibv_alloc_pd on " + port_.description + " failed");
    const int n = boot.size();
    cq_ = ibv_create_cq(port_.context, static_cast<int>(2 * kQueueDepth * std::max(1, n - 1)), nullptr, nullptr, 0);
    if (!cq_) throw TransportError("ibv_create_cq on " + port_.description + " failed");
    flags_.assign(layout_.bytes() / 8, 0);
    last_seen_.assign(2 * static_cast<size_t>(n), 0);
    connect_all();
    boot.barrier();  // every QP is ready to receive before anyone writes
  }

  ~IbverbsTransport() override {
    try {
      complete_credits();
      bootstrap_.barrier_progressing([this] { progress(); });
    } catch (...) {
    }
    for (ibv_qp* qp : qps_)
      if (qp) ibv_destroy_qp(qp);
    for (auto& [key, r] : registrations_) ibv_dereg_mr(r.mr);
    if (cq_) ibv_destroy_cq(cq_);
    if (pd_) ibv_dealloc_pd(pd_);
    ibv_close_device(port_.context);
  }

  TransportCapabilities capabilities() const override { return {.one_sided = true, .gpu_memory = gpu_memory_}; }
  std::string library_version() const override { return "verbs " + port_.description + registration_how_; }

 protected:
  Handle put_then_flag(int peer, const void* src, size_t bytes, WindowId window, uint64_t remote_address,
                       size_t flag_offset, uint64_t value) override {
    (void)flag_offset;
    const Keys& keys = peer_keys_[peer];
    return post_write(peer, src, bytes, remote_address, window == WindowId::Output ? keys.output : keys.scratch,
                      Immediate::encode(Immediate::Kind::Signal, value - 1), "data + signal");
  }

  // A credit: a zero-byte write with immediate (no memory is touched, the immediate is all).
  Handle put_flag(int peer, size_t flag_offset, uint64_t value) override {
    (void)flag_offset;
    return post_write(peer, nullptr, 0, peer_keys_[peer].output_address, peer_keys_[peer].output,
                      Immediate::encode(Immediate::Kind::Credit, value - 1), "credit");
  }

  bool handle_done(Handle h) override {
    progress();
    if (!done_[h]) return false;
    done_.release(h);
    return true;
  }

  uint64_t local_flag(size_t offset) override { return flags_[offset / 8]; }

  // Completions: sends finish handles; receives carry a peer's signal or credit.
  void progress() override {
    ibv_wc wc[32];
    const int n = ibv_poll_cq(cq_, 32, wc);
    if (n < 0) throw TransportError("ibv_poll_cq failed on " + port_.description);
    for (int i = 0; i < n; ++i) {
      const int peer = peer_of_qp_.at(wc[i].qp_num);
      if (wc[i].status != IBV_WC_SUCCESS)
        throw TransportError("ibverbs: " + describe(wc[i], peer) + " failed: " + ibv_wc_status_str(wc[i].status) +
                             " (vendor error " + std::to_string(wc[i].vendor_err) + ")");
      if (wc[i].opcode != IBV_WC_RECV_RDMA_WITH_IMM) {
        done_[wc[i].wr_id] = true;
        continue;
      }
      const uint32_t imm = ntohl(wc[i].imm_data);
      const bool credit = Immediate::kind(imm) == Immediate::Kind::Credit;
      uint64_t& last = last_seen_[2 * static_cast<size_t>(peer) + credit];
      const uint64_t seq = Immediate::decode(imm, last);
      last = std::max(last, seq);
      flags_[(credit ? layout_.credit_offset(peer, seq) : layout_.signal_offset(peer, seq)) / 8] =
          one_sided::flag_value(seq);
      post_receive(peer);
    }
  }

  std::vector<one_sided::WindowDescriptor> publish(const Windows& w) override {
    const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;  // peers write; nobody reads
    const Keys mine{reg(w.output, w.output_bytes, access), reg(w.scratch, w.scratch_bytes, access),
                    reinterpret_cast<uint64_t>(w.output)};
    const one_sided::WindowDescriptor d{reinterpret_cast<uint64_t>(w.output), w.output_bytes,
                                        reinterpret_cast<uint64_t>(w.scratch), w.scratch_bytes};
    std::string blob(reinterpret_cast<const char*>(&d), sizeof d);
    blob.append(reinterpret_cast<const char*>(&mine), sizeof mine);
    const auto all = bootstrap_.gather_strings(blob);
    std::vector<one_sided::WindowDescriptor> out(all.size());
    peer_keys_.resize(all.size());
    for (size_t p = 0; p < all.size(); ++p) {
      std::memcpy(&out[p], all[p].data(), sizeof d);
      std::memcpy(&peer_keys_[p], all[p].data() + sizeof d, sizeof(Keys));
    }
    return out;
  }

  // The input is only ever sent from: registered for local access alone.
  void attach_sources(const Windows& w) override {
    if (w.input && w.input != w.output) reg(const_cast<void*>(w.input), w.input_bytes, 0);
  }

 private:
  struct Keys {
    uint32_t output = 0, scratch = 0;  // rkeys
    uint64_t output_address = 0;
  };

  // One QP per peer, taken RESET -> INIT -> RTR -> RTS with the endpoints exchanged here.
  void connect_all() {
    const int n = size(), me = rank();
    qps_.assign(n, nullptr);
    std::vector<verbs::Endpoint> mine(n);
    for (int p = 0; p < n; ++p) {
      if (p == me) continue;
      qps_[p] = verbs::create_qp(pd_, cq_, kQueueDepth, kQueueDepth);
      verbs::to_init(qps_[p], port_);
      peer_of_qp_[qps_[p]->qp_num] = p;
      mine[p] = {qps_[p]->qp_num, static_cast<uint32_t>(std::rand()) & 0xffffff, port_.attr.lid, port_.gid};
    }
    const auto all = bootstrap_.gather_strings(
        std::string(reinterpret_cast<const char*>(mine.data()), mine.size() * sizeof(verbs::Endpoint)));
    for (int p = 0; p < n; ++p) {
      if (p == me) continue;
      verbs::Endpoint remote;  // peer p's endpoint for its QP to me
      std::memcpy(&remote, all[p].data() + me * sizeof(verbs::Endpoint), sizeof remote);
      verbs::to_rtr(qps_[p], port_, remote);
      verbs::to_rts(qps_[p], mine[p].psn);
      for (uint32_t k = 0; k < kQueueDepth; ++k) post_receive(p);
    }
  }

  // A receive for one incoming write-with-immediate (no buffer: the data went to the window).
  void post_receive(int peer) {
    ibv_recv_wr wr{};
    ibv_recv_wr* bad = nullptr;
    wr.wr_id = 0;
    wr.num_sge = 0;
    verbs::check(ibv_post_recv(qps_[peer], &wr, &bad), "ibv_post_recv(rank " + std::to_string(peer) + ")");
  }

  Handle post_write(int peer, const void* src, size_t bytes, uint64_t remote_address, uint32_t rkey, uint32_t imm,
                    const char* what) {
    const Handle h = new_handle();
    ibv_sge sge{reinterpret_cast<uint64_t>(src), static_cast<uint32_t>(bytes), bytes ? lkey_of(src, bytes) : 0};
    ibv_send_wr wr{};
    ibv_send_wr* bad = nullptr;
    wr.wr_id = h;
    wr.sg_list = bytes ? &sge : nullptr;
    wr.num_sge = bytes ? 1 : 0;
    wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.imm_data = htonl(imm);
    wr.wr.rdma.remote_addr = remote_address;
    wr.wr.rdma.rkey = rkey;
    verbs::check(ibv_post_send(qps_[peer], &wr, &bad), std::string("ibv_post_send(RDMA WRITE WITH IMMEDIATE, ") + what +
                                                            ", " + std::to_string(bytes) + " bytes to rank " +
                                                            std::to_string(peer) + ")");
    return h;
  }

  Handle new_handle() {
    const Handle h = done_.acquire();
    done_[h] = false;
    return h;
  }

  // Registers [address, address + bytes) once; the cache is keyed by address and length.
  uint32_t reg(void* address, size_t bytes, int access) {
    if (!address || bytes == 0) return 0;
    const auto key = std::make_pair(reinterpret_cast<uintptr_t>(address), bytes);
    auto it = registrations_.find(key);
    if (it == registrations_.end()) {
      it = registrations_.emplace(key, verbs::register_memory(pd_, address, bytes, access, gpu_memory_)).first;
      registration_how_ = ", " + it->second.how;
    }
    return it->second.mr->rkey;
  }

  uint32_t lkey_of(const void* src, size_t bytes) const {
    const auto p = reinterpret_cast<uintptr_t>(src);
    for (const auto& [key, r] : registrations_)
      if (p >= key.first && p + bytes <= key.first + key.second) return r.mr->lkey;
    throw TransportError("ibverbs: a write from " + std::to_string(bytes) + " bytes at " + std::to_string(p) +
                         " that no registered buffer holds");
  }

  static std::string describe(const ibv_wc& wc, int peer) {
    return (wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM ? std::string("receive from rank ")
                                                   : "RDMA WRITE WITH IMMEDIATE (work request " +
                                                         std::to_string(wc.wr_id) + ") to rank ") +
           std::to_string(peer);
  }

  bool gpu_memory_;
  verbs::Port port_;
  ibv_pd* pd_ = nullptr;
  ibv_cq* cq_ = nullptr;
  std::vector<ibv_qp*> qps_;
  std::map<uint32_t, int> peer_of_qp_;
  std::vector<Keys> peer_keys_;
  std::map<std::pair<uintptr_t, size_t>, verbs::Registration> registrations_;
  std::string registration_how_;
  std::vector<uint64_t> flags_;      // this rank's credits and signals, set from completions
  std::vector<uint64_t> last_seen_;  // per peer: the last signal and credit number seen
  SlotTable<uint8_t, Handle> done_{1};  // per handle, whether its work completed; handle 0 means "already complete"
};

}  // namespace

std::unique_ptr<Transport> make_ibverbs_transport(const TransportContext& context) {
  if (!context.bootstrap) throw TransportUnavailable("-t ibverbs: needs the run's bootstrap");
  const bool gpu = context.device && context.device->is_gpu();
  return std::make_unique<IbverbsTransport>(*context.bootstrap,
                                            verbs::PortChoice{context.ib_device, context.ib_port, context.gid_index}, gpu);
}

}  // namespace arlab
