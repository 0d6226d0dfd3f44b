// arlab model (harness/model.h) and the units it reads (harness/units.h).
#include <gtest/gtest.h>

#include "harness/errors.h"
#include "harness/fabrics.h"
#include "harness/model.h"
#include "harness/units.h"

namespace arlab {
namespace {

Link preset(const char* name) {
  const FabricPreset* f = find_fabric(name);
  return {name, f->alpha_s, f->bytes_per_second};
}

const AlgorithmModel& find(const ModelResult& r, const std::string& name) {
  for (const auto& m : r.algorithms)
    if (m.algorithm == name) return m;
  throw std::runtime_error("no " + name);
}

TEST(Model, TheSeedsExampleCorrected) {
  const ModelResult r = evaluate_model(seed_example_input());
  EXPECT_NEAR(r.compute_s, 0.30048, 1e-5);  // the seed wrote 0.3 ms
  const AlgorithmModel& ring = find(r, "ring");
  EXPECT_EQ(ring.rounds, 30);                          // 2(N-1), the seed counted N-1
  EXPECT_NEAR(ring.bandwidth_s, 1.5e9 / 25e9, 1e-12);  // 2(N-1)/N x 0.8 GB over 25 GB/s
  EXPECT_NEAR(ring.latency_s, 30e-6, 1e-15);
  EXPECT_NEAR(ring.extra_s, 600e-6, 1e-15);
  EXPECT_NEAR(ring.loss_serial, 600e-6 / (0.30048 + 0.06003 + 600e-6), 1e-5);
  EXPECT_EQ(ring.loss_overlapped, 0);  // compute hides all of it
  const AlgorithmModel& rd = find(r, "rd");
  EXPECT_EQ(rd.rounds, 4);
  EXPECT_NEAR(rd.bandwidth_s, 4 * 0.8e9 / 25e9, 1e-12);
}

TEST(Model, ExtraLatencyHitsOnlyTheFabricRoundsOfHier) {
  ModelInput in = seed_example_input();
  in.gpus = 64;
  in.gpus_per_node = 8;
  in.intra = preset("nvlink4");
  const ModelResult r = evaluate_model(in);
  const AlgorithmModel& hier = find(r, "hier");
  EXPECT_EQ(hier.fabric_rounds, 2 * (8 - 1));  // the ring between 8 nodes
  EXPECT_GT(hier.rounds, hier.fabric_rounds);
  EXPECT_NEAR(hier.latency_s, (hier.rounds - hier.fabric_rounds) * in.intra.alpha_s + hier.fabric_rounds * in.fabric.alpha_s, 1e-15);
  EXPECT_NEAR(hier.extra_s, 14 * 20e-6, 1e-15);
  EXPECT_LT(hier.comm_s, find(r, "ring").comm_s);  // NVLink carries the intra-node volume
  EXPECT_NEAR(find(r, "ring").extra_s, 2 * 63 * 20e-6, 1e-15);
}

TEST(Model, CommunicationBoundJobsLoseToLatencyWhenOverlapped) {
  ModelInput in = seed_example_input();
  in.flops = 1e12;  // little compute to hide the all-reduce
  in.bytes = 1e6;
  in.gpus = 1024;
  const ModelResult r = evaluate_model(in);
  const AlgorithmModel& ring = find(r, "ring");
  EXPECT_GT(ring.comm_s, 1e12 / (1024 * 312e12));
  EXPECT_GT(ring.loss_overlapped, 0.5);  // 2046 rounds x 20 us dwarf the rest
}

TEST(Units, DurationsAndBandwidths) {
  EXPECT_DOUBLE_EQ(parse_duration("--x", "20us"), 20e-6);
  EXPECT_DOUBLE_EQ(parse_duration("--x", "1.5 us"), 1.5e-6);
  EXPECT_DOUBLE_EQ(parse_duration("--x", "2ms"), 2e-3);
  EXPECT_DOUBLE_EQ(parse_bandwidth("--x", "200Gb/s"), 25e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("--x", "25GB/s"), 25e9);
  EXPECT_DOUBLE_EQ(parse_number("--x", "1.5e15"), 1.5e15);
  EXPECT_THROW(parse_duration("--x", "20"), UsageError);
  EXPECT_THROW(parse_duration("--x", "fast"), UsageError);
  EXPECT_THROW(parse_bandwidth("--x", "100"), UsageError);
  EXPECT_THROW(parse_bandwidth("--x", "0GB/s"), UsageError);
  EXPECT_THROW(parse_number("--x", "12Q"), UsageError);
  EXPECT_EQ(format_duration(0.30048), "0.300 s");
  EXPECT_EQ(format_duration(0.06), "60.00 ms");
}

TEST(Fabrics, PresetsFromTheSeeds) {
  EXPECT_DOUBLE_EQ(find_fabric("ib-hdr")->bytes_per_second, 25e9);  // 200 Gb/s
  EXPECT_DOUBLE_EQ(find_fabric("ib-ndr")->bytes_per_second, 50e9);
  EXPECT_LT(find_fabric("ib-hdr")->alpha_s, find_fabric("roce-v2")->alpha_s);
  EXPECT_LT(find_fabric("roce-v2")->alpha_s, find_fabric("eth-25g")->alpha_s);
  EXPECT_EQ(find_fabric("token-ring"), nullptr);
}

}  // namespace
}  // namespace arlab
