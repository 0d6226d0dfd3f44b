// `arlab tune` (under mpirun / srun, at least 2 ranks): measures the model parameters that
// `auto` chooses with and saves them to results/tuning/<host>.json.
//   alpha: half the round trip of an 8-byte ping-pong between ranks 0 and 1
//   beta:  (one-way time of a 4 MiB message - alpha) / 4 MiB
//   gamma: time of the CPU reducer on 4 MiB (-d / -o, float32 sum by default) / 4 MiB
#include "harness/tune.h"

#include <chrono>
#include <cstdio>
#include <vector>

#include "algorithms/reducers.h"
#include "harness/cli.h"
#include "harness/tuning.h"
#include "transports/bootstrap.h"
#include "transports/registry.h"

namespace arlab {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void wait(Transport& t, RequestId r) {
  while (!t.test(r)) {
  }
}

// One-way time of a message of `bytes` between ranks 0 and 1, from `iterations` round trips.
double one_way_seconds(Transport& t, size_t bytes, int iterations) {
  std::vector<char> buffer(bytes);
  const int me = t.rank();
  const auto exchange = [&](int round) {
    const uint32_t tag = static_cast<uint32_t>(round);
    if (me == 0) {
      wait(t, t.isend(1, buffer.data(), bytes, tag));
      wait(t, t.irecv(1, buffer.data(), bytes, tag));
    } else if (me == 1) {
      wait(t, t.irecv(0, buffer.data(), bytes, tag));
      wait(t, t.isend(0, buffer.data(), bytes, tag));
    }
  };
  for (int i = 0; i < 3; ++i) exchange(i);  // warm-up
  t.barrier();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) exchange(3 + i);
  return seconds_since(t0) / iterations / 2;
}

}  // namespace

int run_tune(int argc, char** argv) {
  std::string transport_name = "mpi", output;
  CLI::App app{"arlab tune: measure alpha, beta and gamma for `auto` (run under mpirun with >= 2 ranks)", "arlab tune"};
  app.add_option("-t,--transport", transport_name, "transport to measure")->capture_default_str();
  app.add_option("-o,--output", output, "where to save (default results/tuning/<host>.json)");
  parse_flags(app, argc, argv);
  auto boot = make_mpi_bootstrap(&argc, &argv);
  if (boot->size() < 2) throw UsageError("needs at least 2 ranks to measure message costs (run it under mpirun -np 2)");
  auto transport = make_transport(transport_name);

  MachineParams p;
  const size_t large = 4u << 20;
  p.alpha = boot->max(one_way_seconds(*transport, 8, 2000));
  const double large_one_way = boot->max(one_way_seconds(*transport, large, 20));
  p.beta = std::max(large_one_way - p.alpha, 1e-12) / large;
  // gamma: the reducer on this rank, best of several passes (caches warm, as in the pipeline).
  std::vector<float> a(large / 4, 1.f), b(large / 4, 1.f);
  const ReduceFn reduce = reducer(DataType::Float32, RedOp::Sum);
  double best = 1e9;
  for (int i = 0; i < 20; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    reduce(a.data(), a.data(), b.data(), a.size());
    best = std::min(best, seconds_since(t0));
  }
  p.gamma = boot->max(best) / large;
  if (boot->rank() == 0) {
    const std::string path = output.empty() ? default_tuning_path(boot->hostname()) : output;
    const std::string how = "arlab tune -t " + transport_name + " on " + std::to_string(boot->size()) + " ranks: " +
                            "8 B and 4 MiB ping-pong between ranks 0 and 1, float32 sum reducer on 4 MiB";
    save_tuning(path, p, how);
    std::printf("alpha %.3g s (%.2f us per message)\nbeta  %.3g s/B (%.2f GB/s)\ngamma %.3g s/B (%.2f GB/s reduced)\n",
                p.alpha, p.alpha * 1e6, p.beta, 1e-9 / p.beta, p.gamma, 1e-9 / p.gamma);
    std::printf("saved to %s\n", path.c_str());
  }
  return 0;
}

}  // namespace arlab
