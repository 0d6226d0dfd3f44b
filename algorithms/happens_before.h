// Answers "is step w ordered before step x on this rank?" for a rank's dependency graph,
// the question behind every race the checker reports.
//
// The steps are split into chains (a step continues the chain of its first dependency if
// that chain has no successor yet), and each step keeps a vector clock: for every chain,
// the furthest position on it that the step depends on, directly or not. Then
// w -> x  iff  clock(x)[chain(w)] >= position(w). Generators produce one chain per pipeline
// chunk, so clocks are short; if the clocks would not fit in memory the answer comes from a
// depth-first search instead.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/schedule.h"

namespace arlab {

class HappensBefore {
 public:
  explicit HappensBefore(const RankSchedule& schedule);
  bool ordered(uint32_t w, uint32_t x);  // true when w must complete before x starts

 private:
  bool search(uint32_t w, uint32_t x);

  const RankSchedule& schedule_;
  std::vector<uint32_t> chain_;     // chain id per step
  std::vector<uint32_t> position_;  // 1-based position within the chain
  std::vector<uint32_t> clock_;     // steps x width, empty when using search()
  uint32_t width_ = 0;
  std::vector<uint32_t> visited_;
  uint32_t stamp_ = 0;
};

}  // namespace arlab
