#include "harness/model.h"

#include <algorithm>
#include <cstdio>

#include "algorithms/registry.h"
#include "harness/cli.h"
#include "harness/errors.h"
#include "harness/fabrics.h"
#include "harness/fit.h"
#include "harness/units.h"

namespace arlab {
namespace {

const char* const kModelAlgorithms[] = {"ring", "rd", "rabenseifner", "dbtree", "hier"};

CostCounts closed_form(const std::string& name, const CostQuery& q) { return find_algorithm(name)->closed_form(q); }

// One algorithm's terms. Flat algorithms run every step at the fabric's speed (the slowest
// link bounds each ring step); hier's intra-node phases run on the intra-node link and its
// inter-node ring on the fabric, with the counts split as (hier's) - (the ring between nodes).
AlgorithmModel model_algorithm(const std::string& name, const ModelInput& in, double compute_s) {
  AlgorithmModel m{name};
  const int k = std::clamp(in.gpus_per_node, 1, in.gpus);
  if (name == "hier" && k > 1) {
    const CostCounts all = closed_form(name, {in.gpus, in.bytes, k, "ring", "direct"});
    const CostCounts between = in.gpus / k > 1 ? closed_form("ring", {in.gpus / k, in.bytes / k}) : CostCounts{};
    const double intra_rounds = all.rounds - between.rounds, intra_bytes = all.bytes_sent - between.bytes_sent;
    m.rounds = all.rounds;
    m.fabric_rounds = between.rounds;
    m.latency_s = intra_rounds * in.intra.alpha_s + between.rounds * in.fabric.alpha_s;
    m.bandwidth_s = intra_bytes / in.intra.bytes_per_second + between.bytes_sent / in.fabric.bytes_per_second;
  } else {
    const CostCounts c = closed_form(name == "hier" ? "ring" : name, {in.gpus, in.bytes});
    m.rounds = m.fabric_rounds = c.rounds;
    m.latency_s = c.rounds * in.fabric.alpha_s;
    m.bandwidth_s = c.bytes_sent / in.fabric.bytes_per_second;
  }
  m.comm_s = m.latency_s + m.bandwidth_s;
  m.extra_s = m.fabric_rounds * in.extra_latency_s;
  m.serial_s = compute_s + m.comm_s;
  m.overlapped_s = std::max(compute_s, m.comm_s);
  m.loss_serial = m.extra_s / (m.serial_s + m.extra_s);
  m.loss_overlapped = (std::max(compute_s, m.comm_s + m.extra_s) - m.overlapped_s) / std::max(compute_s, m.comm_s + m.extra_s);
  return m;
}

void print_table(const ModelInput& in, const ModelResult& r) {
  std::printf("# %d GPUs x %g TFLOPS, %g FLOP per iteration, %g GB of gradients all-reduced per GPU\n", in.gpus, in.tflops,
              in.flops, in.bytes / 1e9);
  std::printf("# fabric %s: alpha %s per message, %s per port\n", in.fabric.name.c_str(),
              format_duration(in.fabric.alpha_s).c_str(), format_bandwidth(in.fabric.bytes_per_second).c_str());
  if (in.gpus_per_node > 1)
    std::printf("# %d GPUs per node joined by %s: alpha %s, %s (hier's intra-node phases)\n", in.gpus_per_node,
                in.intra.name.c_str(), format_duration(in.intra.alpha_s).c_str(),
                format_bandwidth(in.intra.bytes_per_second).c_str());
  std::printf("# reduction time not modelled (GPUs reduce at memory bandwidth); flat algorithms run every step on the fabric\n");
  std::printf("T_compute = %s\n\n", format_duration(r.compute_s).c_str());
  std::printf("%-13s %7s %12s %14s %12s %14s %16s %16s %12s %12s\n", "algorithm", "rounds", "latency", "bandwidth",
              "T_comm", "+extra lat.", "iter (serial)", "iter (overlap)", "loss serial", "loss overlap");
  for (const AlgorithmModel& m : r.algorithms)
    std::printf("%-13s %7.0f %12s %14s %12s %14s %16s %16s %11.2f%% %11.2f%%\n", m.algorithm.c_str(), m.rounds,
                format_duration(m.latency_s).c_str(), format_duration(m.bandwidth_s).c_str(),
                format_duration(m.comm_s).c_str(), format_duration(m.extra_s).c_str(), format_duration(m.serial_s).c_str(),
                format_duration(m.overlapped_s).c_str(), 100 * m.loss_serial, 100 * m.loss_overlapped);
  std::printf("\n# extra latency %s per message across the fabric; loss = the share of the slower iteration it costs\n",
              format_duration(in.extra_latency_s).c_str());
}

void print_fabrics() {
  std::printf("%-10s %10s %28s  %s\n", "fabric", "alpha", "bandwidth per port", "source");
  for (const FabricPreset& f : fabric_presets())
    std::printf("%-10s %10s %28s  %s\n", std::string(f.name).c_str(), format_duration(f.alpha_s).c_str(),
                format_bandwidth(f.bytes_per_second).c_str(), std::string(f.source).c_str());
}

}  // namespace

void print_model(const ModelInput& input) { print_table(input, evaluate_model(input)); }

int run_model(int argc, char** argv) {
  CLI::App app{"arlab model: compute and all-reduce time per training iteration, and what extra latency costs"};
  ModelInput in;
  std::string tflops, flops, bytes, fabric = "ib-hdr", alpha, bandwidth, intra = "nvlink4", extra = "0us";
  bool seed = false, list = false;
  app.add_option("--gpus", in.gpus, "GPUs (N)");
  app.add_option("--tflops", tflops, "TFLOPS per GPU (P)");
  app.add_option("--flops", flops, "FLOP per iteration, whole job (C)");
  app.add_option("--bytes", bytes, "bytes all-reduced per GPU per iteration (D, gradients)");
  app.add_option("--fabric", fabric, "link between nodes: " + fabric_names())->capture_default_str();
  std::string from_fit;
  app.add_option("--from-fit", from_fit, "the fabric from arlab fit --json FILE[:ENTRY] (alpha, 1 / beta)");
  app.add_option("--alpha", alpha, "override the fabric's latency per message (1.5us)");
  app.add_option("--bandwidth", bandwidth, "override the fabric's bandwidth per port (100Gb/s, 25GB/s)");
  app.add_option("--gpus-per-node", in.gpus_per_node, "GPUs per node, for hier")->capture_default_str();
  app.add_option("--intra-fabric", intra, "link inside a node, for hier")->capture_default_str();
  app.add_option("--extra-latency", extra, "latency added to every message across the fabric (20us)")->capture_default_str();
  app.add_flag("--seed-example", seed, "check the first seed's worked example, discrepancy by discrepancy");
  app.add_flag("--fabrics", list, "list the fabric presets and where their numbers come from");
  parse_flags(app, argc, argv);
  if (list) return print_fabrics(), 0;
  if (seed) return print_seed_example(), 0;
  for (const auto& [flag, value] : {std::pair{"--tflops", &tflops}, std::pair{"--flops", &flops}, std::pair{"--bytes", &bytes}})
    if (value->empty()) throw UsageError(std::string(flag) + " is required (or --seed-example)");
  in.tflops = parse_number("--tflops", tflops);
  in.flops = parse_number("--flops", flops);
  in.bytes = parse_number("--bytes", bytes);
  in.fabric = link_from("--fabric", fabric, alpha, bandwidth);
  if (!from_fit.empty()) {
    in.fabric = read_fitted_link(from_fit).link;
    if (!alpha.empty()) in.fabric.alpha_s = parse_duration("--alpha", alpha);
    if (!bandwidth.empty()) in.fabric.bytes_per_second = parse_bandwidth("--bandwidth", bandwidth);
  }
  in.intra = link_from("--intra-fabric", intra, "", "");
  in.extra_latency_s = parse_duration("--extra-latency", extra);
  if (in.gpus_per_node < 1) throw UsageError("--gpus-per-node: at least 1");
  print_model(in);
  return 0;
}

ModelResult evaluate_model(const ModelInput& in) {
  if (in.gpus < 1) throw UsageError("--gpus: at least 1");
  if (!(in.tflops > 0)) throw UsageError("--tflops: must be positive");
  ModelResult r;
  r.compute_s = in.flops / (in.gpus * in.tflops * 1e12);
  for (const char* name : kModelAlgorithms) r.algorithms.push_back(model_algorithm(name, in, r.compute_s));
  return r;
}

}  // namespace arlab
