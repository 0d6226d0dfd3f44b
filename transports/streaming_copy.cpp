#include "transports/streaming_copy.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace arlab {

namespace {

// copy_streaming without its fence, for loops that fence once at their end.
void copy_streaming_unfenced(void* dst, const void* src, size_t bytes) {
#if defined(__SSE2__)
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  // Up to the destination's first 16-byte boundary with memcpy, then a line (64 bytes) per
  // step with streaming stores, the tail with memcpy again.
  const size_t head = std::min(bytes, (16 - reinterpret_cast<uintptr_t>(d) % 16) % 16);
  std::memcpy(d, s, head);
  size_t i = head;
  for (; i + 64 <= bytes; i += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 32));
    const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 48), e);
  }
  std::memcpy(d + i, s + i, bytes - i);
#else
  std::memcpy(dst, src, bytes);
#endif
}

void store_fence() {
#if defined(__SSE2__)
  _mm_sfence();  // streaming stores are weakly ordered
#endif
}

}  // namespace

void copy_streaming(void* dst, const void* src, size_t bytes) {
  copy_streaming_unfenced(dst, src, bytes);
  store_fence();
}

void StreamingReducer::reduce(CombineMany combine, const void* const* sources, int k, void* cached,
                              void* const* streamed, int nstreamed, size_t count, size_t element_size) {
  const size_t tile = kTileBytes / element_size;
  if (at_.size() < static_cast<size_t>(k)) at_.resize(static_cast<size_t>(k));
  // Tile by tile: the k sources' tile reduced into the cached destination (or tile_), then
  // streamed from there into every streamed destination.
  for (size_t e = 0; e < count; e += tile) {
    const size_t len = std::min(tile, count - e), offset = e * element_size;
    for (int j = 0; j < k; ++j) at_[j] = static_cast<const char*>(sources[j]) + offset;
    char* reduced = cached ? static_cast<char*>(cached) + offset : tile_.data();
    combine(reduced, at_.data(), k, len);
    for (int j = 0; j < nstreamed; ++j)
      copy_streaming_unfenced(static_cast<char*>(streamed[j]) + offset, reduced, len * element_size);
  }
  store_fence();
}

}  // namespace arlab
