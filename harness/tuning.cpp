#include "harness/tuning.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "harness/errors.h"
#include "harness/reporters.h"

namespace arlab {

std::string default_tuning_path(const std::string& hostname) { return "results/tuning/" + hostname + ".json"; }

MachineParams load_tuning(const std::string& path) {
  MachineParams p;
  std::ifstream in(path);
  if (!in) return p;
  try {
    const nlohmann::json doc = nlohmann::json::parse(in);
    if (doc.value("schema", "") != "arlab.tuning.v1") throw UsageError(path + ": not an arlab tuning file (schema arlab.tuning.v1)");
    p.alpha = doc.at("alpha_s").get<double>();
    p.beta = doc.at("beta_s_per_byte").get<double>();
    p.gamma = doc.at("gamma_s_per_byte").get<double>();
    if (!(p.alpha > 0 && p.beta > 0 && p.gamma > 0)) throw UsageError(path + ": alpha, beta and gamma must be positive");
    p.source = path;
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(path + ": unreadable tuning file (" + std::string(e.what()) + ")");
  }
  return p;
}

void save_tuning(const std::string& path, const MachineParams& p, const std::string& details) {
  const std::filesystem::path file(path);
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path());
  const nlohmann::json doc = {{"schema", "arlab.tuning.v1"}, {"alpha_s", p.alpha}, {"beta_s_per_byte", p.beta},
                              {"gamma_s_per_byte", p.gamma}, {"how", details}};
  write_file_atomically(path, doc.dump(1) + "\n");
}

}  // namespace arlab
