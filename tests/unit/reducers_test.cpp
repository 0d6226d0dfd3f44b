// Every reducer (datatype x operation) against a straightforward reference, plus the
// float16 / bfloat16 conversions against independent ones: GCC's _Float16 arithmetic and a
// bfloat16 rounding written with doubles.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "algorithms/half.h"
#include "algorithms/reducers.h"

namespace arlab {
namespace {

// Nearest bfloat16 to a float, ties to even, computed with doubles (the independent reference).
uint16_t reference_bfloat16(float f) {
  if (std::isnan(f)) return 0x7fc0;
  const uint32_t u = std::bit_cast<uint32_t>(f);
  const uint16_t down = static_cast<uint16_t>(u >> 16);
  const uint16_t up = static_cast<uint16_t>(down + 1);
  // Past the largest finite value the next step up is infinity, which IEEE rounding treats
  // as the value 2^128.
  const double lo = bfloat16_to_float(down);
  const double hi = (up & 0x7fff) == 0x7f80 ? std::copysign(std::ldexp(1.0, 128), f) : bfloat16_to_float(up);
  const double d_lo = std::fabs(static_cast<double>(f) - lo), d_hi = std::fabs(hi - static_cast<double>(f));
  if ((u & 0xffffu) == 0) return down;
  if (d_lo < d_hi) return down;
  if (d_hi < d_lo) return up;
  return (down & 1) ? up : down;
}

TEST(Half, EveryFloat16ConvertsLikeFloat16Hardware) {
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    const _Float16 h = std::bit_cast<_Float16>(static_cast<uint16_t>(bits));
    const float ours = half_to_float(static_cast<uint16_t>(bits));
    if (std::isnan(static_cast<float>(h))) {
      EXPECT_TRUE(std::isnan(ours)) << bits;
      continue;
    }
    ASSERT_EQ(std::bit_cast<uint32_t>(ours), std::bit_cast<uint32_t>(static_cast<float>(h))) << "bits " << bits;
  }
}

TEST(Half, FloatToFloat16RoundsToNearestEven) {
  std::mt19937 rng(7);
  std::vector<float> samples = {0.f, -0.f, 1.f, 65504.f, 65519.f, 65520.f, 1e-8f, 5.96e-8f, 2.98e-8f, 2.99e-8f,
                                6.1e-5f, INFINITY, -INFINITY, 1.00048828125f /* tie: 1 + 2^-11 */, 1.00146484375f};
  for (int i = 0; i < 2000000; ++i) samples.push_back(std::bit_cast<float>(static_cast<uint32_t>(rng())));
  for (float f : samples) {
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(half_to_float(float_to_half(f))));
      continue;
    }
    const uint16_t expected = std::bit_cast<uint16_t>(static_cast<_Float16>(f));
    ASSERT_EQ(float_to_half(f), expected) << "float " << f;
  }
}

TEST(Half, FloatToBfloat16RoundsToNearestEven) {
  std::mt19937 rng(11);
  std::vector<float> samples = {0.f, -0.f, 1.f, 1.00390625f /* tie */, 1.01171875f /* tie, odd */, 3.4e38f, INFINITY};
  for (int i = 0; i < 2000000; ++i) samples.push_back(std::bit_cast<float>(static_cast<uint32_t>(rng())));
  for (float f : samples) {
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(bfloat16_to_float(float_to_bfloat16(f))));
      continue;
    }
    ASSERT_EQ(float_to_bfloat16(f), reference_bfloat16(f)) << "float " << f;
  }
}

// Reference: one element at a time, in the widest type, wrapping integers explicitly.
template <class T>
T reference_int(RedOp op, T a, T b) {
  using U = std::make_unsigned_t<T>;
  switch (op) {
    case RedOp::Sum:
    case RedOp::Avg: return static_cast<T>(static_cast<U>(static_cast<unsigned __int128>(static_cast<U>(a)) + static_cast<U>(b)));
    case RedOp::Prod: return static_cast<T>(static_cast<U>(static_cast<unsigned __int128>(static_cast<U>(a)) * static_cast<U>(b)));
    case RedOp::Min: return a < b ? a : b;
    case RedOp::Max: return a > b ? a : b;
  }
  return 0;
}

template <class C>
C reference_float(RedOp op, C a, C b) {
  switch (op) {
    case RedOp::Sum:
    case RedOp::Avg: return a + b;
    case RedOp::Prod: return a * b;
    case RedOp::Min: return std::fmin(a, b);
    case RedOp::Max: return std::fmax(a, b);
  }
  return 0;
}

