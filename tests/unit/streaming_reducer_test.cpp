// The streaming reducer (transports/streaming_copy.h): tiles of k sources reduced and streamed
// into every destination must hold exactly what one pass of the many-source reducer writes, at
// every alignment, length around the tile, element size and number of sources and destinations,
// in place too.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "algorithms/reducers.h"
#include "transports/streaming_copy.h"

namespace arlab {
namespace {

// k sources of `bytes` bytes each (plus room for `offset` in front and a line behind), of
// distinct small values, so that sums are exact in every type tested. Sources start at
// multiples of their element (as the reducers need); the streamed destinations at any byte.
std::vector<std::vector<unsigned char>> make_sources(int k, size_t bytes, size_t offset) {
  std::vector<std::vector<unsigned char>> sources(k, std::vector<unsigned char>(bytes + offset + 64));
  for (int j = 0; j < k; ++j)
    for (size_t i = 0; i < sources[j].size(); ++i) sources[j][i] = static_cast<unsigned char>((i * 7 + j * 13) % 31);
  return sources;
}

struct Case {
  DataType type;
  size_t element;
};

TEST(StreamingReducer, EveryDestinationHoldsTheManyReducersResult) {
  const Case cases[] = {{DataType::Int8, 1}, {DataType::Float16, 2}, {DataType::Float32, 4}, {DataType::Int64, 8}};
  const size_t tile = StreamingReducer::kTileBytes;
  for (const Case& c : cases)
    for (int k : {1, 2, 3, 5})
      for (size_t elements : {size_t{1}, tile / c.element - 1, tile / c.element, 3 * tile / c.element + 5})
        for (size_t offset : {size_t{0}, c.element, size_t{24}}) {  // the reducers load whole elements
          const size_t bytes = elements * c.element;
          auto sources = make_sources(k, bytes, offset);
          std::vector<const void*> from;
          for (auto& s : sources) from.push_back(s.data() + offset);
          // What one call of the many-source reducer writes.
          std::vector<unsigned char> expected(bytes);
          const ReduceManyFn combine = many_reducer(c.type, RedOp::Sum);
          combine(expected.data(), from.data(), k, elements);
          for (bool cached : {false, true}) {
            // Three streamed destinations (0xee around them) and maybe one cached.
            std::vector<std::vector<unsigned char>> outs(4, std::vector<unsigned char>(bytes + 128, 0xee));
            void* streamed[3] = {outs[1].data() + 1 + offset, outs[2].data() + 64, outs[3].data() + 17};
            StreamingReducer reducer(1);  // fewer than k: it makes room itself
            reducer.reduce(combine, from.data(), k, cached ? outs[0].data() + offset : nullptr, streamed, 3, elements,
                           c.element);
            const std::string where = "type size " + std::to_string(c.element) + ", k " + std::to_string(k) + ", " +
                                      std::to_string(elements) + " elements, offset " + std::to_string(offset) +
                                      (cached ? ", with a cached destination" : "");
            for (int d = cached ? 0 : 1; d < 4; ++d) {
              const unsigned char* at = d == 0 ? outs[0].data() + offset : static_cast<unsigned char*>(streamed[d - 1]);
              ASSERT_EQ(std::memcmp(at, expected.data(), bytes), 0) << where << ", destination " << d;
              const size_t start = static_cast<size_t>(at - outs[d].data());
              for (size_t i = 0; i < outs[d].size(); ++i) {
                if (i >= start && i < start + bytes) continue;
                ASSERT_EQ(outs[d][i], 0xee) << where << ", byte " << i << " of " << d;
              }
            }
          }
        }
}

TEST(StreamingReducer, InPlaceReadsEachTileBeforeWritingIt) {
  // The first source is also the cached destination and the second a streamed one (in place,
  // as the shm paths run with ARLAB_SHM_OUTPUT_STORES=streaming): both end with the sum.
  const size_t elements = 5 * StreamingReducer::kTileBytes / 4 + 3;
  std::vector<float> a(elements), b(elements), sum(elements);
  for (size_t i = 0; i < elements; ++i) a[i] = static_cast<float>(i % 97), b[i] = static_cast<float>(i % 89) * 2;
  for (size_t i = 0; i < elements; ++i) sum[i] = a[i] + b[i];
  const void* sources[2] = {a.data(), b.data()};
  void* streamed[1] = {b.data()};
  StreamingReducer reducer;
  reducer.reduce(many_reducer(DataType::Float32, RedOp::Sum), sources, 2, a.data(), streamed, 1, elements, 4);
  EXPECT_EQ(a, sum);
  EXPECT_EQ(b, sum);
}

}  // namespace
}  // namespace arlab
