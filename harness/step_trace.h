// `arlab bench --trace FILE`: after the timed runs, one more call per algorithm and size with
// every schedule step timed on every rank, written as a Chrome trace (Perfetto at
// ui.perfetto.dev, or chrome://tracing): a process per rank, a slice per step named by its
// operations, the calls laid end to end. Baselines and the slot paths have no steps: one slice.
#pragma once

#include <string>
#include <vector>

namespace arlab {

double steady_clock_us();  // the monotonic clock every process on a machine shares

// One step of one traced call on one rank; times in us since the rank began the call (after
// the barrier every rank leaves together, so ranks line up within the barrier's skew).
struct TracedSpan {
  std::string name;
  double start_us = 0, end_us = 0;
};

// Rank to rank (Bootstrap::gather_strings) as text: one "name\tstart\tend" line per span.
std::string pack_spans(const std::vector<TracedSpan>& spans);
std::vector<TracedSpan> unpack_spans(const std::string& text);

// Rank 0's file. Each call is appended after the previous one and the whole file rewritten
// at once (temporary file, then rename), so an interrupted run leaves every finished call.
class TraceWriter {
 public:
  TraceWriter(std::string path, const std::vector<std::string>& hosts, const std::string& command_line);
  // spans[r]: rank r's spans of this call, labelled `label` ("ring 64M out of place").
  void add_call(const std::string& label, const std::vector<std::vector<TracedSpan>>& spans);

 private:
  void write() const;
  std::string path_, command_line_;
  std::vector<std::string> events_;  // each one event's JSON
  double offset_us_ = 0;             // where the next call begins on the trace's time line
};

}  // namespace arlab
