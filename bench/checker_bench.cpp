// How long proving a ring takes, both ways, side by side: the rotation checker (one template
// for all ranks) and the general checker over every rank's expanded schedule (generation
// included in both). The counts are the issue's: 1,000,003 elements, unpipelined.
//
//   build/bench/checker_bench
#include <benchmark/benchmark.h>

#include "algorithms/checker.h"
#include "algorithms/ring.h"
#include "algorithms/rotation_checker.h"

namespace {

arlab::Problem ring_problem(int n) {
  arlab::Problem p;
  p.nranks = n;
  p.count = 1000003;
  p.element_size = 4;
  return p;
}

void BM_rotation_checker(benchmark::State& state) {
  const arlab::Problem p = ring_problem(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(arlab::check_rotation_template(arlab::ring_template(p)));
  state.counters["messages"] = static_cast<double>(arlab::check_rotation_template(arlab::ring_template(p)).messages);
}

void BM_general_checker(benchmark::State& state) {
  const arlab::Problem p = ring_problem(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(arlab::check_algorithm(arlab::generate_ring, p));
}

}  // namespace

BENCHMARK(BM_rotation_checker)->Arg(128)->Arg(1000)->Arg(4096)->Arg(16384)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_general_checker)->Arg(128)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
