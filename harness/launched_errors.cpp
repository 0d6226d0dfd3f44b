#include "harness/launched_errors.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace arlab {

int launcher_rank() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* v = std::getenv(var)) return std::atoi(v);
  return -1;
}

bool agree_on_usage_errors(Bootstrap& boot, const std::string& command, const std::string& mine) {
  const std::vector<std::string> errors = boot.gather_strings(mine);
  for (size_t r = 0; r < errors.size(); ++r) {
    if (errors[r].empty()) continue;
    if (boot.rank() == 0) {
      const std::string who = errors[r] == errors[0] ? "" : "rank " + std::to_string(r) + ": ";
      std::fprintf(stderr, "arlab %s: %s%s\n", command.c_str(), who.c_str(), errors[r].c_str());
    }
    return true;
  }
  return false;
}

}  // namespace arlab
