// The shared-memory transport: every rank of the job on one node. Flags live in one POSIX
// shared-memory segment per rank, which every rank maps; data moves with one copy, straight
// from the sender's buffer into the receiver's window, by cross-memory attach
// (process_vm_writev: the kernel copies between the two address spaces).
//
// Ranks on other nodes are not mapped: as the inside-a-node half of a composite transport
// (transports/hybrid/), shm serves only the pairs that share a node.
//
// Small messages (up to kSmallBytes) skip the schedule: each segment also holds two slots,
// used by alternate calls. A rank copies its data into its slot and sets the slot's flag to
// the call's number; every rank then folds all ranks' slots, in rank order, straight from
// the peers' segments into its output. A slot is written again two calls later, which no rank
// can begin before every rank has finished reading it (each rank's next call waits for all).
// Messages up to 2 MiB can take two steps through one more slot (two_step_slots.h; the harness
// takes larger ones through it in pieces), where /dev/shm has room for it; on symmetric memory (symmetric_memory.h) any message can take
// the same two steps reading the peers' buffers directly (symmetric_two_step.h), and a
// schedule's write into a peer's window that lies in symmetric memory (the harness puts the
// scratch there too when input and output are) is a plain memcpy.
//
// Segments are named per job (/arlab.<job id>.<rank>, the id made by rank 0 and broadcast),
// so two jobs on one node never meet, and each is unlinked as soon as every rank has mapped
// it: the mappings stay valid, and nothing is left in /dev/shm however the job ends.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "transports/one_sided/one_sided_transport.h"
#include "transports/registry.h"
#include "transports/shm/shm_transport.h"
#include "transports/shm/symmetric_two_step.h"
#include "transports/shm/two_step_slots.h"

namespace arlab {
namespace {

std::string errno_text() { return std::strerror(errno); }

class ShmTransport final : public one_sided::OneSidedTransport {
 public:
  // node_of[r]: the node of rank r; this rank maps the segments of the ranks on its node.
  ShmTransport(Bootstrap& boot, std::vector<int> node_of) : OneSidedTransport(boot, "shm"), node_of_(std::move(node_of)) {
    try {
      output_stores_setting();  // before anything is created (slot_stores.h)
    } catch (const std::invalid_argument& e) {
      throw TransportError(std::string("shm transport: ") + e.what());
    }
    uint64_t job = 0;
    if (boot.rank() == 0)
      job = static_cast<uint64_t>(getpid()) << 32 ^
            static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    boot.broadcast(&job, sizeof job, 0);
    small_offset_ = (sizeof(Header) + layout_.bytes() + 63) / 64 * 64;
    small_ = node_of_ == std::vector<int>(boot.size(), node_of_[boot.rank()]);  // every rank mapped
    symmetric_offset_ = small_offset_ + 2 * sizeof(SmallSlot);
    two_step_offset_ = symmetric_offset_ + sizeof(SymmetricTwoStep::Flags);
    // The two-step slots, where /dev/shm holds every rank's with room to spare (containers
    // often give it 64 MiB; touching a page past the limit would kill the job with SIGBUS).
    uint64_t two_step = 0;
    if (boot.rank() == 0 && small_) {
      struct statvfs fs {};
      const uint64_t need = 2ull * boot.size() * (two_step_offset_ + TwoStepSlots::kSegmentBytes);
      two_step = statvfs("/dev/shm", &fs) == 0 && uint64_t{fs.f_bavail} * fs.f_frsize >= need;
    }
    boot.broadcast(&two_step, sizeof two_step, 0);
    const size_t bytes = two_step_offset_ + (two_step ? TwoStepSlots::kSegmentBytes : 0);
    segments_.resize(boot.size());
    pids_.resize(boot.size());
    // Create and map this rank's segment, then map everyone's.
    const std::string mine = segment_name(job, boot.rank());
    const int fd = shm_open(mine.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) throw TransportError("shm_open(" + mine + ", O_CREAT | O_EXCL) failed: " + errno_text());
    if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
      const std::string e = errno_text();
      close(fd), shm_unlink(mine.c_str());
      throw TransportError("ftruncate(" + mine + ", " + std::to_string(bytes) + ") failed: " + e);
    }
    segments_[boot.rank()] = map(fd, bytes, mine);
    header(boot.rank())->pid = getpid();
    boot.barrier();
    for (int r = 0; r < boot.size(); ++r) {
      if (r == boot.rank() || node_of_[r] != node_of_[boot.rank()]) continue;
      const std::string name = segment_name(job, r);
      const int peer_fd = shm_open(name.c_str(), O_RDWR, 0);
      if (peer_fd < 0) throw TransportError("shm_open(" + name + ") of rank " + std::to_string(r) + " failed: " + errno_text());
      segments_[r] = map(peer_fd, bytes, name);
    }
    boot.barrier();  // everyone has mapped everything: the names can go
    shm_unlink(mine.c_str());
    for (int r = 0; r < boot.size(); ++r)
      if (segments_[r]) pids_[r] = header(r)->pid;
    bytes_ = bytes;
    if (small_) {
      symmetric_memory_ = std::make_unique<SymmetricMemory>(boot, job);
      std::vector<SymmetricTwoStep::Flags*> flags(boot.size());
      for (int r = 0; r < boot.size(); ++r) flags[r] = reinterpret_cast<SymmetricTwoStep::Flags*>(segments_[r] + symmetric_offset_);
      symmetric_ = std::make_unique<SymmetricTwoStep>(std::move(flags), boot.rank(), *symmetric_memory_);
    }
    if (two_step) {
      std::vector<char*> slots(boot.size());
      for (int r = 0; r < boot.size(); ++r) slots[r] = segments_[r] + two_step_offset_;
      two_step_ = std::make_unique<TwoStepSlots>(std::move(slots), boot.rank());
    }
  }

