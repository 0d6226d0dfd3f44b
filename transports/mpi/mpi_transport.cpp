// The MPI transport: MPI_Isend / MPI_Irecv / MPI_Testall on a private duplicate of the
// bootstrap's communicator (MPI_COMM_WORLD, or an application's under the PMPI library),
// and MPI_Allreduce as the native baseline (algorithm name `mpi`).
//
// MPI counts are ints, so a message above kMaxPiece bytes travels as several messages with
// the same tag; MPI's non-overtaking rule keeps the pieces in order.
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // MPIX_Query_cuda_support, where the library has it
#endif

#include <climits>
#include <vector>

#include "transports/mpi/mpi_check.h"
#include "transports/mpi/mpi_comm.h"
#include "transports/registry.h"
#include "transports/slot_table.h"

namespace arlab {
namespace {

constexpr size_t kMaxPiece = size_t{1} << 30;

// MPI has no float16 / bfloat16 (Open MPI 4.1): the baseline reduces them with a user-defined
// operation over 2-byte elements that calls the lab's own reducer. MPI user functions take
// no closure, so the reducer for the call in progress is kept here (MPI_Allreduce is blocking).
void (*g_user_combine)(void*, const void*, const void*, size_t) = nullptr;
void user_reduce(void* in, void* inout, int* len, MPI_Datatype*) {
  g_user_combine(inout, inout, in, static_cast<size_t>(*len));
}

class MpiTransport final : public Transport {
 public:
  explicit MpiTransport(MPI_Comm parent) {
    ARLAB_MPI_CHECK(MPI_Comm_dup(parent, &comm_), "MPI_Comm_dup");
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    int* ub = nullptr;
    int found = 0;
    MPI_Comm_get_attr(comm_, MPI_TAG_UB, &ub, &found);
    tag_modulus_ = found && ub ? static_cast<uint32_t>(*ub) + 1 : 32768;
    ARLAB_MPI_CHECK(MPI_Type_contiguous(2, MPI_BYTE, &two_bytes_), "MPI_Type_contiguous(2, MPI_BYTE)");
    MPI_Type_commit(&two_bytes_);
    ARLAB_MPI_CHECK(MPI_Op_create(user_reduce, /*commute=*/1, &user_op_), "MPI_Op_create");
  }

  ~MpiTransport() override {
    MPI_Op_free(&user_op_);
    MPI_Type_free(&two_bytes_);
    MPI_Comm_free(&comm_);
  }

  std::string name() const override { return "mpi"; }
  TransportCapabilities capabilities() const override { return {.gpu_memory = cuda_aware(), .native_allreduce = true}; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  RequestId isend(int peer, const void* data, size_t bytes, uint32_t tag) override {
    return post(peer, const_cast<void*>(data), bytes, tag, /*send=*/true);
  }
  RequestId irecv(int peer, void* data, size_t bytes, uint32_t tag) override {
    return post(peer, data, bytes, tag, /*send=*/false);
  }

  bool test(RequestId id) override {
    std::vector<MPI_Request>& reqs = slots_[id];
    int done = 0;
    ARLAB_MPI_CHECK(MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &done, MPI_STATUSES_IGNORE),
                    "MPI_Testall(request " + std::to_string(id) + ")");
    if (done) slots_.release(id);
    return done != 0;
  }

  void native_allreduce(const void* input, void* output, size_t count, const NativeReduction& r) override {
    MPI_Datatype type = datatype(r);
    MPI_Op op = type == two_bytes_ ? user_op_ : builtin_op(r.op);
    g_user_combine = r.combine;
    const bool in_place = input == output;
    // Counts above INT_MAX elements go in pieces; each piece is an independent all-reduce.
    size_t done = 0;
    do {
      const size_t n = std::min<size_t>(count - done, INT_MAX);
      const size_t offset = done * r.element_size;
      const void* src = in_place ? MPI_IN_PLACE : static_cast<const char*>(input) + offset;
      ARLAB_MPI_CHECK(MPI_Allreduce(src, static_cast<char*>(output) + offset, static_cast<int>(n), type, op, comm_),
                      "MPI_Allreduce(count=" + std::to_string(n) + ")");
      done += n;
    } while (done < count);
  }

  void barrier() override { ARLAB_MPI_CHECK(MPI_Barrier(comm_), "MPI_Barrier"); }

 private:
  RequestId post(int peer, void* data, size_t bytes, uint32_t tag, bool send) {
    const RequestId id = slots_.acquire();
    std::vector<MPI_Request>& reqs = slots_[id];
    reqs.clear();
    const int mpi_tag = static_cast<int>(tag % tag_modulus_);
    char* p = static_cast<char*>(data);
    // One request per piece of at most kMaxPiece bytes (a zero-byte message is one piece).
    for (size_t off = 0; off < bytes || (bytes == 0 && off == 0);) {
      const int n = static_cast<int>(std::min(kMaxPiece, bytes - off));
      MPI_Request req;
      const int code = send ? MPI_Isend(p + off, n, MPI_BYTE, peer, mpi_tag, comm_, &req)
                            : MPI_Irecv(p + off, n, MPI_BYTE, peer, mpi_tag, comm_, &req);
      mpi_check(code, std::string(send ? "MPI_Isend to" : "MPI_Irecv from") + " rank " + std::to_string(peer) +
                          " (" + std::to_string(n) + " bytes, tag " + std::to_string(mpi_tag) + ")");
      reqs.push_back(req);
      if (bytes == 0) break;
      off += n;
    }
    return id;
  }

  MPI_Datatype datatype(const NativeReduction& r) const {
    using K = NativeReduction::Kind;
    switch (r.kind) {
      case K::SignedInt: return r.element_size == 1 ? MPI_INT8_T : r.element_size == 4 ? MPI_INT32_T : MPI_INT64_T;
      case K::UnsignedInt: return r.element_size == 1 ? MPI_UINT8_T : r.element_size == 4 ? MPI_UINT32_T : MPI_UINT64_T;
      case K::Float: return r.element_size == 2 ? two_bytes_ : r.element_size == 4 ? MPI_FLOAT : MPI_DOUBLE;
      case K::BFloat: return two_bytes_;
    }
    throw TransportUnavailable("MPI_Allreduce: no MPI datatype for this element");
  }

  static MPI_Op builtin_op(NativeReduction::Op op) {
    using O = NativeReduction::Op;
    switch (op) {
      case O::Sum: return MPI_SUM;
      case O::Prod: return MPI_PROD;
      case O::Min: return MPI_MIN;
      case O::Max: return MPI_MAX;
    }
    return MPI_SUM;
  }

  // Whether MPI calls may take device pointers: Open MPI built with CUDA says so at run time.
  static bool cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return false;
#endif
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  uint32_t tag_modulus_ = 32768;
  MPI_Datatype two_bytes_ = MPI_DATATYPE_NULL;
  MPI_Op user_op_ = MPI_OP_NULL;
  SlotTable<std::vector<MPI_Request>> slots_;  // a slot's vector keeps its capacity for reuse
};

}  // namespace

std::unique_ptr<Transport> make_mpi_transport(const TransportContext& context) {
  return std::make_unique<MpiTransport>(bootstrap_communicator(context.bootstrap));
}

}  // namespace arlab
