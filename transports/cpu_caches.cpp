#include "transports/cpu_caches.h"

#include <cstdlib>
#include <fstream>

#include <unistd.h>

namespace arlab {
namespace {

// cpu0's cache of this level as sysfs gives it, else 0.
long sysfs_cache_bytes(int level) {
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level_file(dir + "level"), type_file(dir + "type"), size_file(dir + "size");
    int found = 0;
    std::string type, size;
    if (!(level_file >> found) || !(type_file >> type) || !(size_file >> size)) return 0;
    if (found == level && type != "Instruction") return cache_bytes_from_sysfs(size);
  }
  return 0;
}

long sysconf_cache_bytes(int level) {
  const long bytes = level == 2 ? sysconf(_SC_LEVEL2_CACHE_SIZE) : level == 3 ? sysconf(_SC_LEVEL3_CACHE_SIZE) : 0;
  return bytes > 0 ? bytes : 0;
}

}  // namespace

long cache_bytes_from_sysfs(const std::string& size_text) {
  // sysfs writes "512K", "32768K" (and "1M" on some kernels).
  char* end = nullptr;
  const long value = std::strtol(size_text.c_str(), &end, 10);
  if (end == size_text.c_str() || value <= 0) return 0;
  if (*end == 'K') return value << 10;
  if (*end == 'M') return value << 20;
  return *end == '\0' || *end == '\n' ? value : 0;
}

bool cache_sizes_from_sysfs() { return sysfs_cache_bytes(2) > 0 || sysfs_cache_bytes(3) > 0; }

long cache_bytes(int level) {
  const long sysfs = sysfs_cache_bytes(level);
  return sysfs > 0 ? sysfs : sysconf_cache_bytes(level);
}

}  // namespace arlab
