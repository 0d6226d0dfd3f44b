// CUDA reducer bandwidth against cudaMemcpy device-to-device of the same size, on one GPU,
// measured side by side in one run (CUDA events, best of several repetitions).
// A reduce reads two buffers and writes one (3 x size bytes of traffic); a copy reads one and
// writes one (2 x size). Printed per datatype: both bandwidths counting that traffic, and
// their ratio, the fraction of the copy engine's memory bandwidth the kernel reaches.
//   cuda_reducer_bandwidth [size, default 256M] [--min-ratio R]
// With --min-ratio the exit status is 1 when any datatype's ratio is below R.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "transports/device.h"
#include "transports/transport.h"

using namespace arlab;

namespace {

// Best (shortest) time of `reps` runs of `iters` calls of fn, in microseconds per call.
template <class Fn>
double best_us(Device& d, int reps, int iters, Fn&& fn) {
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    d.timer_start();
    for (int i = 0; i < iters; ++i) fn();
    best = std::min(best, d.timer_stop_us() / iters);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  size_t bytes = 256u << 20;
  double min_ratio = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--min-ratio") == 0 && i + 1 < argc) min_ratio = std::atof(argv[++i]);
    else bytes = std::strtoull(argv[i], nullptr, 10) << (std::strchr(argv[i], 'M') ? 20 : 0);
  }
  std::unique_ptr<Device> device;
  try {
    device = make_cuda_device(0, 1, false);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuda_reducer_bandwidth: %s\n", e.what());
    return 2;
  }
  DeviceBuffer a(*device, bytes), b(*device, bytes), c(*device, bytes);
  device->fill_bytes(a.data(), 0x3c, bytes);
  device->fill_bytes(b.data(), 0x3c, bytes);
  const double copy_us = best_us(*device, 5, 10, [&] { device->copy(c.data(), a.data(), bytes); });
  const double copy_gbs = 2.0 * bytes / (copy_us * 1e3);
  std::printf("%s, %zu MiB buffers\n", device->name().c_str(), bytes >> 20);
  std::printf("cudaMemcpy device-to-device: %8.1f us  %7.1f GB/s (read + write)\n", copy_us, copy_gbs);
  int below = 0;
  for (const auto& t : datatypes()) {
    const size_t count = bytes / t.size;
    const double us = best_us(*device, 5, 10, [&] { device->reduce(t.type, RedOp::Sum, c.data(), a.data(), b.data(), count); });
    const double gbs = 3.0 * bytes / (us * 1e3);
    const double ratio = gbs / copy_gbs;
    below += ratio < min_ratio;
    std::printf("reduce %-8s sum:          %8.1f us  %7.1f GB/s (2 reads + write)  %.2f x memcpy%s\n",
                std::string(t.name).c_str(), us, gbs, ratio, ratio < min_ratio ? "  BELOW" : "");
  }
  return below ? 1 : 0;
}