template <class T>
void check_integer_type(DataType type) {
  std::mt19937_64 rng(static_cast<uint64_t>(type) * 31 + 1);
  const size_t n = 1031;  // odd: exercises the vector loops' tails
  std::vector<T> a(n), b(n), out(n);
  for (size_t i = 0; i < n; ++i) a[i] = static_cast<T>(rng()), b[i] = static_cast<T>(rng());
  a[0] = std::numeric_limits<T>::max(), b[0] = 1;  // overflow wraps around
  a[1] = std::numeric_limits<T>::min(), b[1] = -1;
  for (const auto& op : redops()) {
    reducer(type, op.op)(out.data(), a.data(), b.data(), n);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(out[i], reference_int(op.op, a[i], b[i])) << info(type).name << " " << op.name << " element " << i;
  }
  // In place: dst == a.
  std::vector<T> acc = a;
  reducer(type, RedOp::Max)(acc.data(), acc.data(), b.data(), n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(acc[i], reference_int(RedOp::Max, a[i], b[i]));
}

TEST(Reducers, IntegersMatchTheReferenceAndWrapAround) {
  check_integer_type<int8_t>(DataType::Int8);
  check_integer_type<uint8_t>(DataType::Uint8);
  check_integer_type<int32_t>(DataType::Int32);
  check_integer_type<uint32_t>(DataType::Uint32);
  check_integer_type<int64_t>(DataType::Int64);
  check_integer_type<uint64_t>(DataType::Uint64);
  int8_t a = 127, b = 1, out = 0;
  reducer(DataType::Int8, RedOp::Sum)(&out, &a, &b, 1);
  EXPECT_EQ(out, -128);
}

// C: the type the arithmetic runs in (float for float16 / bfloat16 / float32, double for float64).
template <class T, class C>
void check_float_type(DataType type, std::function<T(C)> from, std::function<C(T)> to) {
  std::mt19937 rng(static_cast<unsigned>(type));
  std::uniform_real_distribution<float> dist(-100.f, 100.f);
  const size_t n = 1031;
  std::vector<T> a(n), b(n), out(n);
  for (size_t i = 0; i < n; ++i) a[i] = from(dist(rng)), b[i] = from(dist(rng));
  for (const auto& op : redops()) {
    reducer(type, op.op)(out.data(), a.data(), b.data(), n);
    for (size_t i = 0; i < n; ++i) {
      const T expected = from(reference_float(op.op, to(a[i]), to(b[i])));
      ASSERT_EQ(std::memcmp(&out[i], &expected, sizeof(T)), 0)
          << info(type).name << " " << op.name << " element " << i << ": " << to(out[i]) << " vs " << to(expected);
    }
  }
}

TEST(Reducers, FloatsMatchTheReference) {
  check_float_type<float, float>(DataType::Float32, [](float f) { return f; }, [](float f) { return f; });
  check_float_type<double, double>(DataType::Float64, [](double d) { return d; }, [](double d) { return d; });
}

TEST(Reducers, HalfPrecisionReducesInFloatAndRoundsToNearestEven) {
  // Reference: _Float16 arithmetic done in float, rounded once (GCC's conversion).
  check_float_type<float16, float>(DataType::Float16,
                            [](float f) { return float16{std::bit_cast<uint16_t>(static_cast<_Float16>(f))}; },
                            [](float16 h) { return static_cast<float>(std::bit_cast<_Float16>(h.bits)); });
  check_float_type<bfloat16, float>(DataType::Bfloat16, [](float f) { return bfloat16{reference_bfloat16(f)}; },
                             [](bfloat16 b) { return bfloat16_to_float(b.bits); });
  // 2048 + 1 is a tie in float16 (spacing 2 above 2048): rounds to even, 2048.
  const float16 a{float_to_half(2048.f)}, b{float_to_half(1.f)};
  float16 out{};
  reducer(DataType::Float16, RedOp::Sum)(&out, &a, &b, 1);
  EXPECT_EQ(half_to_float(out.bits), 2048.f);
}

TEST(Reducers, AverageDividesByTheNumberOfRanks) {
  std::vector<int32_t> ints = {7, -7, 9};
  divide_by_ranks(DataType::Int32, ints.data(), ints.size(), 2);
  EXPECT_EQ(ints, (std::vector<int32_t>{3, -3, 4}));  // truncates toward zero
  std::vector<float> floats = {3.f, 1.f};
  divide_by_ranks(DataType::Float32, floats.data(), floats.size(), 4);
  EXPECT_EQ(floats, (std::vector<float>{0.75f, 0.25f}));
  bfloat16 h{float_to_bfloat16(3.f)};
  divide_by_ranks(DataType::Bfloat16, &h, 1, 3);
  EXPECT_EQ(bfloat16_to_float(h.bits), 1.f);
}

}  // namespace
}  // namespace arlab
