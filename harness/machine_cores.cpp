#include "harness/machine_cores.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "transports/cpu_caches.h"

namespace arlab {

std::string MachineCores::describe() const {
  return std::to_string(ranks) + " rank(s) on this machine's " + std::to_string(cores) + " core(s)" +
         (shared() ? ", more ranks than cores: waiting ranks yield at once" : "");
}

MachineCores machine_cores(Bootstrap& boot) {
  MachineCores m;
  m.cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (const char* slurm = std::getenv("SLURM_CPUS_ON_NODE")) m.cores = std::min(m.cores, std::atol(slurm));
  std::string id = boot.hostname();
  if (std::FILE* f = std::fopen("/proc/sys/kernel/random/boot_id", "r")) {
    char text[64] = {};
    if (std::fgets(text, sizeof text, f)) id = text;
    std::fclose(f);
  }
  const std::vector<std::string> ids = boot.gather_strings(id);
  m.ranks = static_cast<int>(std::count(ids.begin(), ids.end(), id));
  return m;
}

namespace {

// "1 MiB", "32 MiB", "512 KiB": cache sizes are powers of two times a KiB or a MiB.
std::string cache_size_text(long bytes) {
  if (bytes >= (1 << 20) && bytes % (1 << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " B";
}

}  // namespace

std::string cpu_description(const std::string& cpuinfo, long l2_bytes, long l3_bytes, bool sizes_from_sysfs) {
  std::string model;
  std::istringstream lines(cpuinfo);
  // The first "model name : ..." line; every core of a machine reports the same one.
  for (std::string line; model.empty() && std::getline(lines, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const size_t begin = line.find_first_not_of(" \t", colon + 1);
    const size_t end = line.find_last_not_of(" \t\r");
    if (begin != std::string::npos && end >= begin) model = line.substr(begin, end - begin + 1);
  }
  std::string text = model.empty() ? "unknown" : model;
  if (l2_bytes > 0) text += ", L2 " + cache_size_text(l2_bytes) + " per core";
  if (l3_bytes > 0) text += ", L3 " + cache_size_text(l3_bytes);
  if (!sizes_from_sysfs && (l2_bytes > 0 || l3_bytes > 0)) text += " (from sysconf, no sizes in sysfs: the L3 may be the whole chip)";
  return text;
}

std::string this_cpu() {
  std::ifstream in("/proc/cpuinfo");
  std::stringstream text;
  text << in.rdbuf();
  return cpu_description(text.str(), cache_bytes(2), cache_bytes(3), cache_sizes_from_sysfs());
}

}  // namespace arlab
