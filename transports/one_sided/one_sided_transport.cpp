#include "transports/one_sided/one_sided_transport.h"


namespace arlab::one_sided {

OneSidedTransport::OneSidedTransport(Bootstrap& bootstrap, std::string name)
    : bootstrap_(bootstrap), layout_{bootstrap.size()}, name_(std::move(name)), ledger_(bootstrap.size()) {
  counters_.sent.assign(bootstrap.size(), 0);
  counters_.received.assign(bootstrap.size(), 0);
}

RequestId OneSidedTransport::isend(int, const void*, size_t, uint32_t) {
  throw TransportUnavailable("-t " + name_ + " is one-sided: schedules run as writes and signals");
}
RequestId OneSidedTransport::irecv(int, void*, size_t, uint32_t) {
  throw TransportUnavailable("-t " + name_ + " is one-sided: schedules run as writes and signals");
}

// Registration is cached: the exchange runs when any rank's buffers changed, which every
// rank learns from one small all-reduce.
void OneSidedTransport::attach_windows(const Windows& w) {
  attach_sources(w);
  const bool mine_changed = !has_windows_ || w.output != attached_.output || w.output_bytes != attached_.output_bytes ||
                            w.scratch != attached_.scratch || w.scratch_bytes != attached_.scratch_bytes;
  if (bootstrap_.sum(mine_changed ? 1 : 0) == 0) return;
  peers_ = publish(w);
  attached_ = w;
  has_windows_ = true;
}

RequestId OneSidedTransport::allocate() { return requests_.acquire(); }

RequestId OneSidedTransport::write(int peer, const void* src, size_t bytes, WindowId window, uint64_t offset,
                                   uint64_t seq) {
  if (!has_windows_) throw TransportError(name_ + ": write before attach_windows");
  const WindowDescriptor& d = peers_[peer];
  const RemoteWindow remote = window == WindowId::Output ? RemoteWindow{d.output_address, d.output_bytes}
                                                         : RemoteWindow{d.scratch_address, d.scratch_bytes};
  // Refused before anything moves; the message is built only then.
  const uint64_t address =
      remote.holds(offset, bytes)
          ? remote.address + offset
          : remote.target(offset, bytes,
                          name_ + " write of message " + std::to_string(seq) + " to rank " + std::to_string(peer) +
                              (window == WindowId::Output ? " (output window)" : " (scratch window)"));
  const RequestId id = allocate();
  requests_[id] = {Request::State::AwaitCredit, peer, src, bytes, address, seq, 0, window};
  advance(requests_[id]);
  return id;
}

RequestId OneSidedTransport::wait_signal(int peer, uint64_t seq) {
  const RequestId id = allocate();
  requests_[id] = {Request::State::AwaitSignal, peer, nullptr, 0, 0, seq, 0, WindowId::Output};
  // This rank's buffer for the message is free now: grant the credit, or queue it until the
  // slot's previous message has arrived.
  if (ledger_.may_grant(peer, seq))
    credit_puts_.push_back(put_flag(peer, layout_.credit_offset(rank(), seq), flag_value(seq)));
  else
    deferred_credits_.push_back({peer, seq});
  advance(requests_[id]);
  return id;
}

// Moves one request forward as far as it can go without waiting.
void OneSidedTransport::advance(Request& r) {
  if (r.state == Request::State::AwaitCredit && local_flag(layout_.credit_offset(r.peer, r.seq)) == flag_value(r.seq)) {
    r.handle = put_then_flag(r.peer, r.src, r.bytes, r.window, r.remote_address, layout_.signal_offset(rank(), r.seq),
                             flag_value(r.seq));
    r.state = Request::State::Sending;
  }
  if (r.state == Request::State::Sending && (r.handle == 0 || handle_done(r.handle))) r.state = Request::State::Done;
  if (r.state == Request::State::AwaitSignal && local_flag(layout_.signal_offset(r.peer, r.seq)) == flag_value(r.seq)) {
    ledger_.arrived(r.peer, r.seq);
    r.state = Request::State::Done;
    if (!deferred_credits_.empty()) grant_deferred();
  }
}

void OneSidedTransport::grant_deferred() {
  for (size_t i = 0; i < deferred_credits_.size();) {
    const Deferred d = deferred_credits_[i];
    if (!ledger_.may_grant(d.peer, d.seq)) {
      ++i;
      continue;
    }
    credit_puts_.push_back(put_flag(d.peer, layout_.credit_offset(rank(), d.seq), flag_value(d.seq)));
    deferred_credits_[i] = deferred_credits_.back();
    deferred_credits_.pop_back();
  }
}

// Drops the credits whose puts have completed (their completion only frees resources).
void OneSidedTransport::reap_credits() {
  for (size_t i = 0; i < credit_puts_.size();) {
    if (credit_puts_[i] == 0 || handle_done(credit_puts_[i])) {
      credit_puts_[i] = credit_puts_.back();
      credit_puts_.pop_back();
    } else {
      ++i;
    }
  }
}

void OneSidedTransport::complete_credits() {
  while (!credit_puts_.empty()) {
    progress();
    reap_credits();
  }
}

bool OneSidedTransport::test(RequestId id) {
  progress();
  reap_credits();
  Request& r = requests_[id];
  advance(r);
  if (r.state != Request::State::Done) return false;
  r.state = Request::State::Free;
  requests_.release(id);
  return true;
}

}  // namespace arlab::one_sided
