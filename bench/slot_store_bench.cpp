// Why the shm transport's two-step slots choose between cached and streaming stores
// (transports/shm/slot_stores.h): two processes, one per core, run the two-step exchange of
// twoshot at N = 2 on private input and output buffers and one shared slot each, with memcpy
// (cached stores) and with streaming stores into the slots, alternating rounds side by side.
// Where the two cores share a cache the cached rounds are faster; where each line written must
// first be taken from the other core (chiplets, sockets, or a VM's vCPUs moved apart), the
// streaming rounds are, by several times. Which state the machine is in can change between runs.
//
//   build/bench/slot_store_bench [bytes per rank (default 2 MiB)] [rounds (default 10)]
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "transports/shm/slot_stores.h"

namespace {

using arlab::StoreKind;

struct alignas(64) Slot {
  std::atomic<uint64_t> inputs_ready{0};
  alignas(64) std::atomic<uint64_t> block_ready{0};
};

// Spins, then yields (on one core the peer needs it to run).
void wait_for(const std::atomic<uint64_t>& flag, uint64_t call) {
  for (int spins = 0; flag.load(std::memory_order_acquire) < call; ++spins)
    if (spins > 10000) sched_yield();
}

}  // namespace

int main(int argc, char** argv) {
  const size_t bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : size_t{2} << 20;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 10;
  if (bytes < 1024 || bytes % 8 != 0 || rounds < 1) {
    std::fprintf(stderr, "slot_store_bench: bytes must be a multiple of 8 and at least 1024, rounds at least 1\n");
    return 2;
  }
  const size_t half = bytes / 2, calls_per_round = 200;
  // Per rank: the flags, then the slot (the peer's block copied in, my reduced block handed on).
  const size_t slot_bytes = sizeof(Slot) + bytes;
  char* shared = static_cast<char*>(mmap(nullptr, 2 * slot_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  if (shared == MAP_FAILED) return std::perror("mmap"), 1;
  std::memset(shared, 0, 2 * slot_bytes);
  Slot* flags[2] = {new (shared) Slot, new (shared + slot_bytes) Slot};
  char* data[2] = {shared + sizeof(Slot), shared + slot_bytes + sizeof(Slot)};
  const int rank = fork() == 0 ? 1 : 0, peer = 1 - rank;
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  CPU_SET(rank, &cpus);
  sched_setaffinity(0, sizeof cpus, &cpus);  // one core each where there are two
  std::vector<float> input(bytes / 4, 1.0f + static_cast<float>(rank)), output(bytes / 4);
  const size_t mine = rank * half, theirs = peer * half;
  uint64_t call = 0;
  for (int round = 0; round < rounds; ++round) {
    double us[2] = {0, 0};
    // Each round runs both kinds back to back; the first calls after a switch are not timed.
    for (const StoreKind kind : {StoreKind::Cached, StoreKind::Streaming}) {
      const auto copy = [&](void* dst, const void* src, size_t n) { arlab::copy_with(kind, dst, src, n); };
      std::chrono::steady_clock::time_point start;
      for (size_t i = 0; i < calls_per_round + 3; ++i) {
        if (i == 3) start = std::chrono::steady_clock::now();
        ++call;
        // Post: the peer's block of my input into my slot.
        copy(data[rank] + theirs, reinterpret_cast<char*>(input.data()) + theirs, half);
        flags[rank]->inputs_ready.store(call, std::memory_order_release);
        wait_for(flags[peer]->inputs_ready, call);
        // Step 1: my block = my input + the peer's copy of it; handed on into my slot.
        float* out = output.data() + mine / 4;
        const float* in = input.data() + mine / 4;
        const float* other = reinterpret_cast<const float*>(data[peer] + mine);
        for (size_t e = 0; e < half / 4; ++e) out[e] = in[e] + other[e];
        copy(data[rank] + mine, out, half);
        flags[rank]->block_ready.store(call, std::memory_order_release);
        wait_for(flags[peer]->block_ready, call);
        // Step 2: the peer's reduced block into my output.
        // (My next post writes only the peer's block of my slot, which the peer read before its
        // block_ready; my block is rewritten only after the peer's next inputs_ready.)
        std::memcpy(reinterpret_cast<char*>(output.data()) + theirs, data[peer] + theirs, half);
      }
      us[static_cast<int>(kind)] = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() /
                                   calls_per_round;
    }
    if (rank == 0)
      std::printf("round %2d: %zu bytes per rank: cached stores %8.1f us per call, streaming stores %8.1f us (%s faster)\n",
                  round, bytes, us[0], us[1], us[0] <= us[1] ? "cached" : "streaming");
  }
  // Every element is 1 + 2 on both ranks, or the exchange is wrong.
  const bool right = std::all_of(output.begin(), output.end(), [](float x) { return x == 3.0f; });
  if (!right) std::fprintf(stderr, "slot_store_bench: rank %d: wrong result\n", rank);
  if (rank == 1) return right ? 0 : 1;
  int status = 0;
  wait(&status);
  return right && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
