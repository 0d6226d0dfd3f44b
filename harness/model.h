// `arlab model`: the first seed's analysis as a calculator. Compute time per iteration, and
// per algorithm the all-reduce's latency and bandwidth terms (counts from the registry's
// closed forms, which the tests hold to the schedules), the iteration time with and without
// overlap, and what extra latency per message costs. `--seed-example` checks the seed's
// worked example line by line (DESIGN.md, "The seed's worked example, checked").
#pragma once

#include <string>
#include <vector>

#include "harness/fabrics.h"

namespace arlab {

struct ModelInput {
  int gpus = 1;
  double tflops = 0;  // per GPU
  double flops = 0;   // per iteration, whole job
  double bytes = 0;   // gradients all-reduced per GPU per iteration
  Link fabric;        // between nodes (every step of a flat algorithm)
  int gpus_per_node = 1;
  Link intra;  // inside a node (hier's intra-node phases)
  double extra_latency_s = 0;
};

struct AlgorithmModel {
  std::string algorithm;
  double rounds = 0;           // message rounds on the critical path
  double fabric_rounds = 0;    // of those, across the fabric (what extra latency hits)
  double latency_s = 0, bandwidth_s = 0, comm_s = 0;
  double extra_s = 0;                          // extra latency x fabric rounds
  double serial_s = 0, overlapped_s = 0;       // iteration: compute + comm, max(compute, comm)
  double loss_serial = 0, loss_overlapped = 0;  // share of the iteration the extra latency costs
};

struct ModelResult {
  double compute_s = 0;
  std::vector<AlgorithmModel> algorithms;
};

// ring, rd, rabenseifner, dbtree, hier. Throws UsageError for inputs that make no sense.
ModelResult evaluate_model(const ModelInput& input);

void print_model(const ModelInput& input);
ModelInput seed_example_input();  // the seed's 16 A100s on HDR InfiniBand, +20 us
void print_seed_example();  // seed_example.cpp

int run_model(int argc, char** argv);

}  // namespace arlab
