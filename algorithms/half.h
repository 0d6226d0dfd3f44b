// float16 and bfloat16 storage types and their conversions to and from float.
// float -> half/bfloat16 rounds to nearest, ties to even; NaN stays NaN (quiet).
// Branch-light integer code so the reducer loops can vectorise without F16C.
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

inline float half_to_float(uint16_t h) {
  const uint32_t shifted_exp = 0x7c00u << 13;
  uint32_t u = (h & 0x7fffu) << 13;
  const uint32_t exp = u & shifted_exp;
  u += (127 - 15) << 23;
  float f;
  if (exp == shifted_exp) {  // Inf / NaN
    u += (128 - 16) << 23;
    f = std::bit_cast<float>(u);
  } else if (exp == 0) {  // zero / subnormal: renormalise through a float subtraction
    u += 1 << 23;
    f = std::bit_cast<float>(u) - std::bit_cast<float>(113u << 23);
  } else {
    f = std::bit_cast<float>(u);
  }
  return std::bit_cast<float>(std::bit_cast<uint32_t>(f) | (static_cast<uint32_t>(h & 0x8000u) << 16));
}

inline uint16_t float_to_half(float value) {
  uint32_t u = std::bit_cast<uint32_t>(value);
  const uint32_t sign = u & 0x80000000u;
  u ^= sign;
  uint16_t out;
  if (u >= (127u + 16) << 23) {  // >= 65536, Inf or NaN
    out = u > 0x7f800000u ? 0x7e00 : 0x7c00;
  } else if (u < 113u << 23) {  // the result is subnormal or zero: let the FPU round it
    const float magic = std::bit_cast<float>(((127u - 15) + (23 - 10) + 1) << 23);
    out = static_cast<uint16_t>(std::bit_cast<uint32_t>(std::bit_cast<float>(u) + magic) -
                                std::bit_cast<uint32_t>(magic));
  } else {  // normal: rebias the exponent and round the 13 dropped bits to nearest even
    const uint32_t odd = (u >> 13) & 1u;
    u += ((15u - 127u) << 23) + 0xfffu + odd;
    out = static_cast<uint16_t>(u >> 13);
  }
  return static_cast<uint16_t>(out | (sign >> 16));
}

inline float bfloat16_to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

inline uint16_t float_to_bfloat16(float value) {
  const uint32_t u = std::bit_cast<uint32_t>(value);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

}  // namespace arlab
