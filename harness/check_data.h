// Seeded test data: every rank can generate every other rank's input, so each rank checks
// its own result locally, with no extra communication (as nccl-tests does).
//
// Values are small integers chosen per operation (sums of +-4, products of 1s and 2s, min /
// max over a wider range) so that floating-point results are exact for the world sizes the
// lab runs and any algorithm's order of summation gives the same answer; a tolerance of a
// few ulps times N covers larger worlds.
#pragma once

#include <cstdint>

#include "algorithms/datatype.h"

namespace arlab {

void fill_input(DataType type, RedOp op, void* buffer, uint64_t count, int rank, uint64_t seed);

// The all-reduce of every rank's fill_input, reduced in rank order. `scratch` holds count
// elements.
void fill_expected(DataType type, RedOp op, void* expected, void* scratch, uint64_t count, int nranks, uint64_t seed);

// The relative tolerance of a result reduced over nranks: a few units in the last place per
// rank for floating point, 0 (bit for bit) for integers.
double check_tolerance(DataType type, int nranks);

// Elements of `got` (host memory) that differ from `expected` by more than
// tolerance * max(1, |expected|), bit for bit when tolerance is 0. Device::count_mismatches
// is the same rule where the result lives.
uint64_t count_wrong(DataType type, const void* got, const void* expected, uint64_t count, double tolerance);

// Fault injection for testing the check itself: changes one element.
void corrupt_one_element(DataType type, void* buffer, uint64_t count);

}  // namespace arlab
