// What a byte costs to move between two processes on this machine, three ways, side by side:
//   cma       process_vm_readv from the other process's private memory (the kernel copies;
//             what the shm transport's schedules and Open MPI's vader use without XPMEM)
//   shared    memcpy from a MAP_SHARED mapping that both processes have (symmetric memory:
//             what twoshot --symmetric reads)
//   private   memcpy inside one process, the ceiling
// Each copies `size` bytes in 256 KiB pieces into a destination that stays in cache, so the
// number is the source side's rate. The other process only sleeps.
//
//   build/bench/cross_memory_bench
#include <benchmark/benchmark.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr size_t kPiece = 256 << 10;

// A child process that holds `bytes` of private memory (filled) and of shared memory, and sleeps.
struct Peer {
  explicit Peer(size_t bytes) : bytes(bytes) {
    shared = static_cast<char*>(mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
    private_memory = static_cast<char*>(std::aligned_alloc(4096, bytes));
    std::memset(private_memory, 1, bytes);  // before the fork: the child's copy-on-write pages are its own once written
    std::memset(shared, 2, bytes);
    pid = fork();
    if (pid == 0) {
      std::memset(private_memory, 3, bytes);  // the child's own pages now
      for (;;) pause();
    }
  }
  ~Peer() {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    munmap(shared, bytes);
    std::free(private_memory);
  }
  size_t bytes;
  char* shared = nullptr;
  char* private_memory = nullptr;
  pid_t pid = -1;
};

void run(benchmark::State& state, int how) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  Peer peer(bytes);
  std::vector<char> destination(kPiece);
  std::vector<char> local(bytes, 4);
  for (auto _ : state) {
    // The whole source, piece by piece, into the same cache-resident destination.
    for (size_t o = 0; o < bytes; o += kPiece) {
      const size_t len = std::min(kPiece, bytes - o);
      if (how == 0) {
        iovec to{destination.data(), len}, from{peer.private_memory + o, len};
        if (process_vm_readv(peer.pid, &to, 1, &from, 1, 0) != static_cast<ssize_t>(len)) {
          state.SkipWithError("process_vm_readv failed (cross-memory attach not permitted?)");
          return;
        }
      } else {
        std::memcpy(destination.data(), (how == 1 ? peer.shared : local.data()) + o, len);
      }
      benchmark::DoNotOptimize(destination.data());
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
}

void BM_cma(benchmark::State& state) { run(state, 0); }
void BM_shared(benchmark::State& state) { run(state, 1); }
void BM_private(benchmark::State& state) { run(state, 2); }

// 1 MiB stays in the caches; 64 MiB does not.
BENCHMARK(BM_cma)->Arg(1 << 20)->Arg(64 << 20)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_shared)->Arg(1 << 20)->Arg(64 << 20)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_private)->Arg(1 << 20)->Arg(64 << 20)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
