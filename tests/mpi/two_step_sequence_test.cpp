// The shm transport's two-step path (twoshot through the slots) over a long sequence of calls
// whose sizes change from call to call, under mpiexec. From 64 KiB to under 1 MiB each call
// puts its blocks at a base that moves through the slot (transports/shm/two_step_slots.h), so
// consecutive calls land on overlapping places at different offsets; a call that rewrote a
// place a peer was still reading would show up here as a wrong element. Every call is checked exactly
// (int32 sum of values known on every rank), in and out of place, sizes from one seed shared
// by all ranks, including messages over the slot (pieces, the last one short).
// Prints "N passed, M failed" on rank 0 and exits non-zero on any failure.
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "harness/collective.h"
#include "harness/devices.h"
#include "transports/bootstrap.h"
#include "transports/registry.h"

using namespace arlab;

namespace {

int32_t value(int rank, int call, uint64_t i) { return static_cast<int32_t>((rank + 1) * 1000003 + call * 7919 + i % 65521); }

}  // namespace

int main(int argc, char** argv) {
  auto boot = make_mpi_bootstrap(&argc, &argv);
  const auto host = make_host_device();
  auto mpi = make_transport("mpi");
  auto shm = make_transport("shm", {boot.get(), host.get(), "", 0, -1, 0});
  const int n = boot->size(), rank = boot->rank();
  if (shm->two_step_allreduce_limit() == 0) {
    if (rank == 0) std::printf("SKIP: the shm transport has no two-step slots here (/dev/shm too small)\n");
    return 77;
  }
  const TransportLookup lookup = [&](std::string_view) -> Transport& { return *mpi; };
  // Byte sizes on both sides of the rotation's bounds (64 KiB, 1 MiB) and the slot's limit,
  // odd ones among them.
  const std::vector<uint64_t> sizes = {4096, 60 << 10, 64 << 10, (64 << 10) + 12, 200000,
                                       (1 << 20) - 4, 1 << 20, 1500004, 2 << 20, 3000004};
  std::mt19937 pick(20261204);  // the same sequence on every rank
  constexpr int kCalls = 400;
  std::vector<int32_t> input(3000004 / 4), output(input.size());
  int passed = 0, failed = 0;
  for (int call = 0; call < kCalls; ++call) {
    const uint64_t count = sizes[pick() % sizes.size()] / 4;
    const bool in_place = pick() % 2;
    AllreduceSpec spec{"twoshot", DataType::Int32, RedOp::Sum, count};
    auto twoshot = make_collective(spec, *shm, *host, lookup);
    for (uint64_t i = 0; i < count; ++i) input[i] = value(rank, call, i);
    if (in_place) {
      twoshot->run(input.data(), input.data());
    } else {
      std::fill(output.begin(), output.begin() + count, -1);
      twoshot->run(input.data(), output.data());
    }
    const int32_t* got = in_place ? input.data() : output.data();
    uint64_t wrong = 0;
    for (uint64_t i = 0; i < count; ++i) {
      int64_t want = 0;
      for (int r = 0; r < n; ++r) want += value(r, call, i);
      wrong += got[i] != static_cast<int32_t>(want);
    }
    wrong = boot->sum(wrong);
    if (wrong == 0) {
      ++passed;
    } else {
      ++failed;
      if (rank == 0)
        std::printf("FAIL: call %d, %lu bytes %s: %lu elements wrong\n", call, static_cast<unsigned long>(count * 4),
                    in_place ? "in place" : "out of place", static_cast<unsigned long>(wrong));
    }
  }
  if (rank == 0) std::printf("twoshot over %d calls of changing sizes at N = %d: %d passed, %d failed\n", kCalls, n, passed, failed);
  return failed ? 1 : 0;
}