  ~ShmTransport() override {
    symmetric_.reset();
    symmetric_memory_.reset();
    for (char* s : segments_)
      if (s) munmap(s, bytes_);
  }

 protected:
  size_t small_allreduce_limit() const override { return small_ ? kSmallBytes : 0; }

  void small_allreduce_post(const void* input, size_t bytes) override {
    if (bytes > kSmallBytes)
      throw TransportError("shm small_allreduce_post(" + std::to_string(bytes) + " bytes): over the slot's " +
                           std::to_string(kSmallBytes));
    ++small_calls_;
    folded_ = 0;
    SmallSlot& mine = slot(rank(), small_calls_);
    std::memcpy(mine.data, input, bytes);
    std::atomic_ref<uint64_t>(mine.call).store(small_calls_, std::memory_order_release);
  }

  bool small_allreduce_poll(void* output, size_t count, const NativeReduction& reduction) override {
    // Fold each rank's slot as soon as it holds this call's data, in rank order, so that every
    // rank computes the same bits: out = s0 op s1, then out = out op s2, ...
    const int n = size();
    while (folded_ < n) {
      const SmallSlot& s = slot(folded_, small_calls_);
      if (std::atomic_ref<uint64_t>(const_cast<uint64_t&>(s.call)).load(std::memory_order_acquire) != small_calls_)
        return false;
      if (n == 1) std::memcpy(output, s.data, count * reduction.element_size);
      else if (folded_ == 1) reduction.combine(output, slot(0, small_calls_).data, s.data, count);
      else if (folded_ > 1) reduction.combine(output, output, s.data, count);
      ++folded_;
    }
    return true;
  }

  size_t two_step_allreduce_limit() const override { return two_step_ ? TwoStepSlots::kMaxBytes : 0; }
  void two_step_allreduce_post(const void* input, size_t count, const NativeReduction& reduction,
                               size_t message_bytes) override {
    if (!two_step_)
      throw TransportUnavailable("shm two_step_allreduce_post: no two-step slots (ranks on several nodes, or too little room in /dev/shm)");
    two_step_->post(++small_calls_, input, count, reduction, message_bytes);
  }
  bool two_step_allreduce_poll(const void* input, void* output, size_t count, const NativeReduction& reduction) override {
    return two_step_->poll(small_calls_, input, output, count, reduction);
  }

  void* allocate_symmetric(size_t bytes) override {
    if (!symmetric_memory_)
      throw TransportUnavailable("-t shm: symmetric memory needs every rank on one node (this job spans several)");
    return symmetric_memory_->allocate(bytes);
  }
  void release_symmetric(void* buffer) noexcept override {
    if (symmetric_memory_) symmetric_memory_->release(buffer);
  }
  bool has_symmetric_allreduce() const override { return symmetric_ != nullptr; }
  void symmetric_allreduce_post(const void* input, void* output, size_t bytes) override {
    if (!symmetric_) throw TransportUnavailable("shm symmetric_allreduce_post: ranks on several nodes");
    symmetric_->post(++small_calls_, input, output, bytes);
  }
  bool symmetric_allreduce_poll(const void* input, void* output, size_t count, const NativeReduction& reduction) override {
    return symmetric_->poll(small_calls_, input, output, count, reduction);
  }

