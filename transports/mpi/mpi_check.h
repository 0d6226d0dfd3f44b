// Turns an MPI return code into a TransportError naming the call. Only transports/mpi/
// includes <mpi.h>.
#pragma once

#include <mpi.h>

#include <string>

#include "transports/transport.h"

namespace arlab {

inline void mpi_check(int code, const std::string& call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw TransportError(call + " failed: " + std::string(text, length));
}

#define ARLAB_MPI_CHECK(call, description) ::arlab::mpi_check((call), (description))

}  // namespace arlab
