// Raw verbs, set up the way rdma-core's rc_pingpong does it, one function per step:
//   open_port         pick the device and an ACTIVE port (and on RoCE a GID: RoCE v2 by default)
//   create_qp         one reliable-connected queue pair per peer
//   to_init / to_rtr / to_rts   the three state transitions, each with the attributes it needs
// QP numbers, LIDs, GIDs and starting PSNs travel through the MPI bootstrap (Endpoint).
#pragma once

#include <infiniband/verbs.h>

#include <string>

namespace arlab::verbs {

// Throws TransportError naming the call and errno when rc != 0.
void check(int rc, const std::string& what);

struct PortChoice {
  std::string device;  // empty: the first device that has an active port
  int port = 0;        // 0: the first active port
  int gid_index = -1;  // -1: on RoCE, the first RoCE v2 GID (IPv4-mapped preferred)
};

struct Port {
  ibv_context* context = nullptr;
  std::string device_name;
  uint8_t port = 0;
  ibv_port_attr attr{};
  bool roce = false;  // Ethernet link layer: addressed by GID, not LID
  int gid_index = -1;
  ibv_gid gid{};
  std::string description;  // "mlx5_0 port 1, RoCE v2, GID index 3" for the report
};

// Throws TransportUnavailable when there is no device or no active port.
Port open_port(const PortChoice& choice);

// What a peer needs to connect its QP to ours.
struct Endpoint {
  uint32_t qp_num;
  uint32_t psn;
  uint16_t lid;
  ibv_gid gid;
};

ibv_qp* create_qp(ibv_pd* pd, ibv_cq* cq, uint32_t max_send, uint32_t max_recv);
void to_init(ibv_qp* qp, const Port& port);
void to_rtr(ibv_qp* qp, const Port& port, const Endpoint& remote);
void to_rts(ibv_qp* qp, uint32_t my_psn);

}  // namespace arlab::verbs
