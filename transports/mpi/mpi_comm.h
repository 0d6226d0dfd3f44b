// The MPI transport on a communicator other than MPI_COMM_WORLD: what the PMPI library
// (harness/pmpi/) needs to run arlab's algorithms on an application's communicators. A
// bootstrap made here duplicates the communicator and never initialises or finalises MPI;
// every transport made from it (make_transport with it in the context) works on that group.
#pragma once

#include <mpi.h>

#include <memory>

#include "transports/bootstrap.h"

namespace arlab {

std::unique_ptr<Bootstrap> make_mpi_bootstrap_on(MPI_Comm comm);

// The communicator of an MPI bootstrap; MPI_COMM_WORLD for any other (or none).
MPI_Comm bootstrap_communicator(const Bootstrap* bootstrap);

}  // namespace arlab
