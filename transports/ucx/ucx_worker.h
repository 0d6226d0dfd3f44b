// What both UCX transports share: a UCP context and worker per rank, and an endpoint to
// every peer, made from worker addresses exchanged over the bootstrap. UCX picks its wires
// from UCX_TLS (sm, tcp, rc, ...), so the same code runs over shared memory here and over
// InfiniBand on a cluster.
#pragma once

#include <ucp/api/ucp.h>

#include <string>
#include <vector>

#include "transports/bootstrap.h"

namespace arlab::ucx {

// Throws TransportError naming the call when status is an error.
void check(ucs_status_t status, const std::string& what);

class Worker {
 public:
  Worker(Bootstrap& bootstrap, uint64_t features);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  ucp_context_h context() const { return context_; }
  ucp_worker_h worker() const { return worker_; }
  ucp_ep_h endpoint(int peer) const { return endpoints_[peer]; }
  void progress() {
    while (ucp_worker_progress(worker_) != 0) {
    }
  }
  // Drives `request` (from a *_nbx call) to completion; throws on error.
  void wait(void* request, const std::string& what);
  // Progresses (unless `progress` is false) and polls `request` (from a *_nbx call):
  // UCS_INPROGRESS while it runs, else its final status (the request is then freed).
  ucs_status_t poll(void* request, bool progress = true);
  std::string transports_in_use() const;  // e.g. "sm,self" from UCX_TLS, for the report

 private:
  Bootstrap& bootstrap_;
  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  std::vector<ucp_ep_h> endpoints_;
};

}  // namespace arlab::ucx
