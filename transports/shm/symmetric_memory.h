// Symmetric memory on one node: a buffer that every rank allocates together (the same size, in
// the same order) and that every rank of the node maps, so a peer's input can be read and its
// output written with plain loads and stores, no kernel copy (what NCCL calls a symmetric
// window, ncclMemAlloc + ncclCommWindowRegister, and MPI a shared window,
// MPI_Win_allocate_shared). Each allocation is one POSIX shared-memory segment per rank,
// /arlab.<job>.<rank>.s<id>, with its pages reserved up front (posix_fallocate: a full /dev/shm
// is one clear error, never a SIGBUS in the middle of a run) and unlinked as soon as every rank
// has mapped it.
//
// A pointer anywhere inside an allocation names the same place on every rank as (id, offset):
// that pair is what ranks exchange, and each turns it back into an address of its own mapping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "transports/bootstrap.h"

namespace arlab {

class SymmetricMemory {
 public:
  // Where a pointer lies: allocation id and byte offset; id kNone when it is not in one.
  struct Place {
    uint64_t id, offset;
  };
  static constexpr uint64_t kNone = ~uint64_t{0};

  SymmetricMemory(Bootstrap& boot, uint64_t job) : boot_(boot), job_(job) {}
  ~SymmetricMemory();
  SymmetricMemory(const SymmetricMemory&) = delete;
  SymmetricMemory& operator=(const SymmetricMemory&) = delete;

  // Collective: every rank of the node, the same bytes. Throws TransportUnavailable on every
  // rank when any rank cannot have it (no room in /dev/shm: the message says how much).
  void* allocate(size_t bytes);
  // Local: unmaps this rank's view of the allocation (peers keep theirs until they release it).
  void release(void* buffer) noexcept;

  // Where [p, p + bytes) lies, or {kNone, 0} when it is not wholly inside one allocation.
  Place place_of(const void* p, size_t bytes) const;
  // Rank r's address of a place (the allocation must exist on this rank).
  char* address(int r, Place place) const;
  // Where this rank sees [address, address + bytes) of rank r's own address space, when that
  // range lies in one of r's symmetric allocations; nullptr otherwise (private memory).
  char* view_of(int r, uint64_t address, size_t bytes) const;

 private:
  struct Allocation {
    uint64_t id;
    size_t bytes;
    std::vector<char*> base_of;  // per rank; nullptr where not mapped
    std::vector<uint64_t> own_base_of;  // per rank: where that rank itself maps it
  };
  const Allocation* find(uint64_t id) const;

  Bootstrap& boot_;
  uint64_t job_;
  uint64_t next_id_ = 0;
  std::vector<Allocation> allocations_;
};

}  // namespace arlab
