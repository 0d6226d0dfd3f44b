// `arlab bench` options, with nccl-tests' flags (-b -e -f -i -n -w -c -d -o) plus the lab's
// own (-a -t --chunk --csv --json). Parsed and validated before MPI starts, so bad input is
// one line and exit status 2 on every rank, never a hang.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/datatype.h"

namespace arlab {

struct BenchOptions {
  uint64_t min_bytes = 8;
  uint64_t max_bytes = 16u << 20;
  double factor = 2;
  uint64_t increment = 0;
  int iterations = 20;
  int warmup = 5;
  int check = 1;
  DataType type = DataType::Float32;
  RedOp op = RedOp::Sum;
  std::vector<std::string> algorithms{"ring", "mpi"};
  std::string transport = "mpi";
  std::string device = "host";     // host | cuda (default cuda when -t nccl or -a has nccl)
  bool allow_gpu_sharing = false;  // more ranks per node than GPUs
  bool lockstep = false;           // run schedules round by round (always on -t nccl)
  std::string ib_device;           // -t ibverbs: --ib-dev (empty: first with an active port)
  int ib_port = 0;                 // --ib-port (0: first active)
  int gid_index = -1;              // --gid-index (-1: RoCE v2 chosen automatically)
  uint64_t chunk_bytes = 0;
  int ranks_per_node = 0;  // 0: from the launcher
  std::string inter = "ring", intra = "direct";
  std::string csv_path, json_path;
  std::string trace_path;       // --trace: each size's steps per rank, as a Chrome trace
  std::string prometheus_path;  // --prometheus: the text exposition format, for node_exporter
  std::string tuning_path;  // empty: results/tuning/<host>.json
  bool inject_corruption = false;
  uint64_t seed = 0x5eed;
  uint64_t offset_bytes = 0;  // --offset: input and output start this many bytes past an aligned address
  double timeout_s = 60;  // --timeout (ARLAB_TIMEOUT): no progress for this long ends the job; 0: never
  bool roofline = false;        // --roofline: the hardware's bound next to every time
  double link_rate = 0;         // --link-rate, bytes/s (0: measured between two nodes)
  int repeats = 1;              // --repeats: median of this many runs, algorithms interleaved
  bool symmetric = false;       // --symmetric: input and output in the transport's symmetric memory
  std::string command_line;
};

// The settings every rank must share, as (flag, value): a launcher line that gives ranks
// different ones would hang or compute the wrong thing, so the ranks compare them first.
std::vector<std::pair<std::string, std::string>> shared_settings(const BenchOptions& options);

// A results file must be creatable before the run starts, not after its first row: throws
// UsageError naming the flag when its directory is missing or not writable.
void check_writable(const std::string& flag, const std::string& path);

// "ring,,dbtree" -> {"ring", "dbtree"}; a name given twice is a UsageError naming the flag.
std::vector<std::string> split_list(const std::string& flag, const std::string& text);

// Throws UsageError naming the flag; CLI::CallForHelp / CLI::Success for --help.
BenchOptions parse_bench_options(int argc, char** argv);
// UsageError unless `name` is a transport this build has (-t of bench and tune).
void require_usable_transport(const std::string& name);

}  // namespace arlab
