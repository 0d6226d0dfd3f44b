// Byte sizes as nccl-tests and the OSU benchmarks write them: 8, 4K, 16M, 1G (binary
// multiples), optionally followed by B or iB.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace arlab {

// Parses `text` given to `flag`; throws UsageError naming the flag when it is not a size.
uint64_t parse_size(const std::string& flag, const std::string& text);

// "8", "4K", "16M", "1.5G" style, the shortest exact binary form.
std::string format_size(uint64_t bytes);

// nccl-tests' sweep: from min to max multiplying by factor (or adding increment when
// increment > 0). Sizes are rounded down to whole elements; duplicates removed.
std::vector<uint64_t> size_sweep(uint64_t min_bytes, uint64_t max_bytes, double factor, uint64_t increment,
                                 uint64_t element_size);

}  // namespace arlab
