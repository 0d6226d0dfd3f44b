// The one interface every transport implements. Transports move bytes between ranks and
// know nothing of algorithms; the executor (harness/executor.cpp) is the only place where a
// schedule meets a transport.
//
// Two-sided transports implement isend / irecv / test. One-sided transports (shm, ucx-rma,
// ibverbs) will also register windows and write + signal into them; until a transport says
// it can, the executor lowers the schedule's write / wait ops to send / recv.
//
// A stream-ordered transport (nccl) enqueues each message on the device's stream: a
// request is "complete" as soon as it is enqueued, and a send waits, on the GPU, for its
// matching receive. Such a transport runs schedules round by round (harness/lockstep_executor),
// every round's messages between group_begin() and group_end(). The vendor
// baselines (MPI_Allreduce, ncclAllReduce) are a capability of their transport, not
// schedules: native_allreduce().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace arlab {

// A library call failed: the message names the call and its arguments.
class TransportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The transport cannot serve this request (not built, no device, unsupported type).
class TransportUnavailable : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct TransportCapabilities {
  bool one_sided = false;
  bool gpu_memory = false;      // isend / irecv / native_allreduce accept device pointers
  bool stream_ordered = false;  // see above: needs the lockstep executor
  bool native_allreduce = false;
};

// What the native all-reduce must compute, described without the algorithm layer's types:
// the element's kind and width map onto the library's datatypes (MPI_INT32_T, ncclFloat16),
// and `combine` is the lab's own reducer, for libraries that lack the type (MPI has no
// float16 or bfloat16) and need a user-defined operation. `combine_many` folds k sources in
// order in one pass (the bits of k - 1 combines; dst may be sources[0]), for transports that
// reduce N ranks' data at once.
struct NativeReduction {
  enum class Kind { SignedInt, UnsignedInt, Float, BFloat } kind;
  enum class Op { Sum, Prod, Min, Max } op;
  size_t element_size;
  void (*combine)(void* dst, const void* a, const void* b, size_t count);
  void (*combine_many)(void* dst, const void* const* sources, int k, size_t count);
};

using RequestId = uint32_t;

// The windows of a one-sided transport: the buffers peers write into.
enum class WindowId : uint8_t { Output, Scratch };
struct Windows {
  void* output;
  size_t output_bytes;
  void* scratch;
  size_t scratch_bytes;
  const void* input = nullptr;  // not a window (nobody writes into it), but a source of writes
  size_t input_bytes = 0;
};

class Transport {
 public:
  virtual ~Transport() = default;

  virtual std::string name() const = 0;
  virtual TransportCapabilities capabilities() const = 0;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // The library behind it, for the report ("NCCL 2.28.3"); empty when the bootstrap's MPI.
  virtual std::string library_version() const { return ""; }

  // Non-blocking point-to-point. `tag` orders messages between one pair of ranks: the
  // k-th message from a to b carries tag k, so posting order does not matter.
  virtual RequestId isend(int peer, const void* data, size_t bytes, uint32_t tag) = 0;
  virtual RequestId irecv(int peer, void* data, size_t bytes, uint32_t tag) = 0;
  // True once the request is complete; a completed request id may be reused by the
  // transport afterwards. Drives progress.
  virtual bool test(RequestId request) = 0;
  // Messages posted between these calls progress together (ncclGroupStart / ncclGroupEnd).
  virtual void group_begin() {}
  virtual void group_end() {}

  // One-sided transports (capabilities().one_sided; protocol in transports/one_sided/).
  // attach_windows is collective: every rank calls it before each run with its buffers;
  // registration is cached and redone only when some rank's buffers changed. Message
  // numbers count every message between the pair, across runs.
  virtual void attach_windows(const Windows& windows) {
    (void)windows;
    throw TransportUnavailable("transport '" + name() + "' has no one-sided windows");
  }
  // Puts bytes into the peer's window at offset, then signals message `seq`. Completes when
  // src may be reused.
  virtual RequestId write(int peer, const void* src, size_t bytes, WindowId window, uint64_t offset, uint64_t seq) {
    (void)peer, (void)src, (void)bytes, (void)window, (void)offset, (void)seq;
    throw TransportUnavailable("transport '" + name() + "' has no one-sided write");
  }
  // Whether messages from rank a to rank b go one-sided (write + signal) on this transport;
  // the rest go two-sided (isend / irecv). A composite transport answers per pair.
  virtual bool one_sided_between(int a, int b) const {
    (void)a, (void)b;
    return capabilities().one_sided;
  }
  // Where the numbering of each peer's messages stands; a run takes its numbers from here
  // and advances it by the messages it exchanges with each peer.
  struct MessageCounters {
    std::vector<uint64_t> sent, received;  // per peer
  };
  virtual MessageCounters* message_counters() { return nullptr; }
  // Grants the peer credit for message `seq` (this rank's buffer is ready for it) and
  // completes when its signal has arrived.
  virtual RequestId wait_signal(int peer, uint64_t seq) {
    (void)peer, (void)seq;
    throw TransportUnavailable("transport '" + name() + "' has no one-sided signals");
  }

