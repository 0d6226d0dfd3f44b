#include "harness/step_trace.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/reporters.h"

namespace arlab {

double steady_clock_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string pack_spans(const std::vector<TracedSpan>& spans) {
  std::ostringstream out;
  out.precision(17);
  for (const TracedSpan& s : spans) out << s.name << '\t' << s.start_us << '\t' << s.end_us << '\n';
  return out.str();
}

std::vector<TracedSpan> unpack_spans(const std::string& text) {
  std::vector<TracedSpan> spans;
  std::istringstream in(text);
  // Each line: the name up to the first tab, then the two times.
  for (std::string line; std::getline(in, line);) {
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) throw std::runtime_error("unpack_spans: no tab in '" + line + "'");
    TracedSpan s{line.substr(0, tab)};
    std::istringstream times(line.substr(tab + 1));
    if (!(times >> s.start_us >> s.end_us)) throw std::runtime_error("unpack_spans: no times in '" + line + "'");
    spans.push_back(std::move(s));
  }
  return spans;
}

TraceWriter::TraceWriter(std::string path, const std::vector<std::string>& hosts, const std::string& command_line)
    : path_(std::move(path)), command_line_(command_line) {
  // Name each rank's process after its rank and host, in rank order.
  for (size_t r = 0; r < hosts.size(); ++r) {
    const int pid = static_cast<int>(r);
    events_.push_back(nlohmann::json{{"ph", "M"}, {"name", "process_name"}, {"pid", pid},
                                     {"args", {{"name", "rank " + std::to_string(r) + " (" + hosts[r] + ")"}}}}.dump());
    events_.push_back(nlohmann::json{{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"args", {{"sort_index", pid}}}}.dump());
  }
  write();
}

void TraceWriter::add_call(const std::string& label, const std::vector<std::vector<TracedSpan>>& spans) {
  double length = 0;
  for (const auto& rank : spans)
    for (const TracedSpan& s : rank) length = std::max(length, s.end_us);
  for (size_t r = 0; r < spans.size(); ++r) {
    const int pid = static_cast<int>(r);
    events_.push_back(nlohmann::json{{"ph", "X"}, {"name", label}, {"cat", "call"}, {"pid", pid}, {"tid", 0},
                                     {"ts", offset_us_}, {"dur", length}}.dump());
    // Steps that overlap (a DAG's concurrent steps) go on separate lanes: each span takes the
    // first lane (tid 1, 2, ...) whose last span ended before it starts.
    std::vector<TracedSpan> order = spans[r];
    std::stable_sort(order.begin(), order.end(), [](const TracedSpan& a, const TracedSpan& b) { return a.start_us < b.start_us; });
    std::vector<double> lane_end;
    for (const TracedSpan& s : order) {
      size_t lane = 0;
      while (lane < lane_end.size() && lane_end[lane] > s.start_us) ++lane;
      if (lane == lane_end.size()) lane_end.push_back(0);
      lane_end[lane] = s.end_us;
      events_.push_back(nlohmann::json{{"ph", "X"}, {"name", s.name}, {"cat", "step"}, {"pid", pid},
                                       {"tid", static_cast<int>(lane) + 1}, {"ts", offset_us_ + s.start_us},
                                       {"dur", std::max(0.0, s.end_us - s.start_us)}, {"args", {{"call", label}}}}.dump());
    }
  }
  offset_us_ += length + std::max(10.0, length / 20);  // a visible gap between calls
  write();
}

void TraceWriter::write() const {
  std::string text = "{\"displayTimeUnit\":\"ns\",\"otherData\":" +
                     nlohmann::json{{"command_line", command_line_}, {"clock", "us since each rank left the barrier before the call"}}.dump() +
                     ",\"traceEvents\":[\n";
  for (size_t i = 0; i < events_.size(); ++i) text += (i ? ",\n" : "") + events_[i];
  text += "\n]}\n";
  write_file_atomically(path_, text);
}

}  // namespace arlab
