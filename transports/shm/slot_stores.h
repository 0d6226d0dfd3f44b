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
// call's (the reader pays for where the writer put the data), per power-of-two size; the faster
// kind is used, and every 256 calls the other is timed afresh.
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
  static constexpr uint32_t kWindow = 8;         // a kind's cost: the least of its last 8 timed calls
  static constexpr uint32_t kTimed = 4;          // timed calls of each kind before choosing
  static constexpr uint32_t kColdCalls = 3;      // a size's first calls: untimed
  static constexpr uint32_t kSwitchCalls = 2;    // the calls after a switch: untimed
  static constexpr uint32_t kRetryEvery = 256;   // then the slower kind's times are dropped and retaken

  // The kind the next call of `bytes` uses.
  StoreKind choose(size_t bytes);
  // How long a call of `bytes` took with that kind.
  void record(StoreKind kind, size_t bytes, double seconds);
  // A kind's cost so far (0: not timed enough yet), for tests.
  double seconds_per_byte(StoreKind kind, size_t bytes) const;

 private:
  // The last kWindow timed costs of one kind; the least is its cost (one preempted or page-
  // faulting call does not move it, kWindow slow calls in a row do).
  struct Window {
    std::array<double, kWindow> samples{};
    uint32_t count = 0, next = 0;
    void add(double sample);
    double least() const;
  };
  struct SizeClass {
    std::array<Window, 2> kinds;
    uint32_t calls = 0;
    StoreKind previous = StoreKind::Cached;  // the last call's kind
    uint32_t run = 0;                        // calls of that kind in a row
    StoreKind faster() const;
  };
  std::array<SizeClass, 64> classes_{};
};

}  // namespace arlab
