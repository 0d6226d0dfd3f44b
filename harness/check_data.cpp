#include "harness/check_data.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "algorithms/half.h"
#include "algorithms/reducers.h"

namespace arlab {
namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The value rank `rank` contributes at element i, as a double; exact in every datatype.
double value(RedOp op, bool is_signed, uint64_t h) {
  switch (op) {
    case RedOp::Sum:
    case RedOp::Avg: return is_signed ? static_cast<double>(h % 9) - 4 : static_cast<double>(h % 8);
    case RedOp::Prod: return h % 4 == 0 ? 2 : 1;
    case RedOp::Min:
    case RedOp::Max: return is_signed ? static_cast<double>(h % 201) - 100 : static_cast<double>(h % 201);
  }
  return 0;
}

template <class T>
void store(void* buffer, uint64_t i, double v) {
  if constexpr (std::is_same_v<T, float16>) static_cast<float16*>(buffer)[i] = {float_to_half(static_cast<float>(v))};
  else if constexpr (std::is_same_v<T, bfloat16>) static_cast<bfloat16*>(buffer)[i] = {float_to_bfloat16(static_cast<float>(v))};
  else static_cast<T*>(buffer)[i] = static_cast<T>(v);
}

template <class T>
double load(const void* buffer, uint64_t i) {
  if constexpr (std::is_same_v<T, float16>) return half_to_float(static_cast<const float16*>(buffer)[i].bits);
  else if constexpr (std::is_same_v<T, bfloat16>) return bfloat16_to_float(static_cast<const bfloat16*>(buffer)[i].bits);
  else return static_cast<double>(static_cast<const T*>(buffer)[i]);
}

template <class T>
void fill(RedOp op, void* buffer, uint64_t count, int rank, uint64_t seed) {
  const bool is_signed = !std::is_unsigned_v<T>;
  const uint64_t base = splitmix64(seed ^ (static_cast<uint64_t>(rank) << 40));
  for (uint64_t i = 0; i < count; ++i) store<T>(buffer, i, value(op, is_signed, splitmix64(base + i)));
}

}  // namespace

double check_tolerance(DataType type, int nranks) {
  switch (type) {
    case DataType::Float16: return std::ldexp(1.0, -10) * nranks;
    case DataType::Bfloat16: return std::ldexp(1.0, -7) * nranks;
    case DataType::Float32: return std::ldexp(1.0, -23) * nranks;
    case DataType::Float64: return std::ldexp(1.0, -52) * nranks;
    default: return 0;
  }
}

namespace {

template <class T>
uint64_t wrong(const void* got, const void* expected, uint64_t count, double tol) {
  uint64_t bad = 0;
  if (tol == 0) {  // integers: bit for bit
    const T* g = static_cast<const T*>(got);
    const T* e = static_cast<const T*>(expected);
    for (uint64_t i = 0; i < count; ++i) bad += std::memcmp(&g[i], &e[i], sizeof(T)) != 0;
    return bad;
  }
  for (uint64_t i = 0; i < count; ++i) {
    const double g = load<T>(got, i), e = load<T>(expected, i);
    if (g == e) continue;
    bad += !(std::fabs(g - e) <= tol * std::max(1.0, std::fabs(e)));
  }
  return bad;
}

template <class Fn>
auto dispatch(DataType type, Fn&& fn) {
  switch (type) {
    case DataType::Int8: return fn(int8_t{});
    case DataType::Uint8: return fn(uint8_t{});
    case DataType::Int32: return fn(int32_t{});
    case DataType::Uint32: return fn(uint32_t{});
    case DataType::Int64: return fn(int64_t{});
    case DataType::Uint64: return fn(uint64_t{});
    case DataType::Float16: return fn(float16{});
    case DataType::Bfloat16: return fn(bfloat16{});
    case DataType::Float32: return fn(float{});
    case DataType::Float64: break;
  }
  return fn(double{});
}

}  // namespace

void fill_input(DataType type, RedOp op, void* buffer, uint64_t count, int rank, uint64_t seed) {
  dispatch(type, [&](auto t) { fill<decltype(t)>(op, buffer, count, rank, seed); });
}

void fill_expected(DataType type, RedOp op, void* expected, void* scratch, uint64_t count, int nranks, uint64_t seed) {
  fill_input(type, op, expected, count, 0, seed);
  const ReduceFn reduce = reducer(type, op);
  for (int r = 1; r < nranks; ++r) {
    fill_input(type, op, scratch, count, r, seed);
    reduce(expected, expected, scratch, count);
  }
  if (op == RedOp::Avg) divide_by_ranks(type, expected, count, nranks);
}

uint64_t count_wrong(DataType type, const void* got, const void* expected, uint64_t count, double tol) {
  return dispatch(type, [&](auto t) { return wrong<decltype(t)>(got, expected, count, tol); });
}

void corrupt_one_element(DataType type, void* buffer, uint64_t count) {
  if (count == 0) return;
  const size_t size = info(type).size;
  unsigned char* element = static_cast<unsigned char*>(buffer) + (count / 2) * size;
  element[size - 1] ^= 0x40;  // flips a high bit: an exponent bit for floats, a large change for ints
}

}  // namespace arlab
