// How a run's ranks share the cores of the machines they run on. "Machine" means kernel: ranks
// with the same boot id, so the nodes of jobs/local-cluster (network namespaces of one host)
// or containers on one host count as the one machine whose cores they share, which the
// launcher's notion of a node (MPI_COMM_TYPE_SHARED) does not see.
#pragma once

#include <string>

#include "transports/bootstrap.h"

namespace arlab {

struct MachineCores {
  int ranks = 1;   // ranks on this rank's machine, this one included
  long cores = 1;  // its online cores, or Slurm's SLURM_CPUS_ON_NODE where smaller
  bool shared() const { return cores < 1 || ranks > cores; }  // then waiting ranks yield at once
  std::string describe() const;  // "4 rank(s) on this machine's 2 core(s), more ranks than cores: ..."
};

// Collective: every rank gives its boot id (its hostname where /proc has none).
MachineCores machine_cores(Bootstrap& boot);

// The processor a result came from, for the results' header: "AMD EPYC, L2 1 MiB per core,
// L3 32 MiB". The on-node numbers depend on it more than on anything else (the cache sizes
// decide where the roofline drops, and the build VMs differ from session to session).
// cpuinfo: the text of /proc/cpuinfo (its first "model name"); l2_bytes, l3_bytes: the cache
// sizes, 0 or less where nothing says (the part is left out); sizes_from_sysfs: false where
// they are sysconf's (then the line says so: an L3 there may be the whole chip's).
std::string cpu_description(const std::string& cpuinfo, long l2_bytes, long l3_bytes, bool sizes_from_sysfs = true);
// This machine's: /proc/cpuinfo, and cpu0's caches (cache_bytes in transports/cpu_caches.h).
std::string this_cpu();

}  // namespace arlab
