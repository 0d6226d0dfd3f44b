// Where a run's buffers live and where its local work runs: the host (CPU reducers, memcpy)
// or a CUDA GPU (kernels and copies enqueued on one stream, which the NCCL transport shares).
// The executor and `arlab bench` see only this interface; only transports/cuda/ includes
// CUDA's headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "algorithms/datatype.h"

namespace arlab {

class Device {
 public:
  virtual ~Device() = default;

  virtual std::string name() const = 0;  // "host", "cuda:0 NVIDIA H200"
  virtual bool is_gpu() const = 0;
  // Work (reduce, copy, divide) is enqueued and finishes later; synchronize() waits for it.
  virtual bool asynchronous() const = 0;
  // The cudaStream_t that local work goes to (nullptr on the host): a stream-ordered
  // transport enqueues its messages on the same stream, so order needs no host wait.
  virtual void* stream() const { return nullptr; }

  virtual void* allocate(size_t bytes) = 0;
  virtual void release(void* buffer) noexcept = 0;
  // Blocking copies between host memory and this device's memory.
  virtual void upload(void* dst, const void* host_src, size_t bytes) = 0;
  virtual void download(void* host_dst, const void* src, size_t bytes) = 0;
  virtual void fill_bytes(void* dst, int byte, size_t bytes) = 0;

  // dst[i] = a[i] (op) b[i]; avg reduces as sum. dst may equal a or b.
  virtual void reduce(DataType type, RedOp op, void* dst, const void* a, const void* b, size_t count) = 0;
  virtual void copy(void* dst, const void* src, size_t bytes) = 0;
  virtual void divide(DataType type, void* buffer, size_t count, int divisor) = 0;
  // Elements of `got` that differ from `expected` by more than rel_tolerance * max(1, |expected|)
  // (bit for bit when rel_tolerance is 0). Waits for the work enqueued before it.
  virtual uint64_t count_mismatches(DataType type, const void* got, const void* expected, size_t count,
                                    double rel_tolerance) = 0;
  virtual void synchronize() = 0;

  // Times the work enqueued between the two calls (CUDA events on a GPU, the clock on the
  // host); timer_stop_us waits for that work.
  virtual void timer_start() = 0;
  virtual double timer_stop_us() = 0;
};

// A buffer of `bytes` on `device`, released with it.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(Device& device, size_t bytes) : device_(&device), data_(bytes ? device.allocate(bytes) : nullptr), bytes_(bytes) {}
  DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    swap(other);
    return *this;
  }
  ~DeviceBuffer() {
    if (data_) device_->release(data_);
  }
  char* data() const { return static_cast<char*>(data_); }
  size_t bytes() const { return bytes_; }

 private:
  void swap(DeviceBuffer& o) noexcept {
    std::swap(device_, o.device_);
    std::swap(data_, o.data_);
    std::swap(bytes_, o.bytes_);
  }
  Device* device_ = nullptr;
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

// The GPU for this process: local_rank's device, or local_rank modulo the device count when
// allow_sharing. Throws TransportUnavailable (one line) when CUDA is not built, there is no
// GPU, or more local ranks than GPUs without allow_sharing.
std::unique_ptr<Device> make_cuda_device(int local_rank, int local_size, bool allow_sharing);

}  // namespace arlab
