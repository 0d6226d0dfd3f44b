// Bad input under a launcher (mpirun, srun). Every rank parses the same flags, but a rank
// that exits before the others have started may make the launcher kill rank 0 before rank 0
// has printed anything: the job would end with status 2 and no message. So under a launcher,
// ranks keep their parse error, start MPI, agree in one gather, and rank 0 prints while MPI
// still holds every rank; outside a launcher the error is printed before MPI starts.
#pragma once

#include <string>

#include "harness/errors.h"
#include "transports/bootstrap.h"

namespace arlab {

// The rank a launcher gave this process (from its environment), or -1 outside any launcher.
int launcher_rank();

// Calls parse(); a UsageError it throws is rethrown outside a launcher and returned (as its
// message) under one, to be given to agree_on_usage_errors once MPI has started.
template <typename Parse>
std::string usage_error_of(Parse&& parse) {
  try {
    parse();
  } catch (const UsageError& e) {
    if (launcher_rank() < 0) throw;
    return e.what();
  }
  return {};
}

// Collective: every rank gives its own parse error ("" for none). True when any rank has one,
// after rank 0 has printed the first ("arlab COMMAND: ...", naming the rank when it is not
// rank 0's own); every rank should then exit 2.
bool agree_on_usage_errors(Bootstrap& boot, const std::string& command, const std::string& mine);

}  // namespace arlab
