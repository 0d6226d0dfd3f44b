// Durations and bandwidths as people write them on the command line: 20us, 1.5 us, 2ms, 0.3s;
// 200Gb/s (bits), 25GB/s (bytes), 100 Gbit/s. Binary prefixes are not used for rates, as
// network vendors do not use them.
#pragma once

#include <string>

namespace arlab {

// Seconds; throws UsageError naming the flag.
double parse_duration(const std::string& flag, const std::string& text);
// Bytes per second; throws UsageError naming the flag.
double parse_bandwidth(const std::string& flag, const std::string& text);
// A plain number with an optional exponent (1.5e15); throws UsageError naming the flag.
double parse_number(const std::string& flag, const std::string& text);

std::string format_duration(double seconds);            // "0.300 s" (from 0.1 s), "60.00 ms", "30.00 us"
std::string format_bandwidth(double bytes_per_second);  // "25 GB/s (200 Gb/s)"

}  // namespace arlab
