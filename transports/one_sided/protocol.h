// The one-sided protocol, shared by the shm, ucx-rma and ibverbs transports. Only the data
// movement differs between them (process_vm_writev, ucp_put_nbx, RDMA WRITE WITH IMMEDIATE);
// the rules below, and their unit tests (tests/unit/one_sided_protocol_test.cpp), are here.
//
// Each rank exposes two windows, its output and its scratch buffer, and two flag arrays per
// peer of kSlots 64-bit flags each: credits (written by the peer as receiver) and signals
// (written by the peer as sender). Messages from a to b are numbered 0, 1, 2, ... across
// runs; message s uses slot s % kSlots of both arrays, and its flags carry the value s + 1.
//
//   receiver b, once the step that waits for message s starts (its buffer is free):
//       grant credit: a.credits[b][s % kSlots] = s + 1
//   sender a, once its write step starts:
//       wait until credits[b][s % kSlots] == s + 1, then put the bytes into b's window at
//       the offset the schedule names, then (ordered after the data) b.signals[a][s % kSlots] = s + 1
//   receiver b: message s has arrived when signals[a][s % kSlots] == s + 1
//
// Flow control: the sender writes only into memory the receiver has said is free, so a fast
// sender never overwrites data still being reduced, and no memory beyond the user's buffers
// and 2 x kSlots flags per peer is used. A slot is reused only when the message that used
// it last (s - kSlots) has arrived: the receiver grants credit s only after signal s - kSlots
// (CreditLedger), and the sender signals s only after credit s.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace arlab::one_sided {

inline constexpr uint32_t kSlots = 64;

inline uint32_t slot_of(uint64_t seq) { return static_cast<uint32_t>(seq % kSlots); }
inline uint64_t flag_value(uint64_t seq) { return seq + 1; }

// Flags of one rank, laid out [peer][slot].
struct FlagLayout {
  int nranks;
  size_t credit_offset(int peer, uint64_t seq) const { return (static_cast<size_t>(peer) * kSlots + slot_of(seq)) * 8; }
  size_t signal_offset(int peer, uint64_t seq) const {
    return (static_cast<size_t>(nranks + peer) * kSlots + slot_of(seq)) * 8;
  }
  size_t bytes() const { return static_cast<size_t>(2 * nranks) * kSlots * 8; }
};

// The receiver's side of flow control: which credits may be granted now.
class CreditLedger {
 public:
  explicit CreditLedger(int nranks) : arrived_(static_cast<size_t>(nranks) * kSlots, 0) {}
  // Credit s may go out once message s - kSlots (the slot's last user) has arrived.
  bool may_grant(int peer, uint64_t seq) const {
    return seq < kSlots || arrived_[index(peer, seq)] >= flag_value(seq - kSlots);
  }
  void arrived(int peer, uint64_t seq) { arrived_[index(peer, seq)] = flag_value(seq); }

 private:
  size_t index(int peer, uint64_t seq) const { return static_cast<size_t>(peer) * kSlots + slot_of(seq); }
  std::vector<uint64_t> arrived_;
};

// RDMA WRITE WITH IMMEDIATE carries 32 bits: the message number modulo 2^31 and a tag bit
// that tells a data signal from a credit. The receiver recovers the full number from the
// one it expects (messages in flight per peer are far fewer than 2^30).
struct Immediate {
  enum class Kind : uint32_t { Signal = 0, Credit = 1 };
  static uint32_t encode(Kind kind, uint64_t seq) {
    return (static_cast<uint32_t>(kind) << 31) | static_cast<uint32_t>(seq & 0x7fffffffu);
  }
  static Kind kind(uint32_t imm) { return static_cast<Kind>(imm >> 31); }
  // The message number nearest to `expected` whose low 31 bits are imm's.
  static uint64_t decode(uint32_t imm, uint64_t expected);
};

// A peer's window as the sender sees it: where it starts and how long it is. A write that
// would fall outside is refused before anything is posted.
struct RemoteWindow {
  uint64_t address = 0;
  uint64_t bytes = 0;
  bool holds(uint64_t offset, uint64_t length) const { return offset <= bytes && length <= bytes - offset; }
  // The address to write to; TransportError naming `what` when the bytes fall outside.
  uint64_t target(uint64_t offset, uint64_t length, const std::string& what) const;
};

// What each rank publishes about its windows (exchanged through the bootstrap).
struct WindowDescriptor {
  uint64_t output_address, output_bytes, scratch_address, scratch_bytes;
};

}  // namespace arlab::one_sided
