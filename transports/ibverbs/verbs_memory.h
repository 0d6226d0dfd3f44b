// Memory registration for the verbs transport. Host memory: ibv_reg_mr. GPU memory
// (GPUDirect RDMA): a dma-buf file descriptor for the range from the CUDA driver
// (cuMemGetHandleForAddressRange) handed to ibv_reg_dmabuf_mr; where that fails, ibv_reg_mr on
// the device pointer itself, which works when the nvidia-peermem kernel module is loaded.
// The CUDA driver is opened at run time (dlopen), so the binary needs no GPU driver to start.
#pragma once

#include <infiniband/verbs.h>

#include <string>

namespace arlab::verbs {

struct Registration {
  ibv_mr* mr = nullptr;
  std::string how;  // "host memory", "GPU memory via dma-buf", "GPU memory via nvidia-peermem"
};

// Throws TransportError naming every way tried and why it failed.
Registration register_memory(ibv_pd* pd, void* address, size_t bytes, int access, bool gpu_memory);

}  // namespace arlab::verbs
