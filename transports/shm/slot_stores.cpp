#include "transports/shm/slot_stores.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "transports/cpu_caches.h"

namespace arlab {
namespace {

size_t size_class(size_t bytes) { return std::bit_width(bytes) - 1; }

}  // namespace

void copy_with(StoreKind kind, void* dst, const void* src, size_t bytes) {
  if (kind == StoreKind::Streaming) copy_streaming(dst, src, bytes);
  else std::memcpy(dst, src, bytes);
}

OutputStoresSetting output_stores_setting() {
  static const OutputStoresSetting setting = [] {
    const char* value = std::getenv("ARLAB_SHM_OUTPUT_STORES");
    const std::string v = value ? value : "auto";
    if (v == "auto") return OutputStoresSetting::Auto;
    if (v == "cached") return OutputStoresSetting::Cached;
    if (v == "streaming") return OutputStoresSetting::Streaming;
    throw std::invalid_argument("ARLAB_SHM_OUTPUT_STORES='" + v + "': expected auto, cached or streaming");
  }();
  return setting;
}

StoreKind output_stores(size_t message_bytes, int ranks, bool in_place, OutputStoresSetting setting,
                        size_t last_level_cache_bytes) {
  if (setting != OutputStoresSetting::Auto)
    return setting == OutputStoresSetting::Streaming ? StoreKind::Streaming : StoreKind::Cached;
  if (in_place) return StoreKind::Cached;
  if (last_level_cache_bytes == 0) {
    static const size_t machine = [] {
      const long l3 = cache_bytes(3);
      return l3 > 0 ? static_cast<size_t>(l3) : size_t{32} << 20;
    }();
    last_level_cache_bytes = machine;
  }
  const size_t footprint = static_cast<size_t>(std::max(1, ranks)) * 2 * message_bytes;
  return footprint > last_level_cache_bytes / 2 ? StoreKind::Streaming : StoreKind::Cached;
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
  // Streaming stores won the first comparison: cached ones may have been timed in a moment
  // when the cores were apart, so their times go and choose() takes them again, once.
  if (!c.confirmed && c.kinds[0].count >= kTimed && c.kinds[1].count >= kTimed) {
    c.confirmed = true;
    if (c.faster() == StoreKind::Streaming) c.kinds[0] = Window{};
  }
}

double StoreChooser::seconds_per_byte(StoreKind kind, size_t bytes) const {
  return bytes < kMinBytes ? 0 : classes_[size_class(bytes)].kinds[static_cast<size_t>(kind)].least();
}

}  // namespace arlab
