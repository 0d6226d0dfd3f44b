// `arlab model --seed-example`: the first seed's worked example (../shared/seeds/000_*.txt,
// section 4.2) with the seed's own numbers quoted next to the ones computed here from the
// same inputs, one line per discrepancy (DESIGN.md, "The seed's worked example, checked").
#include <cstdio>

#include "algorithms/registry.h"
#include "harness/fabrics.h"
#include "harness/model.h"
#include "harness/units.h"

namespace arlab {

ModelInput seed_example_input() {
  // The seed's inputs: 16 A100 nodes of one GPU each, HDR InfiniBand, 20 us added.
  ModelInput in;
  in.gpus = 16;
  in.tflops = 312;
  in.flops = 1.5e15;
  in.bytes = 0.8e9;
  const FabricPreset& hdr = *find_fabric("ib-hdr");
  in.fabric = {"ib-hdr", hdr.alpha_s, hdr.bytes_per_second};
  in.intra = in.fabric;
  in.extra_latency_s = 20e-6;
  return in;
}

void print_seed_example() {
  const ModelInput in = seed_example_input();
  const FabricPreset& hdr = *find_fabric("ib-hdr");
  const ModelResult r = evaluate_model(in);
  const AlgorithmModel& ring = r.algorithms.front();
  const int n = in.gpus;
  const double ring_bytes = find_algorithm("ring")->closed_form({n, in.bytes}).bytes_sent;
  const double extra_rounds = ring.fabric_rounds;
  // The seed's own figures, as it wrote them.
  const double seed_bandwidth = 200e9, seed_comm = in.bytes / seed_bandwidth, seed_delta = 16 * 20e-6;
  const double seed_loss = seed_delta / (0.3e-3 + seed_comm);

  std::printf("# The first seed's worked example (seeds/000, section 4.2), checked\n");
  std::printf("# inputs: N = %d GPUs, P = %g TFLOPS each, C = %g FLOP per iteration, D = %g GB, HDR InfiniBand, +20 us\n\n",
              n, in.tflops, in.flops, in.bytes / 1e9);
  std::printf("%-22s %-34s %s\n", "quantity", "the seed wrote", "computed here");
  std::printf("%-22s %-34s %s\n", "T_compute", "1.5e15/(16*312e12) = 0.3 ms", ("T_compute = " + format_duration(r.compute_s)).c_str());
  std::printf("%-22s %-34s %s\n", "B (HDR InfiniBand)", "200 GB/s", format_bandwidth(hdr.bytes_per_second).c_str());
  char volume[64];
  std::snprintf(volume, sizeof volume, "2(N-1)/N x D = %.2f GB (ring)", ring_bytes / 1e9);
  std::printf("%-22s %-34s %s\n", "data sent per GPU", "D = 0.8 GB", volume);
  std::printf("%-22s %-34s %s\n", "T_comm", ("0.8/200 = " + format_duration(seed_comm)).c_str(),
              (format_duration(ring.bandwidth_s) + " bandwidth + " + format_duration(ring.latency_s) + " latency").c_str());
  std::printf("%-22s %-34s %s\n", "extra latency", ("16 x 20 us = " + format_duration(seed_delta) + " (\"N-1\")").c_str(),
              (std::to_string(static_cast<int>(extra_rounds)) + " rounds x 20 us = " + format_duration(ring.extra_s)).c_str());
  char loss[96];
  std::snprintf(loss, sizeof loss, "%.2f %% serial, %.2f %% overlapped", 100 * ring.loss_serial, 100 * ring.loss_overlapped);
  char seed_loss_text[32];
  std::snprintf(seed_loss_text, sizeof seed_loss_text, "%.1f %%", 100 * seed_loss);
  std::printf("%-22s %-34s %s\n\n", "efficiency loss", seed_loss_text, loss);

  std::printf("discrepancies:\n");
  std::printf("- T_compute units: 1.5e15 / (16 x 312e12) = %s, not 0.3 ms (ms where it means s: 1000x).\n",
              format_duration(r.compute_s).c_str());
  std::printf("- HDR bandwidth: HDR InfiniBand is 200 Gb/s (bits) per port = %g GB/s, not 200 GB/s (%.0fx).\n",
              hdr.bytes_per_second / 1e9, seed_bandwidth / hdr.bytes_per_second);
  std::printf("- data volume: a ring all-reduce sends 2(N-1)/N x D = %.2f GB per GPU, not D = %.1f GB.\n", ring_bytes / 1e9,
              in.bytes / 1e9);
  std::printf("- latency rounds: a ring all-reduce has 2(N-1) = %d message rounds, not N-1 = %d (and the seed multiplied by 16).\n",
              static_cast<int>(extra_rounds), n - 1);
  std::printf("- conclusion: 20 us more per message costs %s per iteration of %s: %.2f %%, not %.1f %%. Latency matters\n"
              "  with small messages, large N, many rounds and little compute to hide them; the table shows each algorithm:\n\n",
              format_duration(ring.extra_s).c_str(), format_duration(ring.serial_s).c_str(), 100 * ring.loss_serial,
              100 * seed_loss);
  print_model(in);
}

}  // namespace arlab
