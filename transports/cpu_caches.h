// The sizes of this machine's caches, for the decisions that depend on them (the shm
// transport's output stores, the bench's header). Read from sysfs first: glibc's sysconf
// reports some AMD VMs' L3 as 256 MiB where cpu0's is 32 MiB (measured on the build VM), and a
// rule fed the larger number starts streaming stores 8x too late.
#pragma once

#include <string>

namespace arlab {

// A sysfs cache size ("512K", "32768K", "1M") in bytes; 0 where it is not one.
long cache_bytes_from_sysfs(const std::string& size_text);

// cpu0's data or unified cache of this level (2, 3) in bytes: the size of one instance (the L3
// that cpu0 shares, not the chip's total) from /sys/devices/system/cpu/cpu0/cache, else
// sysconf's, else 0.
long cache_bytes(int level);

// Whether sysfs gives cpu0's cache sizes. Where it does not (some VMs), cache_bytes is sysconf's
// CPUID-derived figure, which can be the whole chip's L3 (508 MiB on a Zen 5 VM whose cores
// have 32 MiB each), and the results header says so.
bool cache_sizes_from_sysfs();

}  // namespace arlab
