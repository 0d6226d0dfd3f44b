// Symmetric memory (transports/shm/symmetric_memory.h) across real ranks, under mpiexec: every
// rank allocates together, writes its own pattern, and reads each peer's through the two ways
// a peer's memory is found — by place (allocation, offset), and by the peer's own address (how
// a schedule's one-sided write names its target). Then the edges: pointers outside, ranges that
// run past the end, private memory, a released allocation.
// Prints "N passed, M failed" on rank 0 and exits non-zero on any failure.
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

#include "transports/bootstrap.h"
#include "transports/shm/symmetric_memory.h"

using namespace arlab;

namespace {

int passed = 0, failed = 0;

void expect(bool ok, int rank, const std::string& what) {
  if (ok) {
    ++passed;
  } else {
    ++failed;
    std::printf("FAIL: rank %d: %s\n", rank, what.c_str());
  }
}

uint64_t pattern(int rank, size_t i) { return (static_cast<uint64_t>(rank) + 1) << 32 | i; }

}  // namespace

int main(int argc, char** argv) {
  auto boot = make_mpi_bootstrap(&argc, &argv);
  const int me = boot->rank(), n = boot->size();
  constexpr size_t kBytes = (1 << 20) + 24;  // not a whole number of pages
  constexpr size_t kWords = kBytes / 8;
  // The job id names the segments: the same on every rank (rank 0's), unique per job.
  uint64_t job = static_cast<uint64_t>(getpid()) << 16 ^ 0x5eed;
  boot->broadcast(&job, sizeof job, 0);
  SymmetricMemory memory(*boot, job);
  auto* first = static_cast<uint64_t*>(memory.allocate(kBytes));
  auto* second = static_cast<uint64_t*>(memory.allocate(4096));
  for (size_t i = 0; i < kWords; ++i) first[i] = pattern(me, i);
  second[0] = pattern(me, 7);
  boot->barrier();

  // Every peer's words, by place and by the peer's own address.
  const SymmetricMemory::Place place = memory.place_of(first + 5, 8);
  expect(place.id != SymmetricMemory::kNone && place.offset == 40, me, "place_of(first + 5) = (id, 40)");
  const uint64_t own = reinterpret_cast<uint64_t>(first);
  std::vector<uint64_t> own_of(n);
  const auto all = boot->gather_strings(std::string(reinterpret_cast<const char*>(&own), sizeof own));
  for (int q = 0; q < n; ++q) std::memcpy(&own_of[q], all[q].data(), sizeof own);
  for (int q = 0; q < n; ++q) {
    const auto* by_place = reinterpret_cast<const uint64_t*>(memory.address(q, {place.id, 0}));
    const auto* by_address = reinterpret_cast<const uint64_t*>(memory.view_of(q, own_of[q] + 8 * (kWords - 1), 8));
    bool same = by_place != nullptr;
    for (size_t i = 0; same && i < kWords; i += 4099) same = by_place[i] == pattern(q, i);
    expect(same, me, "rank " + std::to_string(q) + "'s words, by place");
    expect(by_address && *by_address == pattern(q, kWords - 1), me, "rank " + std::to_string(q) + "'s last word, by its address");
    const auto* other = reinterpret_cast<const uint64_t*>(memory.address(q, memory.place_of(second, 8)));
    expect(other && *other == pattern(q, 7), me, "rank " + std::to_string(q) + "'s second allocation");
  }
  // Writes land in the owner's memory: each rank stamps its number into the next rank's word 3.
  auto* next = reinterpret_cast<uint64_t*>(memory.address((me + 1) % n, {place.id, 24}));
  *next = 1000 + static_cast<uint64_t>(me);
  boot->barrier();
  expect(first[3] == 1000 + static_cast<uint64_t>((me + n - 1) % n), me, "a peer's write shows in my buffer");

  // The edges.
  uint64_t private_word = 0;
  expect(memory.place_of(&private_word, 8).id == SymmetricMemory::kNone, me, "private memory has no place");
  expect(memory.place_of(first + kWords - 1, 16).id == SymmetricMemory::kNone, me, "a range past the end has no place");
  expect(memory.view_of(me, reinterpret_cast<uint64_t>(&private_word), 8) == nullptr, me, "private memory has no view");
  expect(memory.view_of(me, own + kBytes - 4, 8) == nullptr, me, "a view past the end is refused");
  boot->barrier();  // nobody reads my memory any more
  memory.release(first);
  expect(memory.place_of(second, 8).id != SymmetricMemory::kNone, me, "the other allocation survives a release");
  expect(memory.view_of(me, own, 8) == nullptr, me, "a released allocation has no view");

  const int all_failed = static_cast<int>(boot->sum(static_cast<uint64_t>(failed)));
  if (me == 0) std::printf("symmetric memory at N = %d: %d passed, %d failed\n", n, passed, all_failed);
  return all_failed ? 1 : 0;
}
