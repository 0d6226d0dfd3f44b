#include "transports/ucx/ucx_worker.h"

#include <cstdlib>

#include <ucs/config/global_opts.h>

#include "transports/transport.h"

namespace arlab::ucx {

void check(ucs_status_t status, const std::string& what) {
  if (status != UCS_OK && status != UCS_INPROGRESS)
    throw TransportError(what + " failed: " + ucs_status_string(status));
}

Worker::Worker(Bootstrap& bootstrap, uint64_t features) : bootstrap_(bootstrap) {
  // Shared-memory endpoints cannot survive a dead peer (UCX 1.13 refuses
  // UCP_ERR_HANDLING_MODE_PEER for sysv / posix), so on one UCX aborts after naming the failed
  // call; its backtrace would bury that line (and the harness's report of where the rank was).
  // The user's own UCX_HANDLE_ERRORS wins. (UCS reads its global options when it is loaded,
  // so this is set through its API, not the environment.)
  if (!std::getenv("UCX_HANDLE_ERRORS")) ucs_global_opts_set_value("HANDLE_ERRORS", "none");
  ucp_config_t* config = nullptr;
  check(ucp_config_read(nullptr, nullptr, &config), "ucp_config_read");
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES;
  params.features = features;
  const ucs_status_t init = ucp_init(&params, config, &context_);
  ucp_config_release(config);
  check(init, "ucp_init");

  ucp_worker_params_t worker_params{};
  worker_params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  worker_params.thread_mode = UCS_THREAD_MODE_SINGLE;
  check(ucp_worker_create(context_, &worker_params, &worker_), "ucp_worker_create");

  // Every rank's worker address, then an endpoint to each peer.
  ucp_address_t* address = nullptr;
  size_t length = 0;
  check(ucp_worker_get_address(worker_, &address, &length), "ucp_worker_get_address");
  const auto all = bootstrap.gather_strings(std::string(reinterpret_cast<const char*>(address), length));
  ucp_worker_release_address(worker_, address);
  endpoints_.assign(bootstrap.size(), nullptr);
  for (int peer = 0; peer < bootstrap.size(); ++peer) {
    if (peer == bootstrap.rank()) continue;
    ucp_ep_params_t ep{};
    ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    ep.address = reinterpret_cast<const ucp_address_t*>(all[peer].data());
    check(ucp_ep_create(worker_, &ep, &endpoints_[peer]), "ucp_ep_create(rank " + std::to_string(peer) + ")");
  }
}

Worker::~Worker() {
  // Everyone is done sending before anyone closes; closing without flush is then safe.
  try {
    bootstrap_.barrier();
  } catch (...) {
  }
  for (ucp_ep_h& ep : endpoints_) {
    if (!ep) continue;
    ucp_request_param_t param{};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = UCP_EP_CLOSE_FLAG_FORCE;
    void* request = ucp_ep_close_nbx(ep, &param);
    if (UCS_PTR_IS_PTR(request)) {
      while (ucp_request_check_status(request) == UCS_INPROGRESS) ucp_worker_progress(worker_);
      ucp_request_free(request);
    }
    ep = nullptr;
  }
  if (worker_) ucp_worker_destroy(worker_);
  if (context_) ucp_cleanup(context_);
}

void Worker::wait(void* request, const std::string& what) {
  ucs_status_t status;
  while ((status = poll(request)) == UCS_INPROGRESS) {
  }
  check(status, what);
}

ucs_status_t Worker::poll(void* request, bool progress) {
  if (request == nullptr) return UCS_OK;  // completed at once
  if (UCS_PTR_IS_ERR(request)) return UCS_PTR_STATUS(request);
  if (progress) ucp_worker_progress(worker_);
  const ucs_status_t status = ucp_request_check_status(request);
  if (status != UCS_INPROGRESS) ucp_request_free(request);
  return status;
}

std::string Worker::transports_in_use() const {
  const char* tls = std::getenv("UCX_TLS");
  return std::string("UCX ") + ucp_get_version_string() + (tls ? std::string(" UCX_TLS=") + tls : "");
}

}  // namespace arlab::ucx
