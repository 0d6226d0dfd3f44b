// The reducer table. Each entry is one instantiation of reduce_loop<Element, Op>: a plain
// elementwise loop over loaded values that GCC vectorises at -O2/-O3 (checked with
// -fopt-info-vec; see README "Reducer throughput").
#include "algorithms/reducers.h"

#include <array>
#include <type_traits>

#include "algorithms/half.h"

namespace arlab {
namespace {

// How an element is loaded into the type the arithmetic runs in, and stored back.
template <class T>
struct Element {
  using Compute = T;
  static Compute load(T v) { return v; }
  static T store(Compute c) { return c; }
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
};

// Integer sum and product in unsigned arithmetic: wrap-around, never signed overflow.
template <class C>
C wrapping_add(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    using U = std::make_unsigned_t<C>;
    return static_cast<C>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <class C>
C wrapping_mul(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    using U = std::conditional_t<(sizeof(C) < sizeof(unsigned)), unsigned, std::make_unsigned_t<C>>;
    return static_cast<C>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return a * b;
  }
}

struct Sum {
  template <class C> static C apply(C a, C b) { return wrapping_add(a, b); }
};
struct Prod {
  template <class C> static C apply(C a, C b) { return wrapping_mul(a, b); }
};
struct Min {
  template <class C> static C apply(C a, C b) { return b < a ? b : a; }
};
struct Max {
  template <class C> static C apply(C a, C b) { return a < b ? b : a; }
};

template <class T, class Op>
void reduce_loop(void* dst, const void* a, const void* b, size_t count) {
  T* d = static_cast<T*>(dst);
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  using E = Element<T>;
  for (size_t i = 0; i < count; ++i) d[i] = E::store(Op::apply(E::load(x[i]), E::load(y[i])));
}

template <class T>
void divide_loop(void* buffer, size_t count, int divisor) {
  T* d = static_cast<T*>(buffer);
  using E = Element<T>;
  using C = typename E::Compute;
  const C n = static_cast<C>(divisor);
  for (size_t i = 0; i < count; ++i) d[i] = E::store(static_cast<C>(E::load(d[i]) / n));
}

template <class T>
constexpr std::array<ReduceFn, 5> row() {
  return {reduce_loop<T, Sum>, reduce_loop<T, Prod>, reduce_loop<T, Min>, reduce_loop<T, Max>, reduce_loop<T, Sum>};
}

// Indexed by DataType, then RedOp (the enums' order).
constexpr std::array<std::array<ReduceFn, 5>, 10> kReducers = {
    row<int8_t>(),  row<uint8_t>(),  row<int32_t>(),  row<uint32_t>(), row<int64_t>(),
    row<uint64_t>(), row<float16>(), row<bfloat16>(), row<float>(),    row<double>()};

constexpr std::array<DivideFn, 10> kDividers = {
    divide_loop<int8_t>,  divide_loop<uint8_t>, divide_loop<int32_t>,  divide_loop<uint32_t>, divide_loop<int64_t>,
    divide_loop<uint64_t>, divide_loop<float16>, divide_loop<bfloat16>, divide_loop<float>,    divide_loop<double>};

}  // namespace

ReduceFn reducer(DataType type, RedOp op) { return kReducers[static_cast<size_t>(type)][static_cast<size_t>(op)]; }

void divide_by_ranks(DataType type, void* buffer, size_t count, int divisor) {
  kDividers[static_cast<size_t>(type)](buffer, count, divisor);
}

}  // namespace arlab
