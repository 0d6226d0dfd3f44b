#include "harness/fabrics.h"

#include "algorithms/named_table.h"
#include "harness/errors.h"
#include "harness/units.h"

namespace arlab {

const std::vector<FabricPreset>& fabric_presets() {
  static const std::vector<FabricPreset> presets{
      {"ib-hdr", "InfiniBand HDR, 200 Gb/s per port", 1.0e-6, 200e9 / 8, "seed table: 0.7-1.2 us, 200 Gb/s"},
      {"ib-ndr", "InfiniBand NDR, 400 Gb/s per port", 1.0e-6, 400e9 / 8, "seed: NDR 400 Gb/s; latency as HDR's 0.7-1.2 us"},
      {"roce-v2", "RoCE v2, 100 Gb/s", 2.25e-6, 100e9 / 8, "seed table: 1.5-3.0 us, 100 Gb/s"},
      {"eth-25g", "Ethernet (TCP), 25 Gb/s", 15e-6, 25e9 / 8, "seed table: 10-20 us, 25 Gb/s"},
      {"eth-100g", "Ethernet (TCP), 100 Gb/s", 15e-6, 100e9 / 8, "seed table: 10-20 us, 100 Gb/s"},
      {"nvlink3", "NVLink 3 (A100), 600 GB/s bidirectional per GPU", 1.0e-6, 300e9,
       "seed: 600 GB/s bidirectional; latency 1 us assumed (not in the seeds)"},
      {"nvlink4", "NVLink 4 (H100), 900 GB/s bidirectional per GPU", 1.0e-6, 450e9,
       "seed: 900 GB/s bidirectional; latency 1 us assumed (not in the seeds)"},
      {"pcie4", "PCIe 4.0 x16, 64 GB/s bidirectional", 1.5e-6, 32e9, "PCIe 4.0 x16; latency 1.5 us assumed (not in the seeds)"},
      {"pcie5", "PCIe 5.0 x16, 128 GB/s bidirectional", 1.5e-6, 64e9,
       "seed: PCIe 5.0 x16 128 GB/s bidirectional; latency 1.5 us assumed (not in the seeds)"},
  };
  return presets;
}

const FabricPreset* find_fabric(std::string_view name) { return find_named(fabric_presets(), name); }
std::string fabric_names() { return join_names(fabric_presets()); }

Link link_from(const std::string& flag, const std::string& preset, const std::string& alpha, const std::string& bandwidth) {
  const FabricPreset* f = find_fabric(preset);
  if (!f) throw UsageError(flag + ": unknown fabric '" + preset + "' (accepted: " + fabric_names() + ")");
  Link link{std::string(f->name), f->alpha_s, f->bytes_per_second};
  if (!alpha.empty()) {
    link.alpha_s = parse_duration("--alpha", alpha);
    link.name += ", alpha overridden";
  }
  if (!bandwidth.empty()) {
    link.bytes_per_second = parse_bandwidth("--bandwidth", bandwidth);
    link.name += ", bandwidth overridden";
  }
  return link;
}

}  // namespace arlab
