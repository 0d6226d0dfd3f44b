// Copies in host memory with streaming (non-temporal) stores: each line goes straight to memory,
// without the read of its old contents that a cached store makes first (read for ownership),
// and without taking it from a core that holds it. Used where that read is the cost: slots a
// peer on another core reads (shm/slot_stores.h), outputs larger than the caches (shm), and the
// roofline's loops (harness/roofline.h), which must allow arlab's own stores.
//
// Measured on the build VM (one core, buffers of the same size, best of five): 64 MiB 11.7 GB/s
// streaming against memcpy's 5.9; 4 MiB 16.7 against 13.3; 1 MiB 20.3 against 24.2; 256 KiB
// 20.3 against 36.7. So streaming stores pay where the destination is not in the caches and
// would not stay there, and lose where it is.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

namespace arlab {

// Streaming stores where the CPU has them (SSE2 on x86-64), else memcpy. Ends with a store
// fence, so a flag released after it is seen after the data.
void copy_streaming(void* dst, const void* src, size_t bytes);

// A reduction whose result goes to memory with streaming stores, in tiles that stay in L1:
// each tile of the k sources is reduced (into the first, cached destination where there is one,
// else into a tile of its own) and streamed into every other destination before the next tile
// is read, and one store fence ends the call. So the loads of the sources and the streaming
// stores overlap, and the core never waits for its stores to drain in between.
//
// Measured at N = 2 on the 2-vCPU AMD EPYC Zen 4 VM (both cores at once, each reducing its half
// of two 64 MiB inputs into two outputs, interleaved, best of 12): tiles of 512 B to 2 KiB 77-81 %
// of the roofline's bound, 4 KiB 59-65 %, reducing 64 KiB pieces and then streaming them 51-53 %,
// and a store fence after each 2 KiB tile's stores 52-54 %.
class StreamingReducer {
 public:
  static constexpr size_t kTileBytes = 1 << 10;
  using CombineMany = void (*)(void* dst, const void* const* sources, int k, size_t count);

  // Room for max_sources sources (the tile's source pointers, kept here so that a call of no
  // more does not allocate).
  explicit StreamingReducer(int max_sources = 4) : at_(static_cast<size_t>(max_sources)) {}

  // For every destination d: d[i] = sources[0][i] op ... op sources[k-1][i], i < count (the bits
  // of `combine` over those k sources). `cached`, if not null, takes cached stores (and is the
  // tile the others are streamed from); `streamed` take streaming stores. A destination may be
  // a source itself (in place): each tile is read before it is written.
  void reduce(CombineMany combine, const void* const* sources, int k, void* cached, void* const* streamed,
              int nstreamed, size_t count, size_t element_size);

 private:
  alignas(64) std::array<char, kTileBytes> tile_{};
  std::vector<const void*> at_;
};

}  // namespace arlab
