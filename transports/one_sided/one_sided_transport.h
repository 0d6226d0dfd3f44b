// The one-sided protocol's state machine (protocol.h), written once for every one-sided
// transport. A transport supplies only how bytes and flags reach a peer:
//   put_then_flag  the data, then (ordered after it) an 8-byte flag at the peer
//   put_flag       an 8-byte flag at the peer (credits)
//   local_flag     reads one of this rank's flags (acquire)
//   publish        exchanges window descriptors (and keys) through the bootstrap
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "transports/bootstrap.h"
#include "transports/one_sided/protocol.h"
#include "transports/slot_table.h"
#include "transports/transport.h"

namespace arlab::one_sided {

class OneSidedTransport : public Transport {
 public:
  OneSidedTransport(Bootstrap& bootstrap, std::string name);

  std::string name() const override { return name_; }
  TransportCapabilities capabilities() const override { return {.one_sided = true}; }
  int rank() const override { return bootstrap_.rank(); }
  int size() const override { return bootstrap_.size(); }

  RequestId isend(int, const void*, size_t, uint32_t) override;
  RequestId irecv(int, void*, size_t, uint32_t) override;
  bool test(RequestId request) override;
  void barrier() override { bootstrap_.barrier(); }

  void attach_windows(const Windows& windows) override;
  RequestId write(int peer, const void* src, size_t bytes, WindowId window, uint64_t offset, uint64_t seq) override;
  RequestId wait_signal(int peer, uint64_t seq) override;
  MessageCounters* message_counters() override { return &counters_; }

 protected:
  using Handle = uint64_t;  // a transport's own completion handle; 0 = already complete
  virtual Handle put_then_flag(int peer, const void* src, size_t bytes, WindowId window, uint64_t remote_address,
                               size_t flag_offset, uint64_t value) = 0;
  virtual Handle put_flag(int peer, size_t flag_offset, uint64_t value) = 0;
  virtual bool handle_done(Handle handle) = 0;
  virtual uint64_t local_flag(size_t offset) = 0;
  virtual void progress() {}
  // Makes this rank's windows writable by peers and returns every rank's descriptors.
  virtual std::vector<WindowDescriptor> publish(const Windows& windows) = 0;
  // Called on every attach, on this rank alone: transports that must register the memory
  // they send from (verbs) do it here.
  virtual void attach_sources(const Windows& windows) { (void)windows; }

  // Completes every credit still in flight (before a transport tears down its memory).
  void complete_credits();

  Bootstrap& bootstrap_;
  FlagLayout layout_;

 private:
  struct Request {
    enum class State : uint8_t { Free, AwaitCredit, Sending, AwaitSignal, Done } state = State::Free;
    int peer = 0;
    const void* src = nullptr;
    size_t bytes = 0;
    uint64_t remote_address = 0, seq = 0;
    Handle handle = 0;
    WindowId window = WindowId::Output;
  };
  RequestId allocate();
  void advance(Request& r);
  void grant_deferred();
  void reap_credits();

  std::string name_;
  SlotTable<Request> requests_;
  CreditLedger ledger_;
  struct Deferred {
    int peer;
    uint64_t seq;
  };
  std::vector<Deferred> deferred_credits_;
  std::vector<Handle> credit_puts_;  // credits in flight (their completion only frees resources)
  Windows attached_{};
  bool has_windows_ = false;
  std::vector<WindowDescriptor> peers_;
  MessageCounters counters_;
};

}  // namespace arlab::one_sided
