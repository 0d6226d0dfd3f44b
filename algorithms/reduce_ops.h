// The arithmetic of the four reductions, shared by the CPU reducers (reducers.cpp) and the
// CUDA kernels (transports/cuda/cuda_kernels.cu), so that both follow one rule: integers
// wrap around on overflow (computed in unsigned arithmetic, never signed overflow), min and
// max keep the first operand on ties. (float16 / bfloat16 are loaded into float before these
// run, each side with its own conversions.)
#pragma once

#include <type_traits>

#if defined(__CUDACC__)
#define ARLAB_HOST_DEVICE __host__ __device__
#else
#define ARLAB_HOST_DEVICE
#endif

namespace arlab::reduce_ops {

template <class C>
ARLAB_HOST_DEVICE inline C wrapping_add(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    using U = std::make_unsigned_t<C>;
    return static_cast<C>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

// Types narrower than int would be promoted to (signed) int: multiply them as unsigned.
template <class C>
ARLAB_HOST_DEVICE inline C wrapping_mul(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    using U = std::conditional_t<(sizeof(C) < sizeof(unsigned)), unsigned, std::make_unsigned_t<C>>;
    return static_cast<C>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return a * b;
  }
}

struct Sum {
  template <class C> ARLAB_HOST_DEVICE static C apply(C a, C b) { return wrapping_add(a, b); }
};
struct Prod {
  template <class C> ARLAB_HOST_DEVICE static C apply(C a, C b) { return wrapping_mul(a, b); }
};
struct Min {
  template <class C> ARLAB_HOST_DEVICE static C apply(C a, C b) { return b < a ? b : a; }
};
struct Max {
  template <class C> ARLAB_HOST_DEVICE static C apply(C a, C b) { return a < b ? b : a; }
};

}  // namespace arlab::reduce_ops
