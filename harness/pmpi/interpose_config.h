// What the PMPI library (libarlab_mpi.so) runs, read from the environment at MPI_Init:
//   ARLAB_ALGO       any arlab algorithm, or auto (default)
//   ARLAB_TRANSPORT  any transport of `arlab bench -t` that moves host memory (default mpi)
//   ARLAB_CHUNK      pipeline chunk, a size like 64K (default: none)
//   ARLAB_MIN_BYTES  smaller all-reduces go to the MPI library's own (default 0: none do)
//   ARLAB_VERBOSE    1: say once per reason what went to the MPI library and why
//   ARLAB_TIMEOUT    seconds without progress inside a served call before the job is aborted
//                    with what the rank waits for (default 60; 0: never)
// No MPI here, so the rules are unit-tested without ranks.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace arlab {

struct InterposeConfig {
  std::string algorithm = "auto";
  std::string transport = "mpi";
  uint64_t chunk_bytes = 0;
  uint64_t min_bytes = 0;
  bool verbose = false;
  double timeout_s = 60;

  std::string describe() const;  // "ring on mpi, chunk 64K, from 4K"
  uint64_t digest() const;       // equal on ranks that read equal settings
};

using EnvironmentLookup = std::function<const char*(const char* name)>;

// Throws UsageError naming the variable and its accepted values.
InterposeConfig read_interpose_config(const EnvironmentLookup& getenv);

}  // namespace arlab
