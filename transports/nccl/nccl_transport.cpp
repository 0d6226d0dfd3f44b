// The NCCL transport: the lab's schedules lowered to ncclSend / ncclRecv, one group per
// round, on the CUDA device's stream (the same stream the reduce kernels run on, so a
// reduction waits for its receive without the host waiting). ncclAllReduce is the native
// baseline (algorithm name `nccl`); NCCL_ALGO / NCCL_PROTO reach it from the environment.
#include <nccl.h>

#include <cstdlib>
#include <string>

#include "transports/registry.h"

namespace arlab {
namespace {

void nccl_check(ncclResult_t status, const std::string& what) {
  if (status == ncclSuccess) return;
  std::string text = what + " failed: " + ncclGetErrorString(status);
  if (const char* last = ncclGetLastError(nullptr); last && *last) text += " (" + std::string(last) + ")";
  throw TransportError(text);
}

class NcclTransport final : public Transport {
 public:
  NcclTransport(Bootstrap& bootstrap, Device& device)
      : bootstrap_(bootstrap), stream_(static_cast<cudaStream_t>(device.stream())) {
    ncclUniqueId id{};
    if (bootstrap.rank() == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    bootstrap.broadcast(&id, sizeof id, 0);
    nccl_check(ncclCommInitRank(&comm_, bootstrap.size(), id, bootstrap.rank()),
               "ncclCommInitRank(nranks=" + std::to_string(bootstrap.size()) + ", rank=" +
                   std::to_string(bootstrap.rank()) + ") on " + device.name());
    int version = 0;
    ncclGetVersion(&version);
    version_ = "NCCL " + std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
               std::to_string(version % 100);
    for (const char* var : {"NCCL_ALGO", "NCCL_PROTO"})
      if (const char* v = std::getenv(var)) version_ += std::string(" ") + var + "=" + v;
  }

  ~NcclTransport() override {
    cudaStreamSynchronize(stream_);
    ncclCommDestroy(comm_);
  }

  std::string name() const override { return "nccl"; }
  TransportCapabilities capabilities() const override {
    return {.gpu_memory = true, .stream_ordered = true, .native_allreduce = true};
  }
  int rank() const override { return bootstrap_.rank(); }
  int size() const override { return bootstrap_.size(); }
  std::string library_version() const override { return version_; }

  // Messages between a pair keep their posting order, which the lockstep executor makes the
  // schedule's order; tags are not needed.
  RequestId isend(int peer, const void* data, size_t bytes, uint32_t) override {
    nccl_check(ncclSend(data, bytes, ncclUint8, peer, comm_, stream_),
               "ncclSend(" + std::to_string(bytes) + " bytes to rank " + std::to_string(peer) + ")");
    return 0;
  }
  RequestId irecv(int peer, void* data, size_t bytes, uint32_t) override {
    nccl_check(ncclRecv(data, bytes, ncclUint8, peer, comm_, stream_),
               "ncclRecv(" + std::to_string(bytes) + " bytes from rank " + std::to_string(peer) + ")");
    return 0;
  }
  bool test(RequestId) override { return true; }  // enqueued is complete, in stream order
  void group_begin() override { nccl_check(ncclGroupStart(), "ncclGroupStart"); }
  void group_end() override { nccl_check(ncclGroupEnd(), "ncclGroupEnd"); }

  void native_allreduce(const void* input, void* output, size_t count, const NativeReduction& r) override {
    nccl_check(ncclAllReduce(input, output, count, datatype(r), op(r.op), comm_, stream_),
               "ncclAllReduce(count=" + std::to_string(count) + ")");
  }

  void barrier() override {
    if (cudaStreamSynchronize(stream_) != cudaSuccess) throw TransportError("cudaStreamSynchronize before barrier failed");
    bootstrap_.barrier();
  }

 private:
  static ncclDataType_t datatype(const NativeReduction& r) {
    using K = NativeReduction::Kind;
    switch (r.kind) {
      case K::SignedInt: return r.element_size == 1 ? ncclInt8 : r.element_size == 4 ? ncclInt32 : ncclInt64;
      case K::UnsignedInt: return r.element_size == 1 ? ncclUint8 : r.element_size == 4 ? ncclUint32 : ncclUint64;
      case K::Float: return r.element_size == 2 ? ncclFloat16 : r.element_size == 4 ? ncclFloat32 : ncclFloat64;
      case K::BFloat: return ncclBfloat16;
    }
    throw TransportUnavailable("ncclAllReduce: no NCCL datatype for this element");
  }

  static ncclRedOp_t op(NativeReduction::Op o) {
    using O = NativeReduction::Op;
    switch (o) {
      case O::Sum: return ncclSum;
      case O::Prod: return ncclProd;
      case O::Min: return ncclMin;
      case O::Max: return ncclMax;
    }
    return ncclSum;
  }

  Bootstrap& bootstrap_;
  cudaStream_t stream_;
  ncclComm_t comm_ = nullptr;
  std::string version_;
};

}  // namespace

std::unique_ptr<Transport> make_nccl_transport(const TransportContext& context) {
  if (!context.device || !context.device->is_gpu())
    throw TransportUnavailable("-t nccl / -a nccl: NCCL moves GPU memory; run with --device cuda");
  if (!context.bootstrap) throw TransportUnavailable("-t nccl: needs the run's bootstrap to exchange the NCCL id");
  return std::make_unique<NcclTransport>(*context.bootstrap, *context.device);
}

}  // namespace arlab
