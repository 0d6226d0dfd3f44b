// Reducer throughput next to memcpy of the same size, so a reader sees how close the
// reduction runs to the memory limit. Bytes counted are memory traffic: a reduce reads two
// buffers and writes one (3 x size), a memcpy reads one and writes one (2 x size).
//
// fold/TYPE/chain/K and fold/TYPE/fused/K reduce K buffers into one, as step 1 of twoshot
// at N = K does: K - 1 pairwise reducer calls against one many_reducer pass; both count the
// same bytes (K read, one written), so their GB/s ratio is the speed-up.
//
//   build/bench/reducers_bench --benchmark_min_time=0.2
//   build/bench/reducers_bench --benchmark_filter=fold   # the fused fold against the chain
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "algorithms/datatype.h"
#include "algorithms/half.h"
#include "algorithms/reducers.h"

namespace {

constexpr int64_t kSizes[] = {4 << 10, 256 << 10, 16 << 20};

void fill_ones(arlab::DataType type, char* buffer, size_t count) {
  const size_t size = arlab::info(type).size;
  std::vector<char> one(size, 0);
  switch (type) {
    case arlab::DataType::Float16: { const uint16_t h = arlab::float_to_half(1.f); std::memcpy(one.data(), &h, 2); break; }
    case arlab::DataType::Bfloat16: { const uint16_t b = arlab::float_to_bfloat16(1.f); std::memcpy(one.data(), &b, 2); break; }
    case arlab::DataType::Float32: { const float f = 1.f; std::memcpy(one.data(), &f, 4); break; }
    case arlab::DataType::Float64: { const double d = 1.0; std::memcpy(one.data(), &d, 8); break; }
    default: one[0] = 1; break;  // little-endian integer 1
  }
  for (size_t i = 0; i < count; ++i) std::memcpy(buffer + i * size, one.data(), size);
}

void BM_memcpy(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  std::vector<char> src(bytes, 1), dst(bytes);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 * static_cast<int64_t>(bytes));
}

void BM_reduce(benchmark::State& state, arlab::DataType type, arlab::RedOp op) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  const size_t count = bytes / arlab::info(type).size;
  // Every element 1 (1.0 for floats): products stay normal numbers, no denormal slow paths.
  std::vector<char> a(bytes), b(bytes), out(bytes);
  fill_ones(type, a.data(), count);
  fill_ones(type, b.data(), count);
  const arlab::ReduceFn reduce = arlab::reducer(type, op);
  for (auto _ : state) {
    reduce(out.data(), a.data(), b.data(), count);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 3 * static_cast<int64_t>(bytes));
}

// K sources of `bytes` into out: chained (reducer, K - 1 passes over out) or fused (many_reducer).
void BM_fold(benchmark::State& state, arlab::DataType type, bool fused) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  const int k = static_cast<int>(state.range(1));
  const size_t count = bytes / arlab::info(type).size;
  std::vector<std::vector<char>> sources(k, std::vector<char>(bytes));
  std::vector<const void*> pointers;
  for (auto& source : sources) fill_ones(type, source.data(), count), pointers.push_back(source.data());
  std::vector<char> out(bytes);
  const arlab::ReduceFn reduce = arlab::reducer(type, arlab::RedOp::Sum);
  const arlab::ReduceManyFn reduce_many = arlab::many_reducer(type, arlab::RedOp::Sum);
  for (auto _ : state) {
    if (fused) reduce_many(out.data(), pointers.data(), k, count);
    else {
      reduce(out.data(), pointers[0], pointers[1], count);
      for (int j = 2; j < k; ++j) reduce(out.data(), out.data(), pointers[j], count);
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * (k + 1) * static_cast<int64_t>(bytes));
}

// One benchmark per datatype x operation (avg runs the sum reducer, so it is left out).
const bool registered = [] {
  auto* copy = benchmark::RegisterBenchmark("memcpy", BM_memcpy);
  for (int64_t size : kSizes) copy->Arg(size);
  for (const auto& type : arlab::datatypes())
    for (const auto& op : arlab::redops()) {
      if (op.op == arlab::RedOp::Avg) continue;
      const std::string name = "reduce/" + std::string(type.name) + "/" + std::string(op.name);
      auto* b = benchmark::RegisterBenchmark(name.c_str(), BM_reduce, type.type, op.op);
      for (int64_t size : kSizes) b->Arg(size);
    }
  // The fold at twoshot's piece size (64 KiB, in cache) and beyond the caches, N = 4 and 8.
  for (arlab::DataType type : {arlab::DataType::Float32, arlab::DataType::Float16, arlab::DataType::Bfloat16})
    for (bool fused : {false, true}) {
      const std::string name = "fold/" + std::string(arlab::info(type).name) + (fused ? "/fused" : "/chain");
      auto* b = benchmark::RegisterBenchmark(name.c_str(), BM_fold, type, fused);
      for (int64_t size : {int64_t{64} << 10, int64_t{16} << 20})
        for (int64_t k : {4, 8}) b->Args({size, k});
    }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
