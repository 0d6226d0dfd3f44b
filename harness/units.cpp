#include "harness/units.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/errors.h"

namespace arlab {
namespace {

// The number at the start of text and the rest with spaces trimmed, or false.
bool split_number(const std::string& text, double& value, std::string& unit) {
  const char* begin = text.c_str();
  char* end = nullptr;
  value = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(value) || value < 0) return false;
  unit = end;
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.front()))) unit.erase(unit.begin());
  return true;
}

// Multiplies value by the unit's factor from `units`; false when the unit is not there.
bool apply_unit(const std::vector<std::pair<std::string_view, double>>& units, const std::string& unit, double& value) {
  for (const auto& [name, factor] : units)
    if (unit == name) {
      value *= factor;
      return true;
    }
  return false;
}

}  // namespace

double parse_number(const std::string& flag, const std::string& text) {
  double value = 0;
  std::string rest;
  if (!split_number(text, value, rest) || !rest.empty())
    throw UsageError(flag + ": '" + text + "' is not a non-negative number (like 312 or 1.5e15)");
  return value;
}

double parse_duration(const std::string& flag, const std::string& text) {
  static const std::vector<std::pair<std::string_view, double>> units{
      {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"µs", 1e-6}, {"ns", 1e-9}};
  double value = 0;
  std::string unit;
  if (!split_number(text, value, unit) || !apply_unit(units, unit, value))
    throw UsageError(flag + ": '" + text + "' is not a duration (a number and s, ms, us or ns, like 20us)");
  return value;
}

double parse_bandwidth(const std::string& flag, const std::string& text) {
  static const std::vector<std::pair<std::string_view, double>> units{
      {"B/s", 1},         {"KB/s", 1e3},        {"MB/s", 1e6},        {"GB/s", 1e9},        {"TB/s", 1e12},
      {"b/s", 1.0 / 8},   {"Kb/s", 1e3 / 8},    {"Mb/s", 1e6 / 8},    {"Gb/s", 1e9 / 8},    {"Tb/s", 1e12 / 8},
      {"Gbit/s", 1e9 / 8}, {"Gbps", 1e9 / 8},   {"Mbit/s", 1e6 / 8},  {"Tbit/s", 1e12 / 8}};
  double value = 0;
  std::string unit;
  if (!split_number(text, value, unit) || value <= 0 || !apply_unit(units, unit, value))
    throw UsageError(flag + ": '" + text + "' is not a bandwidth (a number and GB/s for bytes or Gb/s for bits, like 100Gb/s)");
  return value;
}

std::string format_duration(double seconds) {
  char text[32];
  if (seconds >= 0.1 || seconds == 0) std::snprintf(text, sizeof text, "%.3f s", seconds);
  else if (seconds >= 1e-3) std::snprintf(text, sizeof text, "%.2f ms", seconds * 1e3);
  else if (seconds >= 1e-6) std::snprintf(text, sizeof text, "%.2f us", seconds * 1e6);
  else std::snprintf(text, sizeof text, "%.1f ns", seconds * 1e9);
  return text;
}

std::string format_bandwidth(double bytes_per_second) {
  char text[64];
  std::snprintf(text, sizeof text, "%g GB/s (%g Gb/s)", bytes_per_second / 1e9, bytes_per_second * 8 / 1e9);
  return text;
}

}  // namespace arlab
