// How a buffer of `count` elements is cut into N blocks and each block into pipeline
// chunks. Pure arithmetic shared by every generator, so sender and receiver always agree
// on where block b, chunk c starts (UCC keeps this kind of topology maths apart from I/O).
#pragma once

#include <algorithm>
#include <cstdint>

namespace arlab {

struct Range {
  uint64_t offset = 0;
  uint64_t count = 0;
};

// Block b of `nblocks` nearly equal blocks: the first count % nblocks blocks get one
// element more, so sizes differ by at most one and blocks are empty when count < nblocks.
inline Range block_range(uint64_t count, uint64_t nblocks, uint64_t b) {
  const uint64_t base = count / nblocks, extra = count % nblocks;
  return {b * base + std::min(b, extra), base + (b < extra ? 1 : 0)};
}

inline uint64_t max_block_count(uint64_t count, uint64_t nblocks) {
  return count / nblocks + (count % nblocks ? 1 : 0);
}

inline uint64_t num_chunks(uint64_t block_count, uint64_t chunk_elements) {
  return block_count == 0 ? 0 : (block_count - 1) / chunk_elements + 1;
}

// Chunk c of a block; chunk c always starts at c * chunk_elements inside its block.
inline Range chunk_range(Range block, uint64_t chunk_elements, uint64_t c) {
  const uint64_t begin = c * chunk_elements;
  if (begin >= block.count) return {block.offset + block.count, 0};
  return {block.offset + begin, std::min(chunk_elements, block.count - begin)};
}

inline int mod(long long a, long long n) { return static_cast<int>(((a % n) + n) % n); }

}  // namespace arlab
