// Reporters turn rows into output: the nccl-tests style table on stdout, CSV and JSON
// files. Files are rewritten after every row through a temporary file and rename, so an
// interrupted run leaves complete, valid files with everything measured so far.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/results.h"

namespace arlab {

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void begin(const RunMetadata&) {}
  virtual void begin_algorithm(const std::string& /*algorithm*/, const std::string& /*transport*/) {}
  virtual void row(const ResultRow& row) = 0;
  virtual void end_algorithm() {}
  virtual void end() {}
};

std::unique_ptr<Reporter> make_table_reporter();
std::unique_ptr<Reporter> make_csv_reporter(const std::string& path);
std::unique_ptr<Reporter> make_json_reporter(const std::string& path);
std::unique_ptr<Reporter> make_prometheus_reporter(const std::string& path);  // prometheus_reporter.cpp

// The first line of every results CSV (arlab bench, arlab sim), newline included; the results
// reader checks files against it.
extern const char* const kCsvHeader;

// Writes `content` to `path` through `path`.tmp and rename(2); throws on I/O errors.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace arlab
