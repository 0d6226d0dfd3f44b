#include "harness/devices.h"

#include <chrono>
#include <cstring>
#include <new>

#include "algorithms/named_table.h"
#include "algorithms/reducers.h"
#include "arlab_config.h"
#include "harness/check_data.h"
#include "transports/transport.h"

namespace arlab {
namespace {

// Host memory, the CPU reducers, and the wall clock. Everything completes before it returns.
class HostDevice final : public Device {
 public:
  std::string name() const override { return "host"; }
  bool is_gpu() const override { return false; }
  bool asynchronous() const override { return false; }

  void* allocate(size_t bytes) override { return ::operator new(bytes, kAlignment); }
  void release(void* buffer) noexcept override { ::operator delete(buffer, kAlignment); }
  void upload(void* dst, const void* src, size_t bytes) override { std::memcpy(dst, src, bytes); }
  void download(void* dst, const void* src, size_t bytes) override { std::memcpy(dst, src, bytes); }
  void fill_bytes(void* dst, int byte, size_t bytes) override { std::memset(dst, byte, bytes); }

  void reduce(DataType type, RedOp op, void* dst, const void* a, const void* b, size_t count) override {
    reducer(type, op)(dst, a, b, count);
  }
  void copy(void* dst, const void* src, size_t bytes) override {
    if (dst != src) std::memcpy(dst, src, bytes);
  }
  void divide(DataType type, void* buffer, size_t count, int divisor) override {
    divide_by_ranks(type, buffer, count, divisor);
  }
  uint64_t count_mismatches(DataType type, const void* got, const void* expected, size_t count,
                            double rel_tolerance) override {
    return count_wrong(type, got, expected, count, rel_tolerance);
  }
  void synchronize() override {}

  void timer_start() override { start_ = std::chrono::steady_clock::now(); }
  double timer_stop_us() override {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  static constexpr std::align_val_t kAlignment{64};
  std::chrono::steady_clock::time_point start_;
};

std::unique_ptr<Device> host(const DeviceRequest&) { return make_host_device(); }

#if ARLAB_HAVE_CUDA
std::unique_ptr<Device> cuda(const DeviceRequest& r) { return make_cuda_device(r.local_rank, r.local_size, r.allow_sharing); }
#endif

}  // namespace

std::unique_ptr<Device> make_host_device() { return std::make_unique<HostDevice>(); }

const std::vector<DeviceInfo>& devices() {
  static const std::vector<DeviceInfo> table = {
      {"host", "host memory, CPU reducers", host, ""},
#if ARLAB_HAVE_CUDA
      {"cuda", "cudaMalloc on the GPU of the local rank, CUDA reducers on a stream, CUDA-event timing", cuda, ""},
#else
      {"cuda", "cudaMalloc on the GPU of the local rank", nullptr,
       "not built: the CUDA toolkit was not found (configure with -DARLAB_WITH_CUDA=ON)"},
#endif
  };
  return table;
}

const DeviceInfo* find_device(std::string_view name) { return find_named(devices(), name); }

std::string device_names() { return join_names(devices()); }

std::unique_ptr<Device> make_device(std::string_view name, const DeviceRequest& request) {
  const DeviceInfo* d = find_device(name);
  if (!d) throw TransportUnavailable("--device: unknown device '" + std::string(name) + "' (accepted: " + device_names() + ")");
  if (!d->make) throw TransportUnavailable("--device " + std::string(name) + ": " + std::string(d->unavailable_reason));
  return d->make(request);
}

}  // namespace arlab
