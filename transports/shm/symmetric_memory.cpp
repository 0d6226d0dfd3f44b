#include "transports/shm/symmetric_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "transports/transport.h"

namespace arlab {
namespace {

std::string segment_name(uint64_t job, int rank, uint64_t id) {
  char name[80];
  std::snprintf(name, sizeof name, "/arlab.%016llx.%d.s%llu", static_cast<unsigned long long>(job), rank,
                static_cast<unsigned long long>(id));
  return name;
}

char* map_segment(int fd, size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return p == MAP_FAILED ? nullptr : static_cast<char*>(p);
}

}  // namespace

SymmetricMemory::~SymmetricMemory() {
  while (!allocations_.empty()) release(allocations_.back().base_of[boot_.rank()]);
}

void* SymmetricMemory::allocate(size_t bytes) {
  const int me = boot_.rank();
  const uint64_t id = next_id_++;
  const size_t size = std::max<size_t>(bytes, 1);
  Allocation a{id, size, std::vector<char*>(boot_.size(), nullptr), {}};
  // My segment, its pages reserved now; any rank's failure becomes every rank's.
  const std::string mine = segment_name(job_, me, id);
  std::string error;
  const int fd = shm_open(mine.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) {
    error = "shm_open(" + mine + ", O_CREAT | O_EXCL) failed: " + std::strerror(errno);
  } else {
    const int rc = ftruncate(fd, static_cast<off_t>(size)) != 0 ? errno : posix_fallocate(fd, 0, static_cast<off_t>(size));
    if (rc != 0)
      error = "symmetric memory: posix_fallocate(" + mine + ", " + std::to_string(size) + " bytes) on rank " +
              std::to_string(me) + " failed: " + std::strerror(rc) +
              (rc == ENOSPC ? " (/dev/shm is too small for every rank's buffers; lower -e or enlarge /dev/shm)" : "");
    else if (!(a.base_of[me] = map_segment(fd, size)))
      error = "mmap(" + mine + ", " + std::to_string(size) + " bytes) failed: " + std::strerror(errno);
    close(fd);
  }
  const auto agree = [&](const std::string& mine_error) {
    std::string first;
    for (const std::string& e : boot_.gather_strings(mine_error))
      if (first.empty()) first = e;
    return first;
  };
  // Everyone has created theirs (or failed): map the peers', then unlink mine.
  std::string failed = agree(error);
  for (int r = 0; r < boot_.size() && failed.empty() && error.empty(); ++r) {
    if (r == me) continue;
    const std::string name = segment_name(job_, r, id);
    const int peer_fd = shm_open(name.c_str(), O_RDWR, 0);
    if (peer_fd < 0 || !(a.base_of[r] = map_segment(peer_fd, size)))
      error = "shm_open / mmap(" + name + ") of rank " + std::to_string(r) + " failed: " + std::strerror(errno);
    if (peer_fd >= 0) close(peer_fd);
  }
  if (failed.empty()) failed = agree(error);
  shm_unlink(mine.c_str());
  // Every rank's own address of its segment, so a peer's address can be found in my mappings.
  const uint64_t own = reinterpret_cast<uint64_t>(a.base_of[me]);
  for (const std::string& theirs : boot_.gather_strings(std::string(reinterpret_cast<const char*>(&own), sizeof own))) {
    uint64_t base = 0;
    std::memcpy(&base, theirs.data(), std::min(theirs.size(), sizeof base));
    a.own_base_of.push_back(base);
  }
  allocations_.push_back(std::move(a));
  if (!failed.empty()) {
    release(allocations_.back().base_of[me]);
    throw TransportUnavailable(failed);
  }
  return allocations_.back().base_of[me];
}

void SymmetricMemory::release(void* buffer) noexcept {
  for (auto it = allocations_.begin(); it != allocations_.end(); ++it) {
    if (it->base_of[boot_.rank()] != buffer) continue;
    for (char* base : it->base_of)
      if (base) munmap(base, it->bytes);
    allocations_.erase(it);
    return;
  }
}

SymmetricMemory::Place SymmetricMemory::place_of(const void* p, size_t bytes) const {
  const char* c = static_cast<const char*>(p);
  for (const Allocation& a : allocations_) {
    const char* base = a.base_of[boot_.rank()];
    if (base && c >= base && c + bytes <= base + a.bytes) return {a.id, static_cast<uint64_t>(c - base)};
  }
  return {kNone, 0};
}

char* SymmetricMemory::address(int r, Place place) const {
  const Allocation* a = find(place.id);
  return a && a->base_of[r] ? a->base_of[r] + place.offset : nullptr;
}

char* SymmetricMemory::view_of(int r, uint64_t address, size_t bytes) const {
  for (const Allocation& a : allocations_) {
    const uint64_t base = a.own_base_of[r];
    if (a.base_of[r] && address >= base && address + bytes <= base + a.bytes) return a.base_of[r] + (address - base);
  }
  return nullptr;
}

const SymmetricMemory::Allocation* SymmetricMemory::find(uint64_t id) const {
  for (const Allocation& a : allocations_)
    if (a.id == id) return &a;
  return nullptr;
}

}  // namespace arlab
