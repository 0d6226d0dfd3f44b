// float16 and bfloat16 storage types and their conversions to and from float.
// float -> half/bfloat16 rounds to nearest, ties to even; NaN stays NaN (quiet).
#pragma once

#include <bit>
#include <cstdint>

namespace arlab {

struct float16 {
  uint16_t bits;
};
struct bfloat16 {
  uint16_t bits;
};

// Every case is computed and the right one selected (no branches), so GCC turns the
// reducer loops that call these into vector code.
inline float half_to_float(uint16_t h) {
  const uint32_t shifted_exp = 0x7c00u << 13;
  const uint32_t magnitude = static_cast<uint32_t>(h & 0x7fffu) << 13;
  const uint32_t exp = magnitude & shifted_exp;
  const uint32_t rebiased = magnitude + ((127u - 15) << 23);
  const uint32_t inf_nan = rebiased + ((128u - 16) << 23);
  // zero / subnormal: renormalise through a float subtraction
  const float subnormal = std::bit_cast<float>(rebiased + (1u << 23)) - std::bit_cast<float>(113u << 23);
  uint32_t u = exp == shifted_exp ? inf_nan : rebiased;
  u = exp == 0 ? std::bit_cast<uint32_t>(subnormal) : u;
  return std::bit_cast<float>(u | (static_cast<uint32_t>(h & 0x8000u) << 16));
}

inline uint16_t float_to_half(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint32_t sign = bits & 0x80000000u;
  const uint32_t u = bits ^ sign;
  // >= 65536, Inf or NaN
  const uint32_t special = u > 0x7f800000u ? 0x7e00u : 0x7c00u;
  // the result is subnormal or zero: let the FPU round it by adding a magic number
  const float magic = std::bit_cast<float>(((127u - 15) + (23 - 10) + 1) << 23);
  const uint32_t subnormal = std::bit_cast<uint32_t>(std::bit_cast<float>(u) + magic) - std::bit_cast<uint32_t>(magic);
  // normal: rebias the exponent and round the 13 dropped bits to nearest even
  const uint32_t normal = (u + ((15u - 127u) << 23) + 0xfffu + ((u >> 13) & 1u)) >> 13;
  uint32_t out = u < (113u << 23) ? subnormal : normal;
  out = u >= (127u + 16) << 23 ? special : out;
  return static_cast<uint16_t>(out | (sign >> 16));
}

inline float bfloat16_to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

inline uint16_t float_to_bfloat16(float value) {
  const uint32_t u = std::bit_cast<uint32_t>(value);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

}  // namespace arlab
