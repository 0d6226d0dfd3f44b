// Copies into shared slots that a peer on another core reads: with the cache's stores (memcpy)
// or with streaming stores (non-temporal: straight to memory, no read of the old line first),
// whichever has made the all-reduce faster lately.
//
// Why both: writing a line that the peer's core still holds (it read the slot in the last call)
// first takes the line from that core. Where the two cores share a cache that is cheap, and the
// peer then reads the new data from the shared cache: memcpy wins, and streaming stores make the
// whole two-step all-reduce of 2 MiB take twice as long (measured on the build VM: 110-140 us
// against 260 us). Where they do not (cores on different chiplets or sockets; a VM whose virtual
// CPUs the host moves apart for seconds at a time), every line's transfer is a round trip
// between them: memcpy into the slot falls to 2 GB/s and the all-reduce takes 1100 us, while
// with streaming stores, which take no line from anyone, it takes 190 us. Which case holds can
// change during a run, so both are timed as they are used: the cost that counts is the whole
// call's (the reader pays for where the writer put the data), kept as a moving average per
// power-of-two size; the faster kind is used, and the other tried again for 4 calls in every 256.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace arlab {

enum class StoreKind : uint8_t { Cached, Streaming };

// Streaming stores where the CPU has them (SSE2 on x86-64), else memcpy. Ends with a store
// fence, so a flag released after it is seen after the data.
void copy_streaming(void* dst, const void* src, size_t bytes);
void copy_with(StoreKind kind, void* dst, const void* src, size_t bytes);

class StoreChooser {
 public:
  static constexpr size_t kMinBytes = 16 << 10;  // smaller messages: memcpy, untimed
  static constexpr uint32_t kRetryEvery = 256, kRetryCalls = 4;
  static constexpr uint32_t kColdCalls = 3;    // a size's first calls: untimed
  static constexpr uint32_t kSwitchCalls = 2;  // the calls after a switch: untimed

  // The kind the next call of `bytes` uses: the faster so far, or the other on a retry.
  StoreKind choose(size_t bytes);
  // How long a call of `bytes` took with that kind.
  void record(StoreKind kind, size_t bytes, double seconds);
  // The average so far (0: not timed yet), for tests.
  double seconds_per_byte(StoreKind kind, size_t bytes) const;

 private:
  struct SizeClass {
    std::array<double, 2> seconds_per_byte{};
    uint32_t calls = 0;
    StoreKind previous = StoreKind::Cached;  // the last call's kind
    uint32_t run = 0;                        // calls of that kind in a row
  };
  std::array<SizeClass, 64> classes_{};
};

}  // namespace arlab
