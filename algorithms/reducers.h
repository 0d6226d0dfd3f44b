// CPU reducers: dst[i] = a[i] (op) b[i] for every datatype x operation.
// dst may be the same buffer as a or b (in-place accumulation); other overlaps are not allowed.
// Integers wrap around on overflow (two's complement). float16 and bfloat16 are converted
// to float, reduced, and rounded back to nearest even. `avg` reduces as a sum; the final
// division by N is a separate pass (divide_by_ranks), as in NCCL.
#pragma once

#include <cstddef>

#include "algorithms/datatype.h"

namespace arlab {

using ReduceFn = void (*)(void* dst, const void* a, const void* b, size_t count);
// dst[i] = ((sources[0][i] op sources[1][i]) op sources[2][i]) ... op sources[k-1][i], k >= 1:
// the bits of k - 1 ReduceFn calls in that order, in about k / 3 passes over dst instead of
// k - 1 (the loads of up to four sources are interleaved; float16, whose conversions cost more
// than the traffic, runs the k - 1 passes). dst may be sources[0] itself.
using ReduceManyFn = void (*)(void* dst, const void* const* sources, int k, size_t count);
using DivideFn = void (*)(void* buffer, size_t count, int divisor);

// The reducer that the schedule's Reduce ops use for (type, op); avg maps to sum.
ReduceFn reducer(DataType type, RedOp op);

// The same reduction over k sources at once (ReduceManyFn); avg maps to sum.
ReduceManyFn many_reducer(DataType type, RedOp op);

// buffer[i] /= divisor (integer division truncates toward zero), for avg.
void divide_by_ranks(DataType type, void* buffer, size_t count, int divisor);

}  // namespace arlab
