// The CUDA device: buffers from cudaMalloc on the GPU of this rank, local work on one
// non-blocking stream, timing with CUDA events, result checks by a kernel.
#include <cuda_runtime.h>

#include <string>

#include "transports/cuda/cuda_check.h"
#include "transports/cuda/cuda_kernels.h"
#include "transports/device.h"

namespace arlab {
namespace {

class CudaDevice final : public Device {
 public:
  explicit CudaDevice(int ordinal) {
    ARLAB_CUDA_CHECK(cudaSetDevice(ordinal), "cudaSetDevice(" + std::to_string(ordinal) + ")");
    cudaDeviceProp prop{};
    ARLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal), "cudaGetDeviceProperties(" + std::to_string(ordinal) + ")");
    name_ = "cuda:" + std::to_string(ordinal) + " " + prop.name;
    ARLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    ARLAB_CUDA_CHECK(cudaEventCreate(&start_), "cudaEventCreate(start)");
    ARLAB_CUDA_CHECK(cudaEventCreate(&stop_), "cudaEventCreate(stop)");
    ARLAB_CUDA_CHECK(cudaMalloc(&counter_, sizeof(unsigned long long)), "cudaMalloc(8) for the mismatch counter");
  }

  ~CudaDevice() override {
    cudaStreamSynchronize(stream_);
    cudaFree(counter_);
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
    cudaStreamDestroy(stream_);
  }

  std::string name() const override { return name_; }
  bool is_gpu() const override { return true; }
  bool asynchronous() const override { return true; }
  void* stream() const override { return stream_; }

  void* allocate(size_t bytes) override {
    void* p = nullptr;
    ARLAB_CUDA_CHECK(cudaMalloc(&p, bytes), "cudaMalloc(" + std::to_string(bytes) + ") on " + name_);
    return p;
  }
  void release(void* buffer) noexcept override { cudaFree(buffer); }

  void upload(void* dst, const void* src, size_t bytes) override {
    ARLAB_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_),
                     "cudaMemcpyAsync(host to device, " + std::to_string(bytes) + " bytes)");
    synchronize();
  }
  void download(void* dst, const void* src, size_t bytes) override {
    ARLAB_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_),
                     "cudaMemcpyAsync(device to host, " + std::to_string(bytes) + " bytes)");
    synchronize();
  }
  void fill_bytes(void* dst, int byte, size_t bytes) override {
    ARLAB_CUDA_CHECK(cudaMemsetAsync(dst, byte, bytes, stream_), "cudaMemsetAsync(" + std::to_string(bytes) + " bytes)");
  }

  void reduce(DataType type, RedOp op, void* dst, const void* a, const void* b, size_t count) override {
    ARLAB_CUDA_CHECK(cuda::launch_reduce(type, op, dst, a, b, count, stream_),
                     "reduce kernel (" + std::string(info(type).name) + ", " + std::string(arlab::name(op)) + ", " +
                         std::to_string(count) + " elements)");
  }
  void copy(void* dst, const void* src, size_t bytes) override {
    if (dst == src || bytes == 0) return;
    ARLAB_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_),
                     "cudaMemcpyAsync(device to device, " + std::to_string(bytes) + " bytes)");
  }
  void divide(DataType type, void* buffer, size_t count, int divisor) override {
    ARLAB_CUDA_CHECK(cuda::launch_divide(type, buffer, count, divisor, stream_),
                     "divide kernel (" + std::string(info(type).name) + ", " + std::to_string(count) + " elements)");
  }
  uint64_t count_mismatches(DataType type, const void* got, const void* expected, size_t count,
                            double rel_tolerance) override {
    ARLAB_CUDA_CHECK(cudaMemsetAsync(counter_, 0, sizeof(unsigned long long), stream_), "cudaMemsetAsync(counter)");
    ARLAB_CUDA_CHECK(cuda::launch_count_mismatches(type, got, expected, count, rel_tolerance, counter_, stream_),
                     "mismatch kernel (" + std::string(info(type).name) + ", " + std::to_string(count) + " elements)");
    unsigned long long bad = 0;
    download(&bad, counter_, sizeof bad);
    return bad;
  }
  void synchronize() override { ARLAB_CUDA_CHECK(cudaStreamSynchronize(stream_), "cudaStreamSynchronize on " + name_); }

  void timer_start() override { ARLAB_CUDA_CHECK(cudaEventRecord(start_, stream_), "cudaEventRecord(start)"); }
  double timer_stop_us() override {
    ARLAB_CUDA_CHECK(cudaEventRecord(stop_, stream_), "cudaEventRecord(stop)");
    ARLAB_CUDA_CHECK(cudaEventSynchronize(stop_), "cudaEventSynchronize(stop)");
    float ms = 0;
    ARLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return static_cast<double>(ms) * 1e3;
  }

 private:
  std::string name_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  unsigned long long* counter_ = nullptr;
};

}  // namespace

std::unique_ptr<Device> make_cuda_device(int local_rank, int local_size, bool allow_sharing) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0)
    throw TransportUnavailable(std::string("--device cuda: no CUDA GPU on this machine (cudaGetDeviceCount: ") +
                               (status == cudaSuccess ? "0 devices" : cudaGetErrorString(status)) + ")");
  if (local_size > count && !allow_sharing)
    throw TransportUnavailable("--device cuda: " + std::to_string(local_size) + " ranks on this node but " +
                               std::to_string(count) + " GPU(s); start at most " + std::to_string(count) +
                               " ranks per node, or give --allow-gpu-sharing");
  return std::make_unique<CudaDevice>(local_rank % count);
}

}  // namespace arlab
