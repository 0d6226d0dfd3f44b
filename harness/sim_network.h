// The simulator's network: where a message's time goes. Every rank has one port per link class
// (its NIC into the fabric and, in nodes of several GPUs, its NVLink port), each full duplex:
// one message at a time in each direction, at the link's bandwidth. A message waits for every
// resource on its path, occupies each for bytes / bandwidth (cut through: the resources of one
// message overlap), and arrives alpha after its last byte leaves the slowest one:
//
//   uncontended:  arrival = ready + bytes / bandwidth + alpha      (the alpha-beta model)
//
// Topologies: one non-blocking switch (only the ports can be busy); a two-level fat tree,
// where a message between leaves also takes one of the source leaf's uplinks and one of the
// destination leaf's downlinks (leaf_ports / oversubscription of each per leaf, at the port's
// bandwidth, the one free first: ideal load balancing); and nodes of G ranks whose messages inside a node take the intra-node
// link (NVLink) instead of the fabric.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/fabrics.h"

namespace arlab {

// A point in simulated time, kept as the three parts of the critical path that led to it.
struct SimTime {
  double latency = 0, bandwidth = 0, reduction = 0;
  double total() const { return latency + bandwidth + reduction; }
};
inline const SimTime& later(const SimTime& a, const SimTime& b) { return b.total() > a.total() ? b : a; }

enum class Topology : uint8_t { Switch, FatTree };

struct NetworkSpec {
  Topology topology = Topology::Switch;
  Link fabric;              // between nodes
  Link intra;               // inside a node; used when ranks_per_node > 1
  int ranks_per_node = 1;   // G: consecutive ranks share a node
  int leaf_ports = 32;      // fat tree: NICs under one leaf switch
  double oversubscription = 1;  // fat tree: leaf downlink capacity / uplink capacity

  std::string describe() const;  // one line for the table's header
};

class Network {
 public:
  Network(const NetworkSpec& spec, int nranks);

  // A message of `bytes` from src to dst, ready at `ready`, takes the sender's port (messages
  // leave a port in the order they were posted): returns when its first byte leaves, and sets
  // `sender_done` to when its last byte has.
  SimTime leave(int src, int dst, double bytes, const SimTime& ready, SimTime* sender_done);
  // The rest of the path, reserved when the first byte leaves (call in time order, so every
  // resource serves messages in the order they reach it): returns the arrival at dst.
  SimTime arrive(int src, int dst, double bytes, const SimTime& head, const SimTime& sender_done);

 private:
  struct Resource {
    SimTime free;         // when the last message reserved on it has passed
    double seconds_per_byte;
  };
  bool inside_node(int src, int dst) const { return spec_.ranks_per_node > 1 && src / spec_.ranks_per_node == dst / spec_.ranks_per_node; }
  Resource* free_first(std::vector<Resource>& links, int leaf);  // of a leaf's uplinks or downlinks

  NetworkSpec spec_;
  int links_per_leaf_ = 0;
  // Per rank: fabric out / in, intra-node out / in. Per leaf, links_per_leaf_ each: up, down.
  std::vector<Resource> fabric_out_, fabric_in_, intra_out_, intra_in_, leaf_up_, leaf_down_;
};

}  // namespace arlab
