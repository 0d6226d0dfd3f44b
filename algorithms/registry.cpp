#include "algorithms/registry.h"

#include "algorithms/ring.h"

namespace arlab {

const std::vector<AlgorithmInfo>& algorithms() {
  static const std::vector<AlgorithmInfo> table = {
      {"ring", "ring reduce-scatter + all-gather, 2(N-1) steps, bandwidth-optimal", generate_ring},
  };
  return table;
}

const AlgorithmInfo* find_algorithm(std::string_view name) {
  for (const auto& a : algorithms())
    if (a.name == name) return &a;
  return nullptr;
}

std::string algorithm_names() {
  std::string out;
  for (const auto& a : algorithms()) out += (out.empty() ? "" : ", ") + std::string(a.name);
  return out;
}

}  // namespace arlab
