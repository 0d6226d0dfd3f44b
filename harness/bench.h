#pragma once

#include "harness/bench_options.h"
#include "transports/bootstrap.h"

namespace arlab {

// Runs the sweep; returns the exit status (0, or 1 when any result was wrong).
int run_bench(const BenchOptions& options, Bootstrap& bootstrap);

}  // namespace arlab
