// Link presets for `arlab model` and `arlab sim`: latency per message (alpha) and bandwidth
// per port and direction, from the seeds' tables (../shared/seeds/, DESIGN.md). Where the
// seeds give a range, the preset takes its middle; where they give nothing (NVLink and PCIe
// latency), the preset says the value is assumed. --alpha and --bandwidth override either.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace arlab {

struct FabricPreset {
  std::string_view name;
  std::string_view summary;
  double alpha_s;           // per message
  double bytes_per_second;  // per port, per direction
  std::string_view source;  // where the numbers come from
};

const std::vector<FabricPreset>& fabric_presets();
const FabricPreset* find_fabric(std::string_view name);
std::string fabric_names();

}  // namespace arlab
