// `arlab tune` (under mpirun / srun, at least 2 ranks): measures what `auto` chooses with and
// saves it to results/tuning/<host>.json.
//
// The lab's own algorithms are timed at several sizes on this world, and alpha, beta and
// gamma are fitted (non-negative least squares on relative errors) to those times against
// each algorithm's closed-form counts: so alpha includes the executor's cost per step, not
// only the wire's, and the parameters describe what auto will actually run. The raw
// ping-pong latency and bandwidth and the reducer's speed are measured and saved alongside.
// The times themselves are saved too ("measured"): on the same transport and world shape
// `auto` picks by them rather than by the model (harness/measured_times.h).
#include "harness/tune.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "algorithms/reducers.h"
#include "algorithms/registry.h"
#include "harness/bench_options.h"
#include "harness/collective.h"
#include "harness/devices.h"
#include "harness/least_squares.h"
#include "harness/cli.h"
#include "harness/launched_errors.h"
#include "harness/sizes.h"
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

// The best of three timed runs of `iterations` calls after three untimed ones (the slowest
// rank's average in each): noise only slows.
double best_seconds(Collective& c, Bootstrap& boot, uint64_t bytes, int iterations) {
  std::vector<char> in(bytes), out(bytes);
  for (int i = 0; i < 3; ++i) c.run(in.data(), out.data());
  double seconds = 0;
  for (int run = 0; run < 3; ++run) {
    boot.barrier();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) c.run(in.data(), out.data());
    const double t = boot.max(seconds_since(t0) / iterations);
    seconds = run == 0 ? t : std::min(seconds, t);
  }
  return seconds;
}

// One-way time of a message of `bytes` on a one-sided transport (writes and signals, no
// ping-pong): recursive doubling's time per round, each round one message each way at once
// (and, for large messages, a reduce of it too: an upper bound).
double one_way_by_exchange(Transport& t, Bootstrap& boot, Device& device, uint64_t bytes) {
  const AllreduceSpec spec{"rd", DataType::Float32, RedOp::Sum, bytes / 4, 0, 0};
  auto c = make_collective(spec, t, device, [&t](std::string_view) -> Transport& { return t; });
  const double rounds = find_algorithm("rd")->closed_form({boot.size(), static_cast<double>(bytes)}).rounds;
  return best_seconds(*c, boot, bytes, bytes <= 4096 ? 200 : 10) / std::max(1.0, rounds);
}

constexpr uint64_t kLargestTimed = 16u << 20;  // 8 B, 64 B, ... 16 MiB

// The flat algorithms, hier between nodes of several ranks (with each flat one between them),
// and the transport's paths through shared slots where it has them.
std::vector<std::string> tuned_algorithms(int nranks, int ranks_per_node, const Transport& transport) {
  std::vector<std::string> names = {"ring", "rd", "rabenseifner", "tree"};
  if (ranks_per_node > 1 && ranks_per_node < nranks && nranks % ranks_per_node == 0)
    for (const char* inter : {"ring", "rd", "rabenseifner", "tree"}) names.push_back(std::string("hier/") + inter);
  if (transport.small_allreduce_limit() > 0) names.push_back("oneshot");
  if (transport.two_step_allreduce_limit() > 0) names.push_back("twoshot");
  return names;
}

}  // namespace

