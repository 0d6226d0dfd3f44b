#include "harness/sim_network.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "harness/errors.h"
#include "harness/units.h"

namespace arlab {

std::string NetworkSpec::describe() const {
  char line[512];
  std::snprintf(line, sizeof line, "%s: alpha %s, %s per port", fabric.name.c_str(), format_duration(fabric.alpha_s).c_str(),
                format_bandwidth(fabric.bytes_per_second).c_str());
  std::string s = line;
  if (topology == Topology::FatTree) {
    std::snprintf(line, sizeof line, "; two-level fat tree, %d NICs per leaf, oversubscription %g:1", leaf_ports,
                  oversubscription);
    s += line;
  } else {
    s += "; one non-blocking switch";
  }
  if (ranks_per_node > 1) {
    std::snprintf(line, sizeof line, "; nodes of %d joined by %s (alpha %s, %s per port)", ranks_per_node, intra.name.c_str(),
                  format_duration(intra.alpha_s).c_str(), format_bandwidth(intra.bytes_per_second).c_str());
    s += line;
  }
  return s;
}

Network::Network(const NetworkSpec& spec, int nranks) : spec_(spec) {
  if (!(spec.fabric.bytes_per_second > 0) || spec.fabric.alpha_s < 0)
    throw UsageError("--bandwidth / --alpha: the fabric needs a positive bandwidth and a latency >= 0");
  if (spec.ranks_per_node < 1) throw UsageError("--gpus-per-node: at least 1");
  if (spec.ranks_per_node > 1 && !(spec.intra.bytes_per_second > 0)) throw UsageError("--intra-fabric: needs a positive bandwidth");
  const double fabric_spb = 1 / spec.fabric.bytes_per_second;
  fabric_out_.assign(nranks, {{}, fabric_spb});
  fabric_in_.assign(nranks, {{}, fabric_spb});
  if (spec.ranks_per_node > 1) {
    intra_out_.assign(nranks, {{}, 1 / spec.intra.bytes_per_second});
    intra_in_.assign(nranks, {{}, 1 / spec.intra.bytes_per_second});
  }
  if (spec.topology == Topology::FatTree) {
    if (spec.leaf_ports < 1) throw UsageError("--leaf-ports: at least 1");
    if (!(spec.oversubscription >= 1)) throw UsageError("--oversubscription: at least 1 (1 = non-blocking)");
    const int leaves = (nranks + spec.leaf_ports - 1) / spec.leaf_ports;
    links_per_leaf_ = std::max(1, static_cast<int>(std::lround(spec.leaf_ports / spec.oversubscription)));
    leaf_up_.assign(static_cast<size_t>(leaves) * links_per_leaf_, {{}, fabric_spb});
    leaf_down_.assign(static_cast<size_t>(leaves) * links_per_leaf_, {{}, fabric_spb});
  }
}

Network::Resource* Network::free_first(std::vector<Resource>& links, int leaf) {
  Resource* const first = &links[static_cast<size_t>(leaf) * links_per_leaf_];
  Resource* best = first;
  for (Resource* link = first + 1; link != first + links_per_leaf_; ++link)
    if (link->free.total() < best->free.total()) best = link;
  return best;
}

SimTime Network::leave(int src, int dst, double bytes, const SimTime& ready, SimTime* sender_done) {
  Resource& port = inside_node(src, dst) ? intra_out_[src] : fabric_out_[src];
  const SimTime head = later(ready, port.free);
  port.free = head;
  port.free.bandwidth += bytes * port.seconds_per_byte;
  *sender_done = port.free;
  return head;
}

// Each resource takes the message once its head has reached it and the resource is free, and
// holds it for bytes x its seconds per byte (cut through: the head moves on at once). The
// last byte is through when the slowest of them is done; alpha after that it has arrived.
SimTime Network::arrive(int src, int dst, double bytes, const SimTime& head_in, const SimTime& sender_done) {
  Resource* path[3];
  int hops = 0;
  const bool intra = inside_node(src, dst);
  if (!intra && spec_.topology == Topology::FatTree) {
    const int leaf_src = src / spec_.leaf_ports, leaf_dst = dst / spec_.leaf_ports;
    if (leaf_src != leaf_dst) {
      path[hops++] = free_first(leaf_up_, leaf_src);
      path[hops++] = free_first(leaf_down_, leaf_dst);
    }
  }
  path[hops++] = intra ? &intra_in_[dst] : &fabric_in_[dst];
  SimTime head = head_in, done = sender_done;
  for (int i = 0; i < hops; ++i) {
    Resource& r = *path[i];
    head = later(head, r.free);
    r.free = head;
    r.free.bandwidth += bytes * r.seconds_per_byte;
    done = later(done, r.free);
  }
  done.latency += intra ? spec_.intra.alpha_s : spec_.fabric.alpha_s;
  return done;
}

}  // namespace arlab
