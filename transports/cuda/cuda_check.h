// Turns a failed CUDA runtime call into a TransportError naming the call and its arguments.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "transports/transport.h"

#define ARLAB_CUDA_CHECK(call, what)                                                                       \
  do {                                                                                                     \
    const cudaError_t arlab_cuda_status_ = (call);                                                         \
    if (arlab_cuda_status_ != cudaSuccess)                                                                 \
      throw ::arlab::TransportError(std::string(what) + " failed: " + cudaGetErrorName(arlab_cuda_status_) + \
                                    " (" + cudaGetErrorString(arlab_cuda_status_) + ")");                   \
  } while (0)