int run_tune(int argc, char** argv) {
  std::string transport_name = "mpi", output;
  CLI::App app{"arlab tune: measure alpha, beta and gamma for `auto` (run under mpirun with >= 2 ranks)", "arlab tune"};
  app.add_option("-t,--transport", transport_name, "transport to measure")->capture_default_str();
  app.add_option("-o,--output", output, "where to save (default results/tuning/<host>.json)");
  const std::string parse_error = usage_error_of([&] {
    parse_flags(app, argc, argv);
    require_usable_transport(transport_name);
  });
  auto boot = make_mpi_bootstrap(&argc, &argv);
  if (agree_on_usage_errors(*boot, "tune", parse_error)) return 2;
  if (boot->size() < 2) throw UsageError("needs at least 2 ranks to measure message costs (run it under mpirun -np 2)");
  const auto host = make_host_device();
  TransportContext context;
  context.bootstrap = boot.get();
  context.device = host.get();
  auto transport = make_transport(transport_name, context);

  const size_t large = 4u << 20;
  const bool one_sided = transport->capabilities().one_sided;
  const double latency = one_sided ? one_way_by_exchange(*transport, *boot, *host, 8)
                                   : boot->max(one_way_seconds(*transport, 8, 2000));
  const double large_one_way = one_sided ? one_way_by_exchange(*transport, *boot, *host, large)
                                         : boot->max(one_way_seconds(*transport, large, 20));
  const std::string latency_kind = one_sided ? "one-way latency (rd, per round)" : "ping-pong latency";
  // gamma: the reducer on this rank, best of several passes (caches warm, as in the pipeline).
  std::vector<float> a(large / 4, 1.f), b(large / 4, 1.f);
  const ReduceFn reduce = reducer(DataType::Float32, RedOp::Sum);
  double best = 1e9;
  for (int i = 0; i < 20; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    reduce(a.data(), a.data(), b.data(), a.size());
    best = std::min(best, seconds_since(t0));
  }
  const double reduce_seconds_per_byte = boot->max(best) / large;

  // Time the algorithms themselves (kept for auto's choice at this shape) and fit the model
  // to the flat ones' times at up to 4 MiB.
  std::vector<Observation> observations;
  const TransportLookup lookup = [&](std::string_view) -> Transport& { return *transport; };
  MachineParams p;
  MeasuredTimes& measured = p.measured;
  measured.transport = transport_name;
  measured.nranks = boot->size();
  measured.ranks_per_node = static_cast<int>(boot->max(boot->local_size()));
  for (uint64_t bytes = 8; bytes <= kLargestTimed; bytes *= 8) measured.sizes.push_back(static_cast<double>(bytes));
  for (const std::string& name : tuned_algorithms(measured.nranks, measured.ranks_per_node, *transport))
    for (const double size : measured.sizes) {
      const auto bytes = static_cast<uint64_t>(size);
      if (name == "oneshot" && bytes > transport->small_allreduce_limit()) break;  // its slot's limit
      const MeasuredName parsed = parse_measured_name(name);
      AllreduceSpec spec{parsed.algorithm, DataType::Float32, RedOp::Sum, bytes / 4, 0, measured.ranks_per_node};
      spec.inter = parsed.inter;
      auto c = make_collective(spec, *transport, *host, lookup);
      const int iterations = bytes <= (64u << 10) ? 50 : bytes <= (2u << 20) ? 10 : 4;
      const double seconds = best_seconds(*c, *boot, bytes, iterations);
      measured.seconds[name].push_back(seconds);
      const AlgorithmInfo* flat = find_algorithm(name);  // hier and the slot paths: no closed form to fit
      if (!flat || bytes > (4u << 20)) continue;
      const CostCounts counts = flat->closed_form({boot->size(), static_cast<double>(bytes)});
      observations.push_back({{counts.rounds, counts.bytes_sent, counts.bytes_reduced}, seconds});
    }
  const auto fitted = fit_nonnegative(observations);
  // A parameter the fit could not separate keeps the direct measurement.
  p.alpha = fitted[0] > 0 ? fitted[0] : latency;
  p.beta = fitted[1] > 0 ? fitted[1] : std::max(large_one_way - latency, 1e-12) / large;
  p.gamma = fitted[2] > 0 ? fitted[2] : reduce_seconds_per_byte;
  if (boot->rank() == 0) {
    const std::string path = output.empty() ? default_tuning_path(boot->hostname()) : output;
    const std::string how = "arlab tune -t " + transport_name + " on " + std::to_string(boot->size()) +
                            " ranks: ring, rd, rabenseifner, tree (and hier between nodes, oneshot and twoshot on shared slots) "
                            "timed at 8 B .. 16 MiB "
                            "(\"measured\", auto's choice at this shape); alpha / beta / gamma fitted to the flat ones' "
                            "closed-form counts up to 4 MiB; " + latency_kind + " " + std::to_string(latency * 1e6) +
                            " us, 4 MiB one-way " + std::to_string(large_one_way * 1e6) + " us, float32 sum reducer " +
                            std::to_string(1e-9 / reduce_seconds_per_byte) + " GB/s";
    save_tuning(path, p, how);
    std::printf("fitted to %zu timings of the lab's algorithms on %d ranks:\n", observations.size(), boot->size());
    std::printf("alpha %.3g s (%.2f us per round; %s %.2f us)\n", p.alpha, p.alpha * 1e6, latency_kind.c_str(), latency * 1e6);
    std::printf("beta  %.3g s/B (%.2f GB/s)\ngamma %.3g s/B (%.2f GB/s reduced)\n", p.beta, 1e-9 / p.beta, p.gamma,
                1e-9 / p.gamma);
    std::printf("fastest measured (auto's pick on -t %s at N = %d, %d per node):", transport_name.c_str(), measured.nranks,
                measured.ranks_per_node);
    for (const double size : measured.sizes)
      std::printf(" %s %s", format_size(static_cast<uint64_t>(size)).c_str(), fastest_measured(measured, size).c_str());
    std::printf("\nsaved to %s\n", path.c_str());
  }
  return 0;
}

}  // namespace arlab
