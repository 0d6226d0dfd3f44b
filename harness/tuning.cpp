#include "harness/tuning.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "algorithms/registry.h"
#include "harness/collective.h"
#include "harness/errors.h"
#include "harness/reporters.h"

namespace arlab {
namespace {

nlohmann::json to_json(const MeasuredTimes& t) {
  if (t.empty()) return nullptr;
  return {{"transport", t.transport}, {"nranks", t.nranks}, {"ranks_per_node", t.ranks_per_node},
          {"sizes", t.sizes}, {"seconds", t.seconds}};
}

// Throws nlohmann's exceptions for a wrong shape, UsageError for wrong values.
MeasuredTimes measured_from(const nlohmann::json& j, const std::string& path) {
  MeasuredTimes t;
  if (j.is_null()) return t;
  t.transport = j.at("transport").get<std::string>();
  t.nranks = j.at("nranks").get<int>();
  t.ranks_per_node = j.at("ranks_per_node").get<int>();
  t.sizes = j.at("sizes").get<std::vector<double>>();
  t.seconds = j.at("seconds").get<std::map<std::string, std::vector<double>>>();
  try {
    check_measured_times(t);
  } catch (const std::invalid_argument& e) {
    throw UsageError(path + ": " + e.what());
  }
  for (const auto& [name, times] : t.seconds)
    if (!find_algorithm(parse_measured_name(name).algorithm) && !is_slot_path(name))
      throw UsageError(path + ": measured times of an unknown algorithm '" + name + "'");
  return t;
}

}  // namespace

std::string measured_times_json(const MeasuredTimes& times) { return to_json(times).dump(); }

MeasuredTimes measured_times_from_json(const std::string& text, const std::string& path) {
  try {
    return measured_from(nlohmann::json::parse(text), path);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(path + ": unreadable measured times (" + std::string(e.what()) + ")");
  }
}

void agree_on_tuning(MachineParams& p, Bootstrap& boot, const std::string& transport, int ranks_per_node) {
  p.alpha = boot.max(p.alpha);
  p.beta = boot.max(p.beta);
  p.gamma = boot.max(p.gamma);
  p.measured = measured_times_from_json(boot.gather_strings(measured_times_json(p.measured))[0], p.source);
  if (p.measured.empty()) return;
  const std::string why = measured_times_mismatch(p.measured, transport, boot.size(), ranks_per_node);
  if (why.empty()) {
    p.source += "; auto picks by the times measured there (after the shared-memory paths)";
  } else {
    p.source += "; its measured times not used (" + why + ")";
    p.measured = {};
  }
}

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
    if (doc.contains("measured")) p.measured = measured_from(doc.at("measured"), path);
    p.source = path;
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(path + ": unreadable tuning file (" + std::string(e.what()) + ")");
  }
  return p;
}

void save_tuning(const std::string& path, const MachineParams& p, const std::string& details) {
  const std::filesystem::path file(path);
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path());
  nlohmann::json doc = {{"schema", "arlab.tuning.v1"}, {"alpha_s", p.alpha}, {"beta_s_per_byte", p.beta},
                              {"gamma_s_per_byte", p.gamma}, {"how", details}};
  if (!p.measured.empty()) doc["measured"] = to_json(p.measured);
  write_file_atomically(path, doc.dump(1) + "\n");
}

}  // namespace arlab
