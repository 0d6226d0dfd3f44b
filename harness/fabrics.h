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

// A link as the model and the simulator use it: a preset, possibly overridden.
struct Link {
  std::string name;
  double alpha_s = 0;           // per message
  double bytes_per_second = 1;  // per port, per direction
};

const std::vector<FabricPreset>& fabric_presets();
const FabricPreset* find_fabric(std::string_view name);
std::string fabric_names();

// The preset named `preset` (given to `flag`), with --alpha / --bandwidth overrides when not
// empty; throws UsageError naming the flag.
Link link_from(const std::string& flag, const std::string& preset, const std::string& alpha, const std::string& bandwidth);

}  // namespace arlab
