#include "harness/machine_cores.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace arlab {

std::string MachineCores::describe() const {
  return std::to_string(ranks) + " rank(s) on this machine's " + std::to_string(cores) + " core(s)" +
         (shared() ? ", more ranks than cores: waiting ranks yield at once" : "");
}

MachineCores machine_cores(Bootstrap& boot) {
  MachineCores m;
  m.cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (const char* slurm = std::getenv("SLURM_CPUS_ON_NODE")) m.cores = std::min(m.cores, std::atol(slurm));
  std::string id = boot.hostname();
  if (std::FILE* f = std::fopen("/proc/sys/kernel/random/boot_id", "r")) {
    char text[64] = {};
    if (std::fgets(text, sizeof text, f)) id = text;
    std::fclose(f);
  }
  const std::vector<std::string> ids = boot.gather_strings(id);
  m.ranks = static_cast<int>(std::count(ids.begin(), ids.end(), id));
  return m;
}

}  // namespace arlab
