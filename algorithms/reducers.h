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
using DivideFn = void (*)(void* buffer, size_t count, int divisor);

// The reducer that the schedule's Reduce ops use for (type, op); avg maps to sum.
ReduceFn reducer(DataType type, RedOp op);

// buffer[i] /= divisor (integer division truncates toward zero), for avg.
void divide_by_ranks(DataType type, void* buffer, size_t count, int divisor);

}  // namespace arlab
