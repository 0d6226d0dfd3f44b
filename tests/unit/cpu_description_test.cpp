// The results header's processor line (harness/machine_cores.h cpu_description) and the cache
// sizes it and the shm transport's output stores read (transports/cpu_caches.h).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "harness/machine_cores.h"
#include "transports/cpu_caches.h"

namespace arlab {
namespace {

TEST(CpuDescription, ModelFromCpuinfoAndTheCacheSizes) {
  const std::string cpuinfo =
      "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC  \nflags\t\t: fpu sse2\n\n"
      "processor\t: 1\nmodel name\t: something else\n";
  EXPECT_EQ(cpu_description(cpuinfo, 1 << 20, 32 << 20), "AMD EPYC, L2 1 MiB per core, L3 32 MiB");
  EXPECT_EQ(cpu_description(cpuinfo, 512 << 10, 0), "AMD EPYC, L2 512 KiB per core");
  // Sizes from sysconf, where sysfs has none: the line says where they came from.
  EXPECT_EQ(cpu_description(cpuinfo, 1 << 20, 508 << 20, false),
            "AMD EPYC, L2 1 MiB per core, L3 508 MiB (from sysconf, no sizes in sysfs: the L3 may be the whole chip)");
  EXPECT_EQ(cpu_description(cpuinfo, 0, 0, false), "AMD EPYC");
}

TEST(CpuDescription, SaysUnknownWhereNothingSays) {
  EXPECT_EQ(cpu_description("processor\t: 0\nCPU part\t: 0xd0c\n", 0, -1), "unknown");
  EXPECT_EQ(cpu_description("model name\t:   \n", 0, 260 << 20), "unknown, L3 260 MiB");
}

TEST(CpuCaches, SysfsCacheSizes) {
  EXPECT_EQ(cache_bytes_from_sysfs("512K"), 512 << 10);
  EXPECT_EQ(cache_bytes_from_sysfs("32768K\n"), 32l << 20);
  EXPECT_EQ(cache_bytes_from_sysfs("1M"), 1 << 20);
  EXPECT_EQ(cache_bytes_from_sysfs("4096"), 4096);
  EXPECT_EQ(cache_bytes_from_sysfs(""), 0);
  EXPECT_EQ(cache_bytes_from_sysfs("K"), 0);
  EXPECT_EQ(cache_bytes_from_sysfs("12Q"), 0);
}

TEST(CpuDescription, ThisMachineNamesItsProcessor) {
  // Every Linux machine has /proc/cpuinfo; on x86 it has a model name.
  const std::string here = this_cpu();
  EXPECT_FALSE(here.empty());
#if defined(__x86_64__)
  EXPECT_NE(here.rfind("unknown", 0), 0u) << here;
#endif
}

// cache_bytes(3) is cpu0's L3 as sysfs gives it where sysfs has one (not sysconf's, which on
// the AMD build VM says 256 MiB for a 32 MiB L3).
TEST(CpuCaches, L3FromSysfsWhereItIsThere) {
  const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index3/";
  std::ifstream level_file(dir + "level"), size_file(dir + "size");
  int level = 0;
  std::string size;
  if (!(level_file >> level) || level != 3 || !(size_file >> size))
    GTEST_SKIP() << "this machine's sysfs has no L3 at " << dir << " (cache_bytes falls back on sysconf)";
  EXPECT_EQ(cache_bytes(3), cache_bytes_from_sysfs(size));
  EXPECT_GT(cache_bytes(3), 0);
}

}  // namespace
}  // namespace arlab
