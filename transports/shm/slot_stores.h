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
// kind is used, and every 256 calls the other is timed afresh. Where streaming stores win the
// first comparison of a size, cached ones are timed once more straight away: on the AMD VM,
// whose vCPUs share an L3 but which the host at moments keeps apart, cached stores at
// 256 KiB take 25-35 us, 86-94 us in such a moment, streaming ones 38-45 us either way. A
// size first timed in one keeps streaming stores until the next retry, past the bench's ~210
// calls at it: two runs took 80 us at 512 KiB, streaming's time, against 45-58 us in the runs
// around them (one read 1.41x MPI_Allreduce where 1.5x is the target). Retrying every size
// early instead (after 32 calls, then 64, 128) cost more than it saved: 1 MiB 108-200
// against 74-131 us, four alternated runs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "transports/streaming_copy.h"

namespace arlab {

enum class StoreKind : uint8_t { Cached, Streaming };

void copy_with(StoreKind kind, void* dst, const void* src, size_t bytes);

// The stores that write the all-reduce's result into the outputs (twoshot, through slots or on
// symmetric memory). Streaming where the call is out of place and the node's buffers (every
// rank's input and output, ranks x 2 x message_bytes) pass half the last-level cache: then
// the output's lines are not in any cache, and a cached store would first read each one from
// memory. In place the line was just read (it is the input), and a streaming store would throw
// it out. Measured on the build VM (N = 2, L3 260 MiB), twoshot out of place, cached against
// streaming: 64 MiB 19.2-19.8 against 14.8-14.9 ms (private buffers), 13.6-14.4 against
// 11.6-11.8 ms (symmetric); 48 MiB 16.4-20.8 against 11.2-12.7 ms; at 1-24 MiB no steady gain
// (single runs from 9 % faster to 32 % slower), and in place 1.25-3.9x slower at every size.
// On the AMD VM (L3 32 MiB, where sysconf says 256 MiB), out of place, two alternated runs
// each: N = 2 symmetric 16 MiB 2.31-2.81 against 2.11-2.17 ms, 32 MiB 5.1 against 4.1-4.5 ms;
// N = 4 on 2 cores symmetric 4 MiB 1.18-1.22 against 0.87-0.90 ms, private 8 MiB 3.8-4.0
// against 2.9-3.1 ms, 16 MiB 7.5-8.6 against 6.3-6.4 ms; N = 2 private 8-32 MiB no steady
// difference. Hence the L3 of cache_bytes (sysfs first).
// ARLAB_SHM_OUTPUT_STORES=cached or streaming overrides the rule (auto: the rule).
enum class OutputStoresSetting : uint8_t { Auto, Cached, Streaming };
// ARLAB_SHM_OUTPUT_STORES, read once; throws std::invalid_argument naming the variable on a bad value.
OutputStoresSetting output_stores_setting();
// last_level_cache_bytes: 0 asks the machine (cache_bytes(3), transports/cpu_caches.h; 32 MiB
// where it does not say).
StoreKind output_stores(size_t message_bytes, int ranks, bool in_place, OutputStoresSetting setting,
                        size_t last_level_cache_bytes = 0);

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
    bool confirmed = false;                  // the first comparison has been checked
    StoreKind faster() const;
  };
  std::array<SizeClass, 64> classes_{};
};

}  // namespace arlab
