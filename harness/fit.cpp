#include "harness/fit.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "algorithms/datatype.h"
#include "algorithms/registry.h"
#include "harness/errors.h"
#include "harness/reporters.h"
#include "harness/simulator.h"
#include "harness/sizes.h"

namespace arlab {
namespace {

Observation observation(const FitPoint& p) {
  return {{p.counts.rounds, p.counts.bytes_sent, p.counts.bytes_reduced}, p.seconds};
}

// >= 0 when every point reduces the same share of the bytes it sends, else -1. Points that
// send under 1 % of the most any point sends carry no weight on beta or gamma (uneven
// blocks at a few elements shift their share), so they do not count.
double common_reduce_share(const std::vector<FitPoint>& points) {
  double most = 0;
  for (const FitPoint& p : points) most = std::max(most, p.counts.bytes_sent);
  double lo = INFINITY, hi = -INFINITY;
  for (const FitPoint& p : points)
    if (p.counts.bytes_sent > 0 && p.counts.bytes_sent >= 0.01 * most) {
      lo = std::min(lo, p.counts.bytes_reduced / p.counts.bytes_sent);
      hi = std::max(hi, p.counts.bytes_reduced / p.counts.bytes_sent);
    }
  if (lo > hi) return 0;  // nothing sent anywhere: only alpha can be fitted
  return hi - lo <= 1e-3 * std::max(1.0, hi) ? lo : -1;
}

}  // namespace

std::vector<RankSchedule> world_of(const FitPoint& p) {
  Problem problem;
  problem.nranks = p.nranks;
  problem.count = p.count;
  problem.element_size = p.element_size;
  problem.chunk_bytes = p.chunk_bytes;
  problem.ranks_per_node = p.ranks_per_node;
  std::vector<RankSchedule> world;
  for (int r = 0; r < p.nranks; ++r) {
    problem.rank = r;
    world.push_back(find_algorithm(p.algorithm)->generate(problem));
  }
  return world;
}

CostCounts schedule_counts(const FitPoint& p) {
  static std::map<std::string, CostCounts> cache;
  const std::string key = p.algorithm + "/" + std::to_string(p.nranks) + "/" + std::to_string(p.count) + "/" +
                          std::to_string(p.element_size) + "/" + std::to_string(p.chunk_bytes) + "/" +
                          std::to_string(p.ranks_per_node);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  return cache[key] = measured_cost(world_of(p), p.element_size);
}

double simulate_point(const FitPoint& p, const std::array<double, 3>& parameters) {
  NetworkSpec spec;
  spec.fabric = {"fitted", parameters[0], parameters[1] > 0 ? 1 / parameters[1] : INFINITY};
  const auto world = world_of(p);
  Network network(spec, p.nranks);
  return simulate(world, network, {p.element_size, parameters[2]}).finish.total();
}

std::vector<FitGroup> fit_groups(const std::vector<MeasuredPoint>& measured, const std::string& placement,
                                 std::vector<std::string>& notes, int hold_out_nranks, CountsFn counts) {
  std::map<std::pair<std::string, std::string>, FitGroup> groups;
  std::map<std::string, int> skipped;
  for (const MeasuredPoint& m : measured) {
    if (m.placement != placement) continue;
    const std::string algorithm = m.algorithm == "auto" ? m.chosen : m.algorithm;
    if (!find_algorithm(algorithm)) {
      ++skipped[m.algorithm + " on " + m.transport];
      continue;
    }
    const DataTypeInfo* type = find_datatype(m.type);
    if (!type) throw UsageError(m.file + ": unknown datatype '" + m.type + "'");
    FitPoint p;
    p.algorithm = algorithm;
    p.transport = m.transport;
    p.nranks = m.nranks;
    p.ranks_per_node = m.ranks_per_node;
    p.bytes = m.bytes;
    p.count = m.count;
    p.chunk_bytes = m.chunk_bytes;
    p.element_size = type->size;
    p.seconds = m.time_us * 1e-6;
    p.counts = counts(p);
    FitGroup& g = groups[{algorithm, m.transport}];
    g.algorithm = algorithm;
    g.transport = m.transport;
    (p.nranks == hold_out_nranks ? g.held_out : g.points).push_back(p);
  }
  for (const auto& [what, rows] : skipped)
    notes.push_back(what + ": " + std::to_string(rows) + " rows not fitted (no schedule of this lab: the MPI library's own "
                    "algorithm, or auto without its choice)");
  std::vector<FitGroup> out;
  for (auto& [key, g] : groups) {
    if (g.points.empty()) continue;
    g.reduce_share = common_reduce_share(g.points);
    std::vector<Observation> obs;
    for (const FitPoint& p : g.points) obs.push_back(observation(p));
    // Folded: gamma held at zero, so beta carries the reduction too.
    g.fit = fit_with_errors(obs, g.reduce_share >= 0 ? 0b011 : 0b111);
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<LatencyPoint> latency_series(const FitGroup& g) {
  std::map<int, std::vector<const FitPoint*>> by_n;
  for (const FitPoint& p : g.points) by_n[p.nranks].push_back(&p);
  std::vector<LatencyPoint> series;
  for (auto& [n, points] : by_n) {
    const uint64_t smallest = (*std::min_element(points.begin(), points.end(), [](auto a, auto b) { return a->bytes < b->bytes; }))->bytes;
    std::vector<double> times;
    double rounds = 0;
    for (const FitPoint* p : points)
      if (p->bytes == smallest) {
        times.push_back(p->seconds);
        rounds = p->counts.rounds;
      }
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    series.push_back({n, smallest, times[times.size() / 2], rounds});
  }
  return series;
}

LatencyScaling latency_scaling(const std::vector<LatencyPoint>& series) {
  std::vector<double> linear_x, log_x, y;
  uint64_t largest = 0;
  for (const LatencyPoint& s : series) {
    linear_x.push_back(s.nranks - 1.0);
    log_x.push_back(std::log2(static_cast<double>(s.nranks)));
    y.push_back(s.seconds);
    largest = std::max(largest, s.bytes);
  }
  return {fit_line(linear_x, y), fit_line(log_x, y), format_size(largest) + " B"};
}

std::vector<JointFit> joint_fits(const std::vector<FitGroup>& groups) {
  std::map<std::string, std::vector<const FitGroup*>> by_transport;
  for (const FitGroup& g : groups) by_transport[g.transport].push_back(&g);
  std::vector<JointFit> out;
  for (const auto& [transport, members] : by_transport) {
    std::vector<FitPoint> all;
    JointFit j;
    j.transport = transport;
    for (const FitGroup* g : members) {
      all.insert(all.end(), g->points.begin(), g->points.end());
      j.algorithms += (j.algorithms.empty() ? "" : ",") + g->algorithm;
    }
    if (members.size() < 2 || common_reduce_share(all) >= 0 || all.size() < 5) continue;
    std::vector<Observation> obs;
    for (const FitPoint& p : all) obs.push_back(observation(p));
    j.points = all.size();
    j.fit = fit_with_errors(obs);
    out.push_back(std::move(j));
  }
  return out;
}

void write_fit_parameters(const std::string& path, const std::vector<FitGroup>& groups, const std::vector<JointFit>& joint) {
  nlohmann::json doc{{"schema", "arlab.fit-parameters.v1"}, {"groups", nlohmann::json::array()}, {"joint", nlohmann::json::array()}};
  const auto parameters = [](const FitReport& f) {
    return nlohmann::json{{"alpha_s", f.value[0]},          {"beta_s_per_byte", f.value[1]}, {"gamma_s_per_byte", f.value[2]},
                          {"alpha_error_s", f.error[0]},    {"beta_error", f.error[1]},      {"gamma_error", f.error[2]},
                          {"r_squared", f.r_squared},       {"median_relative_error", f.median_relative_error}};
  };
  for (const FitGroup& g : groups) {
    if (g.fit.parameters == 0) continue;
    nlohmann::json entry = parameters(g.fit);
    entry.update({{"entry", g.algorithm + "/" + g.transport}, {"points", g.points.size()}, {"reduction_folded_into_beta", g.reduce_share >= 0}});
    doc["groups"].push_back(entry);
  }
  for (const JointFit& j : joint) {
    nlohmann::json entry = parameters(j.fit);
    entry.update({{"entry", j.transport}, {"algorithms", j.algorithms}, {"points", j.points}});
    doc["joint"].push_back(entry);
  }
  write_file_atomically(path, doc.dump(1) + "\n");
}

FittedLink read_fitted_link(const std::string& spec) {
  const size_t colon = spec.find(':');
  const std::string path = spec.substr(0, colon), wanted = colon == std::string::npos ? "" : spec.substr(colon + 1);
  std::ifstream in(path);
  if (!in) throw UsageError("--from-fit " + path + ": cannot read");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception&) {
    throw UsageError("--from-fit " + path + ": not valid JSON (truncated file?)");
  }
  if (!doc.is_object() || doc.value("schema", "") != "arlab.fit-parameters.v1")
    throw UsageError("--from-fit " + path + ": not written by arlab fit --json (schema is not arlab.fit-parameters.v1)");
  std::string names;
  for (const char* list : {"joint", "groups"})
    for (const auto& e : doc.value(list, nlohmann::json::array())) {
      const std::string name = e.value("entry", "");
      names += (names.empty() ? "" : ", ") + name;
      if (!wanted.empty() && name != wanted) continue;
      FittedLink f;
      const double beta = e.value("beta_s_per_byte", 0.0);
      f.link = {"fitted " + name + " (" + path + ")", e.value("alpha_s", 0.0), beta > 0 ? 1 / beta : INFINITY};
      f.gamma = e.value("gamma_s_per_byte", 0.0);
      return f;
    }
  throw UsageError("--from-fit " + spec + ": " + (wanted.empty() ? "no fitted parameters in the file" : "no entry '" + wanted + "'") +
                   " (entries: " + (names.empty() ? "none" : names) + ")");
}

}  // namespace arlab
