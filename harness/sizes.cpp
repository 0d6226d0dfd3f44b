#include "harness/sizes.h"

#include <cctype>
#include <cmath>

#include "harness/errors.h"

namespace arlab {

uint64_t parse_size(const std::string& flag, const std::string& text) {
  auto bad = [&]() {
    return UsageError(flag + ": '" + text + "' is not a size (a number with an optional K, M, G or T suffix, like 8, 64K, 16M)");
  };
  size_t pos = 0;
  while (pos < text.size() && (std::isdigit(static_cast<unsigned char>(text[pos])) || text[pos] == '.')) ++pos;
  if (pos == 0) throw bad();
  double value = 0;
  try {
    size_t used = 0;
    value = std::stod(text.substr(0, pos), &used);
    if (used != pos) throw bad();
  } catch (const std::logic_error&) {
    throw bad();
  }
  std::string suffix = text.substr(pos);
  for (char& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (suffix.ends_with("IB")) suffix.resize(suffix.size() - 2);
  else if (suffix.size() > 1 && suffix.ends_with("B")) suffix.resize(suffix.size() - 1);
  double scale = 1;
  if (suffix == "K") scale = 1024.0;
  else if (suffix == "M") scale = 1024.0 * 1024;
  else if (suffix == "G") scale = 1024.0 * 1024 * 1024;
  else if (suffix == "T") scale = 1024.0 * 1024 * 1024 * 1024;
  else if (!suffix.empty() && suffix != "B") throw bad();
  const double bytes = value * scale;
  if (bytes != std::floor(bytes) || bytes > 9.0e18) throw bad();
  return static_cast<uint64_t>(bytes);
}

std::string format_size(uint64_t bytes) {
  static const char* units[] = {"", "K", "M", "G", "T"};
  int u = 0;
  while (u < 4 && bytes >= 1024 && bytes % 1024 == 0) bytes /= 1024, ++u;
  return std::to_string(bytes) + units[u];
}

std::vector<uint64_t> size_sweep(uint64_t min_bytes, uint64_t max_bytes, double factor, uint64_t increment,
                                 uint64_t element_size) {
  std::vector<uint64_t> sizes;
  for (uint64_t size = min_bytes;;) {
    const uint64_t rounded = size / element_size * element_size;
    if (sizes.empty() || sizes.back() != rounded) sizes.push_back(rounded);
    const uint64_t next = increment > 0 ? size + increment : static_cast<uint64_t>(std::ceil(size * factor));
    if (next <= size) {  // 0 * factor: the sweep moves on to one element
      if (size >= max_bytes) break;
      size = std::max<uint64_t>(element_size, size + 1);
      continue;
    }
    if (next > max_bytes) break;
    size = next;
  }
  return sizes;
}

}  // namespace arlab
