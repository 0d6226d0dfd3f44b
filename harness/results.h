// What one `arlab bench` run measures and the metadata a reader needs to trust a number.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace arlab {

struct Measurement {
  double time_us = 0;  // slowest rank's average per iteration
  double algbw = 0;    // GB/s = bytes / time
  double busbw = 0;    // algbw * 2(N-1)/N
  int64_t wrong = -1;  // -1: not checked
};

struct ResultRow {
  std::string algorithm;
  std::string transport;
  uint64_t size = 0;
  uint64_t count = 0;
  std::string type;
  std::string redop;
  std::string chosen;  // auto: the algorithm it picked for this size
  Measurement out_of_place;
  Measurement in_place;
  double bound_us = 0;  // --roofline: the lowest time the hardware allows (0: not computed)
};

struct RunMetadata {
  std::string arlab_version, git_commit, command_line, started_at;
  std::string transport, mpi_library, slurm_job_id;
  std::string device = "host";  // "host" or "cuda:0 NVIDIA H200" (rank 0's)
  std::string libraries;        // other libraries that ran, with versions ("NCCL 2.28.3")
  std::string type, redop;
  int nranks = 1, nnodes = 1, ranks_per_node = 1;
  std::vector<std::string> hosts;  // one per rank
  int iterations = 0, warmup = 0, check = 0;
  uint64_t chunk_bytes = 0;
  std::vector<std::string> algorithms;
  double alpha = 0, beta = 0, gamma = 0;  // the model `auto` chose with
  std::string tuning_source;
  // How the ranks share this machine's cores: "2 ranks on this machine's 2 cores", and when
  // they outnumber them, that waiting ranks yield (ranks on one kernel: one boot id).
  std::string cores;
  std::string cpu;       // rank 0's processor and caches (this_cpu in machine_cores.h)
  std::string roofline;  // --roofline: how the bound was computed (the table header's lines)
  int repeats = 1;       // --repeats: each time is the median of this many interleaved runs
  // Rank 0's NCCL_*, UCX_*, OMPI_MCA_* and FI_* variables: the settings that change what the
  // libraries do, recorded so that a number can be reproduced.
  std::vector<std::pair<std::string, std::string>> environment;
};

// The variables above from this process's environment, sorted.
std::vector<std::pair<std::string, std::string>> library_environment();

// busbw = algbw * 2(N-1)/N for all-reduce (nccl-tests' bus bandwidth).
inline Measurement measurement(uint64_t bytes, double time_us, int nranks, int64_t wrong) {
  Measurement m;
  m.time_us = time_us;
  m.algbw = time_us > 0 ? static_cast<double>(bytes) / (time_us * 1e3) : 0;
  m.busbw = m.algbw * (nranks > 1 ? 2.0 * (nranks - 1) / nranks : 0.0);
  m.wrong = wrong;
  return m;
}

}  // namespace arlab
