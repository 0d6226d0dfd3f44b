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

void StoreChooser::Window::add(double sample) {
  samples[next] = sample;
  next = (next + 1) % kWindow;
  count = std::min(count + 1, kWindow);
}

double StoreChooser::Window::least() const {
  return count < kTimed ? 0 : *std::min_element(samples.begin(), samples.begin() + count);
}

StoreKind StoreChooser::SizeClass::faster() const {
  return kinds[1].least() < kinds[0].least() ? StoreKind::Streaming : StoreKind::Cached;
}

StoreKind StoreChooser::choose(size_t bytes) {
  if (bytes < kMinBytes) return StoreKind::Cached;
  const SizeClass& c = classes_[size_class(bytes)];
  // Cached until timed enough, then streaming until timed enough, then the faster.
  if (c.kinds[0].count < kTimed) return StoreKind::Cached;
  if (c.kinds[1].count < kTimed) return StoreKind::Streaming;
  return c.faster();
}

void StoreChooser::record(StoreKind kind, size_t bytes, double seconds) {
  if (bytes < kMinBytes) return;
  SizeClass& c = classes_[size_class(bytes)];
  c.run = kind == c.previous ? c.run + 1 : 1;
  c.previous = kind;
  // Every kRetryEvery calls the slower kind's times go, so choose() times it again.
  if (++c.calls % kRetryEvery == 0 && c.kinds[0].count >= kTimed && c.kinds[1].count >= kTimed)
    c.kinds[c.faster() == StoreKind::Cached ? 1 : 0] = Window{};
  // A size's first calls are cold (its buffers' first touches), and the calls right after a
  // switch pay for where the other kind left the lines: neither says what this kind costs.
  if (c.calls <= kColdCalls || c.run <= kSwitchCalls) return;
  c.kinds[static_cast<size_t>(kind)].add(seconds / static_cast<double>(bytes));
}

double StoreChooser::seconds_per_byte(StoreKind kind, size_t bytes) const {
  return bytes < kMinBytes ? 0 : classes_[size_class(bytes)].kinds[static_cast<size_t>(kind)].least();
}

}  // namespace arlab
