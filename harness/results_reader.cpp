#include "harness/results_reader.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/errors.h"
#include "harness/reporters.h"

namespace arlab {
namespace {

// kCsvHeader's columns; the fields read below are at fixed positions. Files written before
// bound_us was added have one column less and are read the same way.
constexpr size_t kColumns = 15;

bool is_header(const std::string& line) {
  const std::string current = kCsvHeader;
  const std::string before_bound = current.substr(0, current.rfind(",bound_us")) + "\n";
  return line + "\n" == current || line + "\n" == before_bound;
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, ',')) fields.push_back(field);
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

double number(const std::string& where, const std::string& text) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(value))
    throw UsageError(where + ": '" + text + "' is not a number (truncated file?)");
  return value;
}

std::vector<MeasuredPoint> read_csv(const std::string& path, std::istream& in) {
  std::string line;
  std::getline(in, line);
  if (!is_header(line))
    throw UsageError(path + ": not an arlab bench CSV (its first line is not the arlab header)");
  const bool header_has_bound = line.find(",bound_us") != std::string::npos;
  std::vector<MeasuredPoint> points;
  for (int number_of_line = 2; std::getline(in, line); ++number_of_line) {
    if (line.empty()) continue;
    const std::string where = path + ": line " + std::to_string(number_of_line);
    const auto f = split_csv_line(line);
    const size_t columns = header_has_bound ? kColumns : kColumns - 1;
    if (f.size() != columns) throw UsageError(where + ": " + std::to_string(f.size()) + " fields, not " + std::to_string(columns) + " (truncated file?)");
    MeasuredPoint p;
    p.file = path;
    p.algorithm = f[0];
    p.transport = f[1];
    p.nranks = static_cast<int>(number(where, f[2]));
    p.bytes = static_cast<uint64_t>(number(where, f[4]));
    p.count = static_cast<uint64_t>(number(where, f[5]));
    p.type = f[6];
    p.placement = f[8];
    p.time_us = number(where, f[9]);
    p.chosen = f[13];
    if (header_has_bound && !f[14].empty()) p.bound_us = number(where, f[14]);
    points.push_back(p);
  }
  return points;
}

std::vector<MeasuredPoint> read_json(const std::string& path, std::istream& in) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(path + ": not valid JSON (truncated file?): " + std::string(e.what()).substr(0, 120));
  }
  if (!doc.is_object() || doc.value("schema", "") != "arlab.bench.v1")
    throw UsageError(path + ": not an arlab bench JSON (schema is not arlab.bench.v1)");
  std::vector<MeasuredPoint> points;
  try {
    const auto& meta = doc.at("metadata");
    for (const auto& r : doc.at("results")) {
      MeasuredPoint p;
      p.file = path;
      p.algorithm = r.at("algorithm").get<std::string>();
      p.chosen = r.value("chosen", "");
      p.transport = r.at("transport").get<std::string>();
      p.nranks = meta.at("nranks").get<int>();
      p.ranks_per_node = meta.value("ranks_per_node", 0);
      p.bytes = r.at("size_bytes").get<uint64_t>();
      p.count = r.at("count").get<uint64_t>();
      p.type = r.at("type").get<std::string>();
      p.placement = r.at("placement").get<std::string>();
      p.time_us = r.at("time_us").get<double>();
      p.bound_us = r.value("bound_us", 0.0);
      p.chunk_bytes = meta.value("chunk_bytes", uint64_t{0});
      points.push_back(p);
    }
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(path + ": a field is missing or of the wrong type: " + std::string(e.what()).substr(0, 120));
  }
  return points;
}

}  // namespace

std::vector<MeasuredPoint> read_results(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(path + ": cannot read (" + std::string(std::strerror(errno)) + ")");
  const int first = in.peek();
  auto points = first == '{' ? read_json(path, in) : read_csv(path, in);
  for (const MeasuredPoint& p : points)
    if (p.nranks < 1 || !(p.time_us > 0))
      throw UsageError(path + ": a row with " + std::to_string(p.nranks) + " ranks and time " + std::to_string(p.time_us) + " us");
  return points;
}

}  // namespace arlab
