// Reduction, division and checking kernels for every datatype of the lab. One grid-stride
// loop per kernel; the reduce kernel moves 16 bytes per load when all three pointers are
// 16-byte aligned and falls back to one element per load otherwise (and for the tail).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "algorithms/reduce_ops.h"
#include "transports/cuda/cuda_kernels.h"

namespace arlab::cuda {
namespace {

struct Half {
  uint16_t bits;
};
struct BFloat {
  uint16_t bits;
};

// How an element is loaded into the type the arithmetic runs in, and stored back; the same
// rule as algorithms/reducers.cpp (NaN becomes sign | 0x7e00 for float16, bits | 0x40 for bfloat16).
template <class T>
struct Element {
  using Compute = T;
  __device__ static T load(T v) { return v; }
  __device__ static T store(T c) { return c; }
};
template <>
struct Element<Half> {
  using Compute = float;
  __device__ static float load(Half v) { return __half2float(__ushort_as_half(v.bits)); }
  __device__ static Half store(float c) {
    if (isnan(c)) return {static_cast<uint16_t>(((__float_as_uint(c) >> 16) & 0x8000u) | 0x7e00u)};
    return {__half_as_ushort(__float2half_rn(c))};
  }
};
template <>
struct Element<BFloat> {
  using Compute = float;
  __device__ static float load(BFloat v) { return __uint_as_float(static_cast<uint32_t>(v.bits) << 16); }
  __device__ static BFloat store(float c) {
    const uint32_t u = __float_as_uint(c);
    if ((u & 0x7fffffffu) > 0x7f800000u) return {static_cast<uint16_t>((u >> 16) | 0x40u)};
    return {static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16)};
  }
};

using reduce_ops::Max;
using reduce_ops::Min;
using reduce_ops::Prod;
using reduce_ops::Sum;

template <class T, class Op>
__device__ T combine(T x, T y) {
  using E = Element<T>;
  return E::store(Op::apply(E::load(x), E::load(y)));
}

// 16 bytes of elements, loaded and stored as one uint4.
template <class T>
struct alignas(16) Pack {
  static constexpr int kCount = 16 / sizeof(T);
  T v[kCount];
};

// Vector part: packs [0, packs) as 16-byte loads; scalar part: elements [first_scalar, count).
template <class T, class Op>
__global__ void reduce_kernel(T* dst, const T* a, const T* b, size_t packs, size_t first_scalar, size_t count) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t start = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  auto* pd = reinterpret_cast<Pack<T>*>(dst);
  const auto* pa = reinterpret_cast<const Pack<T>*>(a);
  const auto* pb = reinterpret_cast<const Pack<T>*>(b);
  for (size_t i = start; i < packs; i += stride) {
    const Pack<T> x = pa[i], y = pb[i];
    Pack<T> out;
#pragma unroll
    for (int k = 0; k < Pack<T>::kCount; ++k) out.v[k] = combine<T, Op>(x.v[k], y.v[k]);
    pd[i] = out;
  }
  for (size_t i = first_scalar + start; i < count; i += stride) dst[i] = combine<T, Op>(a[i], b[i]);
}

template <class T>
__global__ void divide_kernel(T* buffer, size_t count, int divisor) {
  using E = Element<T>;
  using C = typename E::Compute;
  const C n = static_cast<C>(divisor);
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    buffer[i] = E::store(static_cast<C>(E::load(buffer[i]) / n));
}

template <class T>
__device__ double as_double(T v) {
  return static_cast<double>(Element<T>::load(v));
}

// Counts per block in shared memory, then one atomic add per block.
template <class T>
__global__ void mismatch_kernel(const T* got, const T* expected, size_t count, double tol, unsigned long long* counter) {
  __shared__ unsigned long long block_count;
  if (threadIdx.x == 0) block_count = 0;
  __syncthreads();
  unsigned long long bad = 0;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    if (tol == 0) {
      const auto* g = reinterpret_cast<const unsigned char*>(got + i);
      const auto* e = reinterpret_cast<const unsigned char*>(expected + i);
      bool same = true;
      for (size_t k = 0; k < sizeof(T); ++k) same &= g[k] == e[k];
      bad += !same;
    } else {
      const double g = as_double(got[i]), e = as_double(expected[i]);
      if (g != e) bad += !(fabs(g - e) <= tol * fmax(1.0, fabs(e)));
    }
  }
  if (bad) atomicAdd(&block_count, bad);
  __syncthreads();
  if (threadIdx.x == 0 && block_count) atomicAdd(counter, block_count);
}

constexpr int kThreads = 256;
constexpr size_t kMaxBlocks = 4096;

unsigned blocks_for(size_t work) {
  const size_t blocks = (work + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks > kMaxBlocks ? kMaxBlocks : blocks);
}

template <class T, class Op>
cudaError_t reduce_as(void* dst, const void* a, const void* b, size_t count, cudaStream_t stream) {
  const auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  const size_t packs = aligned(dst) && aligned(a) && aligned(b) ? count / Pack<T>::kCount : 0;
  const size_t first_scalar = packs * Pack<T>::kCount;
  reduce_kernel<T, Op><<<blocks_for(packs + (count - first_scalar)), kThreads, 0, stream>>>(
      static_cast<T*>(dst), static_cast<const T*>(a), static_cast<const T*>(b), packs, first_scalar, count);
  return cudaGetLastError();
}

// Calls fn with a value of the element type that `type` names.
template <class Fn>
cudaError_t with_element_type(DataType type, Fn&& fn) {
  switch (type) {
    case DataType::Int8: return fn(int8_t{});
    case DataType::Uint8: return fn(uint8_t{});
    case DataType::Int32: return fn(int32_t{});
    case DataType::Uint32: return fn(uint32_t{});
    case DataType::Int64: return fn(int64_t{});
    case DataType::Uint64: return fn(uint64_t{});
    case DataType::Float16: return fn(Half{});
    case DataType::Bfloat16: return fn(BFloat{});
    case DataType::Float32: return fn(float{});
    case DataType::Float64: return fn(double{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t launch_reduce(DataType type, RedOp op, void* dst, const void* a, const void* b, size_t count,
                          cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  return with_element_type(type, [&](auto element) {
    using T = decltype(element);
    switch (op) {
      case RedOp::Sum:
      case RedOp::Avg: return reduce_as<T, Sum>(dst, a, b, count, stream);
      case RedOp::Prod: return reduce_as<T, Prod>(dst, a, b, count, stream);
      case RedOp::Min: return reduce_as<T, Min>(dst, a, b, count, stream);
      case RedOp::Max: return reduce_as<T, Max>(dst, a, b, count, stream);
    }
    return cudaErrorInvalidValue;
  });
}

cudaError_t launch_divide(DataType type, void* buffer, size_t count, int divisor, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  return with_element_type(type, [&](auto element) {
    using T = decltype(element);
    divide_kernel<T><<<blocks_for(count), kThreads, 0, stream>>>(static_cast<T*>(buffer), count, divisor);
    return cudaGetLastError();
  });
}

cudaError_t launch_count_mismatches(DataType type, const void* got, const void* expected, size_t count,
                                    double rel_tolerance, unsigned long long* counter, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  return with_element_type(type, [&](auto element) {
    using T = decltype(element);
    mismatch_kernel<T><<<blocks_for(count), kThreads, 0, stream>>>(static_cast<const T*>(got),
                                                                    static_cast<const T*>(expected), count,
                                                                    rel_tolerance, counter);
    return cudaGetLastError();
  });
}

}  // namespace arlab::cuda
