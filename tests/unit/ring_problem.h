// The Problem the schedule tests ask of a generator: N ranks, `count` float32 elements,
// pipelined in `chunk_bytes` (0: not pipelined).
#pragma once

#include "algorithms/schedule.h"

namespace arlab {

inline Problem problem(int n, uint64_t count, uint64_t chunk_bytes = 0) {
  Problem p;
  p.nranks = n;
  p.count = count;
  p.element_size = 4;
  p.chunk_bytes = chunk_bytes;
  return p;
}

}  // namespace arlab
