// Reads what `arlab bench` (and `arlab sim`) wrote back: CSV or JSON results files, one
// MeasuredPoint per row. A file that is truncated, of another schema or unreadable is a
// UsageError naming the file and, for CSV, the line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace arlab {

struct MeasuredPoint {
  std::string file;
  std::string algorithm;  // as run: auto's rows carry the algorithm it chose in `chosen`
  std::string chosen;
  std::string transport;
  int nranks = 1;
  int ranks_per_node = 0;  // 0: unknown (CSV) or one node
  uint64_t bytes = 0;
  uint64_t count = 0;
  std::string type;
  std::string placement;  // out, in
  double time_us = 0;
  double bound_us = 0;  // --roofline's bound (0: none)
  uint64_t chunk_bytes = 0;          // JSON only
  std::string inter = "ring", intra = "direct";  // hier's settings, JSON only
};

std::vector<MeasuredPoint> read_results(const std::string& path);

}  // namespace arlab
