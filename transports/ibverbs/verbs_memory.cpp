#include "transports/ibverbs/verbs_memory.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "transports/transport.h"

namespace arlab::verbs {
namespace {

// cuMemGetHandleForAddressRange(int* fd, CUdeviceptr, size_t, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD = 1,
// flags) from the driver library, found at run time.
using GetHandleFn = int (*)(void* handle, unsigned long long dptr, size_t size, int type, unsigned long long flags);

GetHandleFn driver_get_handle(std::string& why_not) {
  static void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver) {
    why_not = "libcuda.so.1 not loadable";
    return nullptr;
  }
  auto fn = reinterpret_cast<GetHandleFn>(dlsym(driver, "cuMemGetHandleForAddressRange"));
  if (!fn) why_not = "the CUDA driver has no cuMemGetHandleForAddressRange (driver older than CUDA 11.7)";
  return fn;
}

// GPU memory through a dma-buf: the range must be page-aligned, so register the enclosing
// pages and say where ours starts inside them.
ibv_mr* register_dmabuf(ibv_pd* pd, void* address, size_t bytes, int access, std::string& why_not) {
  GetHandleFn get_handle = driver_get_handle(why_not);
  if (!get_handle) return nullptr;
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = reinterpret_cast<uintptr_t>(address) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(address) + bytes + page - 1) & ~(page - 1);
  int fd = -1;
  const int rc = get_handle(&fd, begin, end - begin, /*CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD=*/1, 0);
  if (rc != 0 || fd < 0) {
    why_not = "cuMemGetHandleForAddressRange(dma-buf) returned CUresult " + std::to_string(rc);
    return nullptr;
  }
  ibv_mr* mr = ibv_reg_dmabuf_mr(pd, reinterpret_cast<uintptr_t>(address) - begin, bytes,
                                 reinterpret_cast<uintptr_t>(address), fd, access);
  const int error = errno;
  close(fd);
  if (!mr) why_not = std::string("ibv_reg_dmabuf_mr failed: ") + std::strerror(error);
  return mr;
}

}  // namespace

Registration register_memory(ibv_pd* pd, void* address, size_t bytes, int access, bool gpu_memory) {
  const std::string range = std::to_string(bytes) + " bytes at " + std::to_string(reinterpret_cast<uintptr_t>(address));
  if (!gpu_memory) {
    ibv_mr* mr = ibv_reg_mr(pd, address, bytes, access);
    if (!mr) throw TransportError("ibv_reg_mr(" + range + ") failed: " + std::strerror(errno));
    return {mr, "host memory"};
  }
  std::string dmabuf_failure;
  if (ibv_mr* mr = register_dmabuf(pd, address, bytes, access, dmabuf_failure)) return {mr, "GPU memory via dma-buf"};
  if (ibv_mr* mr = ibv_reg_mr(pd, address, bytes, access)) return {mr, "GPU memory via nvidia-peermem"};
  throw TransportError("GPUDirect registration of " + range + " failed: dma-buf: " + dmabuf_failure +
                       "; ibv_reg_mr on the device pointer: " + std::strerror(errno) +
                       " (is the nvidia-peermem module loaded?)");
}

}  // namespace arlab::verbs
