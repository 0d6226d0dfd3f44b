#include "transports/ibverbs/verbs_setup.h"

#include <arpa/inet.h>

#include <cerrno>
#include <cstring>

#include "transports/transport.h"

namespace arlab::verbs {

void check(int rc, const std::string& what) {
  if (rc != 0) throw TransportError(what + " failed: " + std::strerror(rc > 0 ? rc : errno));
}

namespace {

// The GID to use on a RoCE port: the requested index, or the first RoCE v2 entry (one with
// an IPv4-mapped address first, as routable RoCE deployments use).
int pick_gid(ibv_context* context, uint8_t port, int gid_table_len, std::string& kind) {
  int best = -1;
  for (int i = 0; i < gid_table_len; ++i) {
    ibv_gid_entry entry{};
    if (ibv_query_gid_ex(context, port, i, &entry, 0) != 0) continue;
    if (entry.gid_type != IBV_GID_TYPE_ROCE_V2) continue;
    const bool ipv4_mapped = std::memcmp(entry.gid.raw, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) == 0;
    if (best < 0 || ipv4_mapped) best = i;
    if (ipv4_mapped) break;
  }
  kind = best >= 0 ? "RoCE v2" : "RoCE v1";
  return best >= 0 ? best : 0;
}

}  // namespace

Port open_port(const PortChoice& choice) {
  int n = 0;
  ibv_device** list = ibv_get_device_list(&n);
  if (!list || n == 0) {
    if (list) ibv_free_device_list(list);
    throw TransportUnavailable("-t ibverbs: no RDMA device on this machine (ibv_get_device_list found none); use -t ucx");
  }
  Port p;
  std::string tried;
  // The requested device and port, or the first device with an active port.
  for (int d = 0; d < n && !p.context; ++d) {
    const std::string name = ibv_get_device_name(list[d]);
    if (!choice.device.empty() && name != choice.device) continue;
    ibv_context* context = ibv_open_device(list[d]);
    if (!context) continue;
    ibv_device_attr device_attr{};
    if (ibv_query_device(context, &device_attr) == 0)
      for (int port = 1; port <= device_attr.phys_port_cnt && !p.context; ++port) {
        if (choice.port && port != choice.port) continue;
        ibv_port_attr attr{};
        if (ibv_query_port(context, static_cast<uint8_t>(port), &attr) != 0) continue;
        tried += (tried.empty() ? "" : ", ") + name + " port " + std::to_string(port);
        if (attr.state != IBV_PORT_ACTIVE) continue;
        p.context = context;
        p.device_name = name;
        p.port = static_cast<uint8_t>(port);
        p.attr = attr;
      }
    if (!p.context) ibv_close_device(context);
  }
  ibv_free_device_list(list);
  if (!p.context)
    throw TransportUnavailable("-t ibverbs: no active port" + (tried.empty() ? std::string() : " (" + tried + ")") +
                               (choice.device.empty() ? "" : " on --ib-dev " + choice.device) + "; use -t ucx");
  p.roce = p.attr.link_layer == IBV_LINK_LAYER_ETHERNET;
  std::string kind = "InfiniBand, LID " + std::to_string(p.attr.lid);
  if (p.roce || choice.gid_index >= 0) {
    p.gid_index = choice.gid_index >= 0 ? choice.gid_index : pick_gid(p.context, p.port, p.attr.gid_tbl_len, kind);
    check(ibv_query_gid(p.context, p.port, p.gid_index, &p.gid), "ibv_query_gid(index " + std::to_string(p.gid_index) + ")");
    if (choice.gid_index >= 0) kind = p.roce ? "RoCE" : "InfiniBand with GRH";
  }
  p.description = p.device_name + " port " + std::to_string(p.port) + ", " + kind +
                  (p.gid_index >= 0 ? ", GID index " + std::to_string(p.gid_index) : "");
  return p;
}

ibv_qp* create_qp(ibv_pd* pd, ibv_cq* cq, uint32_t max_send, uint32_t max_recv) {
  ibv_qp_init_attr attr{};
  attr.send_cq = cq;
  attr.recv_cq = cq;
  attr.qp_type = IBV_QPT_RC;
  attr.cap = {.max_send_wr = max_send, .max_recv_wr = max_recv, .max_send_sge = 1, .max_recv_sge = 1,
              .max_inline_data = 0};
  ibv_qp* qp = ibv_create_qp(pd, &attr);
  if (!qp) throw TransportError(std::string("ibv_create_qp(RC) failed: ") + std::strerror(errno));
  return qp;
}

// RESET -> INIT: which port, and what peers may do to our memory through this QP: write only.
void to_init(ibv_qp* qp, const Port& port) {
  ibv_qp_attr attr{.qp_state = IBV_QPS_INIT, .qp_access_flags = IBV_ACCESS_REMOTE_WRITE, .pkey_index = 0, .port_num = port.port};
  check(ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS),
        "ibv_modify_qp(INIT)");
}

// INIT -> RTR (ready to receive): where the remote QP is (LID, or GID on RoCE), its number
// and first PSN. No RDMA READs are ever issued, so no read resources are reserved.
void to_rtr(ibv_qp* qp, const Port& port, const Endpoint& remote) {
  ibv_qp_attr attr{.qp_state = IBV_QPS_RTR,
                   .path_mtu = port.attr.active_mtu,
                   .rq_psn = remote.psn,
                   .dest_qp_num = remote.qp_num,
                   .ah_attr = {.dlid = remote.lid, .port_num = port.port},
                   .max_dest_rd_atomic = 0,
                   .min_rnr_timer = 12};
  if (port.gid_index >= 0) {
    attr.ah_attr.is_global = 1;
    attr.ah_attr.grh.dgid = remote.gid;
    attr.ah_attr.grh.sgid_index = static_cast<uint8_t>(port.gid_index);
    attr.ah_attr.grh.hop_limit = 64;
  }
  check(ibv_modify_qp(qp, &attr,
                      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                          IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER),
        "ibv_modify_qp(RTR, remote QP " + std::to_string(remote.qp_num) + ")");
}

// RTR -> RTS (ready to send): our first PSN and how hard to retry a lost or unready peer.
void to_rts(ibv_qp* qp, uint32_t my_psn) {
  ibv_qp_attr attr{.qp_state = IBV_QPS_RTS,
                   .sq_psn = my_psn,
                   .max_rd_atomic = 0,
                   .timeout = 14,
                   .retry_cnt = 7,
                   .rnr_retry = 7};  // a receiver out of posted receives: retry for ever
  check(ibv_modify_qp(qp, &attr,
                      IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                          IBV_QP_MAX_QP_RD_ATOMIC),
        "ibv_modify_qp(RTS)");
}

}  // namespace arlab::verbs