  Handle put_then_flag(int peer, const void* src, size_t bytes, WindowId, uint64_t remote_address, size_t flag_offset,
                       uint64_t value) override {
    // Into the peer's symmetric memory: a plain copy through my mapping of it.
    if (char* view = symmetric_memory_ ? symmetric_memory_->view_of(peer, remote_address, bytes) : nullptr) {
      std::memcpy(view, src, bytes);
      put_flag(peer, flag_offset, value);
      return 0;
    }
    // One copy, sender to receiver; the kernel may copy less than asked, so loop.
    size_t done = 0;
    while (done < bytes) {
      iovec local{const_cast<char*>(static_cast<const char*>(src)) + done, bytes - done};
      iovec remote{reinterpret_cast<void*>(remote_address + done), bytes - done};
      const ssize_t n = process_vm_writev(pids_[peer], &local, 1, &remote, 1, 0);
      if (n <= 0)
        throw TransportError("process_vm_writev(pid " + std::to_string(pids_[peer]) + " = rank " + std::to_string(peer) +
                             ", " + std::to_string(bytes - done) + " bytes) failed: " + errno_text() +
                             (errno == EPERM ? " (cross-memory attach is not permitted: check kernel.yama.ptrace_scope)" : ""));
      done += static_cast<size_t>(n);
    }
    put_flag(peer, flag_offset, value);  // release: the data above is visible before the flag
    return 0;
  }

  Handle put_flag(int peer, size_t flag_offset, uint64_t value) override {
    std::atomic_ref<uint64_t>(*flag(peer, flag_offset)).store(value, std::memory_order_release);
    return 0;
  }
  bool handle_done(Handle) override { return true; }
  uint64_t local_flag(size_t offset) override {
    return std::atomic_ref<uint64_t>(*flag(rank(), offset)).load(std::memory_order_acquire);
  }

  std::vector<one_sided::WindowDescriptor> publish(const Windows& w) override {
    const one_sided::WindowDescriptor mine{reinterpret_cast<uint64_t>(w.output), w.output_bytes,
                                           reinterpret_cast<uint64_t>(w.scratch), w.scratch_bytes};
    const auto all = bootstrap_.gather_strings(std::string(reinterpret_cast<const char*>(&mine), sizeof mine));
    std::vector<one_sided::WindowDescriptor> out(all.size());
    for (size_t r = 0; r < all.size(); ++r) std::memcpy(&out[r], all[r].data(), sizeof mine);
    return out;
  }

 private:
  struct Header {
    int64_t pid;
    char pad[56];  // flags start on their own cache line
  };

  static std::string segment_name(uint64_t job, int rank) {
    char name[64];
    std::snprintf(name, sizeof name, "/arlab.%016llx.%d", static_cast<unsigned long long>(job), rank);
    return name;
  }
  // MAP_POPULATE: every page is mapped before the first call. The two-step slots move their
  // blocks through their 2 MiB areas from call to call (two_step_slots.h), so the first calls
  // would otherwise fault on a page of a peer's slot at nearly every read. (/dev/shm's room for the
  // slots was checked above.)
  static char* map(int fd, size_t bytes, const std::string& name) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) throw TransportError("mmap(" + name + ", " + std::to_string(bytes) + " bytes) failed: " + errno_text());
    return static_cast<char*>(p);
  }
  static constexpr size_t kSmallBytes = 512 << 10;
  // The flag and the first 56 bytes share a cache line: a message that small is one line.
  struct alignas(64) SmallSlot {
    uint64_t call;  // the number of the call whose data the slot holds
    char data[kSmallBytes];
  };
  SmallSlot& slot(int r, uint64_t call) {
    return reinterpret_cast<SmallSlot*>(segments_[r] + small_offset_)[call & 1];
  }

  Header* header(int r) { return reinterpret_cast<Header*>(segments_[r]); }
  uint64_t* flag(int r, size_t offset) { return reinterpret_cast<uint64_t*>(segments_[r] + sizeof(Header) + offset); }

  std::vector<int> node_of_;
  std::vector<char*> segments_;
  std::vector<pid_t> pids_;
  size_t bytes_ = 0;
  size_t small_offset_ = 0;  // where the two small-message slots start in each segment
  size_t symmetric_offset_ = 0;  // where the symmetric two-step path's flags are
  size_t two_step_offset_ = 0;  // where the two-step slots start, when there are any
  std::unique_ptr<TwoStepSlots> two_step_;
  std::unique_ptr<SymmetricMemory> symmetric_memory_;  // every rank mapped: allocations of symmetric memory
  std::unique_ptr<SymmetricTwoStep> symmetric_;
  bool small_ = false;       // every rank is mapped: the small-message path works
  uint64_t small_calls_ = 0;
  int folded_ = 0;  // ranks whose slot this call has folded
};

}  // namespace

std::unique_ptr<Transport> make_shm_transport(const TransportContext& context) {
  Bootstrap& boot = host_memory_bootstrap(context, "shm");
  if (boot.local_size() != boot.size())
    throw TransportUnavailable("-t shm needs every rank on one node (" + std::to_string(boot.size()) + " ranks, " +
                               std::to_string(boot.local_size()) + " on this node); use -t shm+ucx or -t ucx");
  return std::make_unique<ShmTransport>(boot, std::vector<int>(boot.size(), 0));
}

std::unique_ptr<Transport> make_shm_transport_for_nodes(Bootstrap& bootstrap, std::vector<int> node_of) {
  return std::make_unique<ShmTransport>(bootstrap, std::move(node_of));
}

}  // namespace arlab