  // A one-step all-reduce for small messages, where the transport has one (shm): every rank
  // copies its data into a slot that all its peers can read and raises a flag in the same
  // cache line's neighbourhood; then every rank folds all the slots, in rank order, into its
  // output. No schedule, no messages. small_allreduce_limit(): the largest message in bytes
  // (0: the transport has no such path). Post once, then poll until it returns true; every
  // rank makes the same sequence of calls.
  virtual size_t small_allreduce_limit() const { return 0; }
  virtual void small_allreduce_post(const void* input, size_t bytes) {
    (void)input, (void)bytes;
    throw TransportUnavailable("transport '" + name() + "' has no one-step small-message all-reduce");
  }
  virtual bool small_allreduce_poll(void* output, size_t count, const NativeReduction& reduction) {
    (void)output, (void)count, (void)reduction;
    throw TransportUnavailable("transport '" + name() + "' has no one-step small-message all-reduce");
  }

  // A two-step all-reduce through shared slots (shm), for messages too large for one step:
  // every rank copies the blocks its peers own (block b of N, partition.h) into its slot and
  // raises a flag; each rank reduces its own block from its input and the peers' slots, in rank
  // order, publishes it in its slot and raises a second flag; then every rank copies the peers'
  // blocks into its output. Each block is reduced once, by its owner, so all ranks get the same
  // bits. Per rank that is 2(N-1)/N n bytes copied plus one reduce of n/N, against the one-step
  // path's n copied plus N-1 reduces of n. two_step_allreduce_limit(): the largest message of
  // one call in bytes (0: none); the harness takes larger ones through it in pieces, and
  // message_bytes names the whole message a call is a piece of (whether its buffers fit in the
  // caches decides how the output is written). Post once, then poll until it returns true,
  // with the same buffers.
  virtual size_t two_step_allreduce_limit() const { return 0; }
  virtual void two_step_allreduce_post(const void* input, size_t count, const NativeReduction& reduction,
                                       size_t message_bytes) {
    (void)input, (void)count, (void)reduction, (void)message_bytes;
    throw TransportUnavailable("transport '" + name() + "' has no two-step shared-memory all-reduce");
  }
  virtual bool two_step_allreduce_poll(const void* input, void* output, size_t count, const NativeReduction& reduction) {
    (void)input, (void)output, (void)count, (void)reduction;
    throw TransportUnavailable("transport '" + name() + "' has no two-step shared-memory all-reduce");
  }

  // Symmetric memory (shm, every rank on one node; symmetric_memory.h there): a buffer each
  // rank allocates together, collectively, the same size in the same order, and every rank of
  // the node maps, like NCCL's symmetric windows or MPI_Win_allocate_shared. Throws
  // TransportUnavailable on every rank when the transport has none or any rank is out of room.
  virtual void* allocate_symmetric(size_t bytes) {
    (void)bytes;
    throw TransportUnavailable("transport '" + name() + "' has no symmetric memory (use -t shm, every rank on one node)");
  }
  virtual void release_symmetric(void* buffer) noexcept { (void)buffer; }
  // The two-step all-reduce on symmetric buffers: as two_step_allreduce_*, but each rank
  // reduces its block straight from the peers' inputs and copies the other blocks straight
  // from their owners' outputs; no slot, no size limit. Input and output must lie in memory
  // from allocate_symmetric (at any offset); post throws TransportError otherwise.
  virtual bool has_symmetric_allreduce() const { return false; }
  virtual void symmetric_allreduce_post(const void* input, void* output, size_t bytes) {
    (void)input, (void)output, (void)bytes;
    throw TransportUnavailable("transport '" + name() + "' has no all-reduce on symmetric memory");
  }
  virtual bool symmetric_allreduce_poll(const void* input, void* output, size_t count, const NativeReduction& reduction) {
    (void)input, (void)output, (void)count, (void)reduction;
    throw TransportUnavailable("transport '" + name() + "' has no all-reduce on symmetric memory");
  }

  // The library's own all-reduce, where the transport has one.
  virtual void native_allreduce(const void* input, void* output, size_t count, const NativeReduction& reduction) {
    (void)input, (void)output, (void)count, (void)reduction;
    throw TransportUnavailable("transport '" + name() + "' has no native all-reduce");
  }

  virtual void barrier() = 0;
};

// A buffer in a transport's symmetric memory, released with it. Allocating is collective
// (every rank of the node, the same bytes, the same order); releasing is not.
class SymmetricBuffer {
 public:
  SymmetricBuffer() = default;
  SymmetricBuffer(Transport& transport, size_t bytes)
      : transport_(&transport), data_(static_cast<char*>(transport.allocate_symmetric(bytes))) {}
  SymmetricBuffer(SymmetricBuffer&& other) noexcept { swap(other); }
  SymmetricBuffer& operator=(SymmetricBuffer&& other) noexcept {
    swap(other);
    return *this;
  }
  ~SymmetricBuffer() {
    if (data_) transport_->release_symmetric(data_);
  }
  char* data() const { return data_; }

 private:
  void swap(SymmetricBuffer& o) noexcept {
    std::swap(transport_, o.transport_);
    std::swap(data_, o.data_);
  }
  Transport* transport_ = nullptr;
  char* data_ = nullptr;
};

}  // namespace arlab
