// The reducer table. Each entry is one instantiation of reduce_loop<Element, Op>: a plain
// elementwise loop over loaded values that GCC vectorises at -O2/-O3 (checked with
// -fopt-info-vec and in the generated code; see README "Reducer throughput").
//
// On x86-64 every entry is compiled three times (GCC target_clones): for the baseline
// (SSE2), x86-64-v3 (AVX2) and x86-64-v4 (AVX-512); the loader picks the best version the CPU
// has, so one portable binary runs AVX2 / AVX-512 loops where they exist. 64-bit integer
// product, min and max only vectorise in the v3 and v4 versions: SSE2 has no 64-bit multiply
// or compare.
#include "algorithms/reducers.h"

#include <algorithm>
#include <bit>
#include <array>
#include <cstring>
#include <type_traits>

#include "algorithms/half.h"
#include "algorithms/reduce_ops.h"

namespace arlab {
namespace {

// How an element is loaded into the type the arithmetic runs in, and stored back; round(c)
// is load(store(c)), the value a stored intermediate result would have.
template <class T>
struct Element {
  using Compute = T;
  static Compute load(T v) { return v; }
  static T store(Compute c) { return c; }
  static Compute round(Compute c) { return c; }
};
template <>
struct Element<float16> {
  using Compute = float;
  static float load(float16 v) { return half_to_float(v.bits); }
  static float16 store(float c) { return {float_to_half(c)}; }
};
template <>
struct Element<bfloat16> {
  using Compute = float;
  static float load(bfloat16 v) { return bfloat16_to_float(v.bits); }
  static bfloat16 store(float c) { return {float_to_bfloat16(c)}; }
  // float_to_bfloat16 then back, without narrowing the lanes to 16 bits and widening them again.
  static float round(float c) {
    const uint32_t u = std::bit_cast<uint32_t>(c);
    const uint32_t r = (u & 0x7fffffffu) > 0x7f800000u ? (u & 0xffff0000u) | 0x400000u  // quiet NaN
                                                        : (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
    return std::bit_cast<float>(r);
  }
};

using reduce_ops::Max;
using reduce_ops::Min;
using reduce_ops::Prod;
using reduce_ops::Sum;

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ARLAB_CPU_CLONES __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define ARLAB_CPU_CLONES
#endif

template <class T, class Op>
[[gnu::always_inline]] inline void reduce_loop(void* dst, const void* a, const void* b, size_t count) {
  T* d = static_cast<T*>(dst);
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  using E = Element<T>;
  for (size_t i = 0; i < count; ++i) d[i] = E::store(Op::apply(E::load(x[i]), E::load(y[i])));
}

// dst[i] = ((s0[i] op s1[i]) op s2[i]) op s3[i] for K = 2, 3 or 4 sources in one pass, rounded
// to T after every operation, as K - 1 calls of reduce_loop would (same bits, one store).
template <class T, class Op, int K>
[[gnu::always_inline]] inline void fold_loop(void* dst, const void* const* sources, size_t count) {
  static_assert(K >= 2 && K <= 4);
  using E = Element<T>;
  T* d = static_cast<T*>(dst);
  const T* s0 = static_cast<const T*>(sources[0]);
  const T* s1 = static_cast<const T*>(sources[1]);
  const T* s2 = static_cast<const T*>(sources[K > 2 ? 2 : 1]);
  const T* s3 = static_cast<const T*>(sources[K > 3 ? 3 : 1]);
  for (size_t i = 0; i < count; ++i) {
    typename E::Compute v = Op::apply(E::load(s0[i]), E::load(s1[i]));
    if constexpr (K > 2) v = Op::apply(E::round(v), E::load(s2[i]));
    if constexpr (K > 3) v = Op::apply(E::round(v), E::load(s3[i]));
    d[i] = E::store(v);
  }
}

// k sources into dst: the first pass folds up to four of them, each later pass folds dst with up
// to three more, so every element sees the k - 1 operations in source order.
template <class T, class Op>
[[gnu::always_inline]] inline void fold_many_loop(void* dst, const void* const* sources, int k, size_t count) {
  if constexpr (std::is_same_v<T, float16>) {
    // float16's conversions cost more than its memory traffic (7 GB/s in or out of cache), and
    // the four-source loop measured 0.84x the pairwise one (reducers_bench fold/float16): chain.
    if (k == 1 && dst != sources[0]) std::memcpy(dst, sources[0], count * sizeof(T));
    for (int j = 1; j < k; ++j) reduce_loop<T, Op>(dst, j == 1 ? sources[0] : dst, sources[j], count);
  } else {
    const void* pass[4];
    int used = 0;
    while (used < k) {
      const int first = used == 0 ? 0 : 1;  // later passes start from dst
      if (first == 1) pass[0] = dst;
      const int take = std::min(k - used, 4 - first);
      for (int j = 0; j < take; ++j) pass[first + j] = sources[used + j];
      used += take;
      switch (first + take) {
        case 1: if (dst != pass[0]) std::memcpy(dst, pass[0], count * sizeof(T)); break;  // k == 1
        case 2: fold_loop<T, Op, 2>(dst, pass, count); break;
        case 3: fold_loop<T, Op, 3>(dst, pass, count); break;
        default: fold_loop<T, Op, 4>(dst, pass, count); break;
      }
    }
  }
}

template <class T>
[[gnu::always_inline]] inline void divide_loop(void* buffer, size_t count, int divisor) {
  T* d = static_cast<T*>(buffer);
  using E = Element<T>;
  using C = typename E::Compute;
  const C n = static_cast<C>(divisor);
  for (size_t i = 0; i < count; ++i) d[i] = E::store(static_cast<C>(E::load(d[i]) / n));
}

// GCC clones only plain functions, not template instantiations: one named function per
// (datatype, operation) calls the inlined template loop.
#define ARLAB_REDUCERS(T, tag)                                                                     \
  ARLAB_CPU_CLONES void sum_##tag(void* d, const void* a, const void* b, size_t n) { reduce_loop<T, Sum>(d, a, b, n); }   \
  ARLAB_CPU_CLONES void prod_##tag(void* d, const void* a, const void* b, size_t n) { reduce_loop<T, Prod>(d, a, b, n); } \
  ARLAB_CPU_CLONES void min_##tag(void* d, const void* a, const void* b, size_t n) { reduce_loop<T, Min>(d, a, b, n); }   \
  ARLAB_CPU_CLONES void max_##tag(void* d, const void* a, const void* b, size_t n) { reduce_loop<T, Max>(d, a, b, n); }   \
  ARLAB_CPU_CLONES void divide_##tag(void* buffer, size_t n, int divisor) { divide_loop<T>(buffer, n, divisor); } \
  ARLAB_CPU_CLONES void sum_many_##tag(void* d, const void* const* s, int k, size_t n) { fold_many_loop<T, Sum>(d, s, k, n); }   \
  ARLAB_CPU_CLONES void prod_many_##tag(void* d, const void* const* s, int k, size_t n) { fold_many_loop<T, Prod>(d, s, k, n); } \
  ARLAB_CPU_CLONES void min_many_##tag(void* d, const void* const* s, int k, size_t n) { fold_many_loop<T, Min>(d, s, k, n); }   \
  ARLAB_CPU_CLONES void max_many_##tag(void* d, const void* const* s, int k, size_t n) { fold_many_loop<T, Max>(d, s, k, n); }

ARLAB_REDUCERS(int8_t, int8)
ARLAB_REDUCERS(uint8_t, uint8)
ARLAB_REDUCERS(int32_t, int32)
ARLAB_REDUCERS(uint32_t, uint32)
ARLAB_REDUCERS(int64_t, int64)
ARLAB_REDUCERS(uint64_t, uint64)
ARLAB_REDUCERS(float16, float16)
ARLAB_REDUCERS(bfloat16, bfloat16)
ARLAB_REDUCERS(float, float32)
ARLAB_REDUCERS(double, float64)

// Indexed by DataType, then RedOp (the enums' order); avg reduces as sum.
#define ARLAB_ROW(tag) {sum_##tag, prod_##tag, min_##tag, max_##tag, sum_##tag}
const std::array<std::array<ReduceFn, 5>, 10> kReducers = {{ARLAB_ROW(int8), ARLAB_ROW(uint8), ARLAB_ROW(int32),
                                                            ARLAB_ROW(uint32), ARLAB_ROW(int64), ARLAB_ROW(uint64),
                                                            ARLAB_ROW(float16), ARLAB_ROW(bfloat16), ARLAB_ROW(float32),
                                                            ARLAB_ROW(float64)}};

#define ARLAB_MANY_ROW(tag) {sum_many_##tag, prod_many_##tag, min_many_##tag, max_many_##tag, sum_many_##tag}
const std::array<std::array<ReduceManyFn, 5>, 10> kManyReducers = {
    {ARLAB_MANY_ROW(int8), ARLAB_MANY_ROW(uint8), ARLAB_MANY_ROW(int32), ARLAB_MANY_ROW(uint32),
     ARLAB_MANY_ROW(int64), ARLAB_MANY_ROW(uint64), ARLAB_MANY_ROW(float16), ARLAB_MANY_ROW(bfloat16),
     ARLAB_MANY_ROW(float32), ARLAB_MANY_ROW(float64)}};

const std::array<DivideFn, 10> kDividers = {divide_int8,   divide_uint8,   divide_int32,    divide_uint32,
                                            divide_int64,  divide_uint64,  divide_float16,  divide_bfloat16,
                                            divide_float32, divide_float64};

}  // namespace

ReduceFn reducer(DataType type, RedOp op) { return kReducers[static_cast<size_t>(type)][static_cast<size_t>(op)]; }

ReduceManyFn many_reducer(DataType type, RedOp op) {
  return kManyReducers[static_cast<size_t>(type)][static_cast<size_t>(op)];
}

void divide_by_ranks(DataType type, void* buffer, size_t count, int divisor) {
  kDividers[static_cast<size_t>(type)](buffer, count, divisor);
}

}  // namespace arlab
