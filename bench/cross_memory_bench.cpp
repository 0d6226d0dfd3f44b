// What a byte costs to move between two processes on this machine, three ways, side by side:
//   cma       process_vm_readv from the other process's private memory (the kernel copies;
//             what the shm transport's schedules and Open MPI's vader use without XPMEM)
//   shared    memcpy from a MAP_SHARED mapping that both processes have (symmetric memory:
//             what twoshot --symmetric reads)
//   private   memcpy inside one process, the ceiling
// Each copies `size` bytes in 256 KiB pieces into a destination that stays in cache, so the
// number is the source side's rate. The other process only sleeps.
// handoff_cma and handoff_shared read data the other process has just written, as twoshot
// reads a peer's slot or its reduced block: before each timed copy the other process (on the
// other core, spinning) rewrites its private and shared buffers, so their lines sit modified in
// its core's cache; only the copy out is timed.
//
//   build/bench/cross_memory_bench
#include <benchmark/benchmark.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
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

// A child that rewrites `bytes` of private and of shared memory each time it is asked.
struct Writer {
  struct Control {
    std::atomic<uint64_t> request{0}, ready{0};
  };
  explicit Writer(size_t bytes) : bytes(bytes) {
    void* c = mmap(nullptr, sizeof(Control), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    control = new (c) Control;
    shared = static_cast<char*>(mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
    private_memory = static_cast<char*>(std::aligned_alloc(4096, bytes));
    std::memset(private_memory, 1, bytes);
    pid = fork();
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // it spins: never outlive the bench
      // Each round: both buffers rewritten (modified lines in this core's cache), then ready.
      for (uint64_t round = 1;; ++round) {
        while (control->request.load(std::memory_order_acquire) != round) {
        }
        std::memset(shared, static_cast<int>(round), bytes);
        std::memset(private_memory, static_cast<int>(round), bytes);
        control->ready.store(round, std::memory_order_release);
      }
    }
  }
  ~Writer() {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    munmap(shared, bytes);
    munmap(control, sizeof(Control));
    std::free(private_memory);
  }
  // Asks for a fresh write and waits until it is done.
  void rewrite() {
    control->request.store(++round, std::memory_order_release);
    while (control->ready.load(std::memory_order_acquire) != round) {
    }
  }
  size_t bytes;
  Control* control = nullptr;
  char* shared = nullptr;
  char* private_memory = nullptr;
  pid_t pid = -1;
  uint64_t round = 0;
};

void handoff(benchmark::State& state, bool cma) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  Writer writer(bytes);
  std::vector<char> destination(bytes, 4);
  for (auto _ : state) {
    state.PauseTiming();
    writer.rewrite();
    state.ResumeTiming();
    if (cma) {
      iovec to{destination.data(), bytes}, from{writer.private_memory, bytes};
      if (process_vm_readv(writer.pid, &to, 1, &from, 1, 0) != static_cast<ssize_t>(bytes)) {
        state.SkipWithError("process_vm_readv failed (cross-memory attach not permitted?)");
        return;
      }
    } else {
      std::memcpy(destination.data(), writer.shared, bytes);
    }
    benchmark::DoNotOptimize(destination.data());
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
// 64 KiB: twoshot's block of a 128 KiB all-reduce at N = 2 (stays in the writer's L2); 512 KiB: of a
// 1 MiB piece; 4 MiB: past the build VM's 2 MiB L2.
void BM_handoff_cma(benchmark::State& state) { handoff(state, true); }
void BM_handoff_shared(benchmark::State& state) { handoff(state, false); }
BENCHMARK(BM_handoff_cma)->Arg(64 << 10)->Arg(512 << 10)->Arg(4 << 20)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_handoff_shared)->Arg(64 << 10)->Arg(512 << 10)->Arg(4 << 20)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
