#include "transports/shm/slot_stores.h"

#include <algorithm>
#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace arlab {
namespace {

size_t size_class(size_t bytes) { return std::bit_width(bytes) - 1; }

}  // namespace

void copy_streaming(void* dst, const void* src, size_t bytes) {
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
  _mm_sfence();  // streaming stores are weakly ordered
#else
  std::memcpy(dst, src, bytes);
#endif
}

void copy_with(StoreKind kind, void* dst, const void* src, size_t bytes) {
  if (kind == StoreKind::Streaming) copy_streaming(dst, src, bytes);
  else std::memcpy(dst, src, bytes);
}

StoreKind StoreChooser::choose(size_t bytes) {
  if (bytes < kMinBytes) return StoreKind::Cached;
  SizeClass& c = classes_[size_class(bytes)];
  const double cached = c.seconds_per_byte[0], streaming = c.seconds_per_byte[1];
  // Cached until timed, then streaming until timed, then the faster; every kRetryEvery calls,
  // kRetryCalls of the other kind.
  StoreKind best = cached == 0      ? StoreKind::Cached
                   : streaming == 0 ? StoreKind::Streaming
                   : cached <= streaming ? StoreKind::Cached
                                         : StoreKind::Streaming;
  if (cached != 0 && streaming != 0 && c.calls % kRetryEvery < kRetryCalls)
    best = best == StoreKind::Cached ? StoreKind::Streaming : StoreKind::Cached;
  return best;
}

void StoreChooser::record(StoreKind kind, size_t bytes, double seconds) {
  if (bytes < kMinBytes) return;
  SizeClass& c = classes_[size_class(bytes)];
  c.run = kind == c.previous ? c.run + 1 : 1;
  c.previous = kind;
  // A size's first calls are cold (its buffers' first touches), and the calls right after a
  // switch pay for where the other kind left the lines: neither says what this kind costs.
  if (++c.calls <= kColdCalls || c.run <= kSwitchCalls) return;
  double& average = c.seconds_per_byte[static_cast<size_t>(kind)];
  const double sample = seconds / static_cast<double>(bytes);
  average = average == 0 ? sample : 0.75 * average + 0.25 * sample;
}

double StoreChooser::seconds_per_byte(StoreKind kind, size_t bytes) const {
  return bytes < kMinBytes ? 0 : classes_[size_class(bytes)].seconds_per_byte[static_cast<size_t>(kind)];
}

}  // namespace arlab
