// Lookup by name in the lab's registry tables (algorithms, datatypes, reductions), and the
// "a, b, c" list that error messages show as the accepted values.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace arlab {

template <class Entry>
const Entry* find_named(const std::vector<Entry>& table, std::string_view name) {
  for (const Entry& e : table)
    if (e.name == name) return &e;
  return nullptr;
}

template <class Entry>
std::string join_names(const std::vector<Entry>& table) {
  std::string out;
  for (const Entry& e : table) out += (out.empty() ? "" : ", ") + std::string(e.name);
  return out;
}

}  // namespace arlab
