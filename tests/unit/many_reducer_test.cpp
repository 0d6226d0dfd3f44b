// many_reducer (k sources folded in one pass) against k - 1 calls of reducer in source order:
// the same bits for every datatype, operation and k from 1 to 9 (one, two and three passes,
// full and partial), out of place and in place (dst == sources[0]).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "algorithms/datatype.h"
#include "algorithms/half.h"
#include "algorithms/reducers.h"

namespace arlab {
namespace {

constexpr size_t kCount = 1031;  // odd: exercises the vector loops' tails

// kCount random elements of `type`: floats in [-4, 4) (sums round in float16 and bfloat16,
// products stay finite), integers from random bits (sums and products wrap).
std::vector<char> random_elements(const DataTypeInfo& type, std::mt19937& rng) {
  std::vector<char> bytes(kCount * type.size);
  std::uniform_real_distribution<float> dist(-4.f, 4.f);
  for (size_t i = 0; i < kCount; ++i) {
    char* e = bytes.data() + i * type.size;
    const float f = dist(rng);
    if (type.type == DataType::Float32) std::memcpy(e, &f, 4);
    else if (type.type == DataType::Float64) {
      const double d = f + dist(rng) * 1e-9;
      std::memcpy(e, &d, 8);
    } else if (type.type == DataType::Float16 || type.type == DataType::Bfloat16) {
      const uint16_t h = type.type == DataType::Float16 ? float_to_half(f) : float_to_bfloat16(f);
      std::memcpy(e, &h, 2);
    } else
      for (uint32_t b = 0; b < type.size; ++b) e[b] = static_cast<char>(rng());
  }
  return bytes;
}

// sources[0] op sources[1] op ... in order, one reducer call at a time.
std::vector<char> chained(const DataTypeInfo& type, RedOp op, const std::vector<std::vector<char>>& sources, int k) {
  std::vector<char> out = sources[0];
  for (int j = 1; j < k; ++j) reducer(type.type, op)(out.data(), out.data(), sources[j].data(), kCount);
  return out;
}

TEST(ManyReducer, MatchesTheChainOfPairwiseReductionsBitForBit) {
  std::mt19937 rng(5);
  for (const DataTypeInfo& type : datatypes()) {
    std::vector<std::vector<char>> sources;
    for (int j = 0; j < 9; ++j) sources.push_back(random_elements(type, rng));
    for (const RedOpInfo& op : redops()) {
      for (int k = 1; k <= 9; ++k) {
        const std::vector<char> expected = chained(type, op.op, sources, k);
        std::vector<const void*> pointers;
        for (int j = 0; j < k; ++j) pointers.push_back(sources[j].data());
        // Out of place.
        std::vector<char> out(expected.size(), 0x5a);
        many_reducer(type.type, op.op)(out.data(), pointers.data(), k, kCount);
        ASSERT_EQ(out, expected) << type.name << " " << op.name << " k " << k << " out of place";
        // In place: the first source is the destination.
        std::vector<char> acc = sources[0];
        pointers[0] = acc.data();
        many_reducer(type.type, op.op)(acc.data(), pointers.data(), k, kCount);
        ASSERT_EQ(acc, expected) << type.name << " " << op.name << " k " << k << " in place";
      }
    }
  }
}

TEST(ManyReducer, RoundsAfterEveryOperationLikeTheChain) {
  // 2048 + 1 is a tie in float16 (spacing 2): each step rounds back to 2048, whereas one
  // rounding of the exact sum 2048 + 1 + 1 + 1 would give 2052.
  const float16 big{float_to_half(2048.f)}, one{float_to_half(1.f)};
  const void* sources[] = {&big, &one, &one, &one};
  float16 out{};
  many_reducer(DataType::Float16, RedOp::Sum)(&out, sources, 4, 1);
  EXPECT_EQ(half_to_float(out.bits), 2048.f);
  // float32 in float: 2^24 + 1 + 1 stays 2^24 (a wider accumulator would give 2^24 + 2).
  const float f_big = 16777216.f, f_one = 1.f;
  const void* f_sources[] = {&f_big, &f_one, &f_one};
  float f_out = 0;
  many_reducer(DataType::Float32, RedOp::Sum)(&f_out, f_sources, 3, 1);
  EXPECT_EQ(f_out, 16777216.f);
  // bfloat16 rounds its intermediate in 32-bit lanes: a NaN made on the way (inf + -inf)
  // must come out as the chain's quiet NaN, and a tie (256 + 1, spacing 2) must go to even.
  const bfloat16 inf{float_to_bfloat16(INFINITY)}, minus_inf{float_to_bfloat16(-INFINITY)};
  const bfloat16 b256{float_to_bfloat16(256.f)}, b_one{float_to_bfloat16(1.f)};
  for (const std::vector<bfloat16>& case_sources : {std::vector<bfloat16>{inf, minus_inf, b_one, b_one},
                                                    std::vector<bfloat16>{b256, b_one, b_one, b_one}}) {
    bfloat16 chain{}, fused{};
    reducer(DataType::Bfloat16, RedOp::Sum)(&chain, &case_sources[0], &case_sources[1], 1);
    for (size_t j = 2; j < case_sources.size(); ++j) reducer(DataType::Bfloat16, RedOp::Sum)(&chain, &chain, &case_sources[j], 1);
    const void* b_sources[] = {&case_sources[0], &case_sources[1], &case_sources[2], &case_sources[3]};
    many_reducer(DataType::Bfloat16, RedOp::Sum)(&fused, b_sources, 4, 1);
    EXPECT_EQ(fused.bits, chain.bits);
  }
  bfloat16 tie{};
  const void* tie_sources[] = {&b256, &b_one, &b_one, &b_one};
  many_reducer(DataType::Bfloat16, RedOp::Sum)(&tie, tie_sources, 4, 1);
  EXPECT_EQ(bfloat16_to_float(tie.bits), 256.f);
}

}  // namespace
}  // namespace arlab
