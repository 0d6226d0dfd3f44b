// The lab's CUDA kernels, all in one translation unit (cuda_kernels.cu) to keep nvcc's time
// small. Each launcher enqueues on `stream` and returns at once; errors are CUDA's own codes.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "algorithms/datatype.h"

namespace arlab::cuda {

// dst[i] = a[i] (op) b[i], the CPU reducers' rule: integers wrap, float16 / bfloat16 are
// reduced in float and rounded to nearest even (NaN stays a quiet NaN). Avg reduces as sum.
cudaError_t launch_reduce(DataType type, RedOp op, void* dst, const void* a, const void* b, size_t count,
                          cudaStream_t stream);

// buffer[i] /= divisor, as divide_by_ranks does on the CPU.
cudaError_t launch_divide(DataType type, void* buffer, size_t count, int divisor, cudaStream_t stream);

// Adds to *counter (device memory) the elements of got that differ from expected by more
// than rel_tolerance * max(1, |expected|); bit for bit when rel_tolerance == 0.
cudaError_t launch_count_mismatches(DataType type, const void* got, const void* expected, size_t count,
                                    double rel_tolerance, unsigned long long* counter, cudaStream_t stream);

}  // namespace arlab::cuda
