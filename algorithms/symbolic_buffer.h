// The checker's model of one buffer: which ranks' contributions each element holds, which
// step last wrote it and which steps have read it since. Elements with the same history
// share one segment, so a ring's buffer is a handful of segments, not `count` elements.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "algorithms/contributions.h"

namespace arlab {

inline constexpr uint32_t kNeverWritten = UINT32_MAX;     // uninitialised memory
inline constexpr uint32_t kInitialData = UINT32_MAX - 1;  // the user's input, there from the start

struct SymbolicSegment {
  uint64_t end;
  RankSet contributions;
  uint32_t writer;                // step that wrote it, or one of the constants above
  std::vector<uint32_t> readers;  // steps that read it since it was written
};

class SymbolicBuffer {
 public:
  using Map = std::map<uint64_t, SymbolicSegment>;

  SymbolicBuffer(uint64_t size, RankSet initial, uint32_t writer) : size_(size) {
    if (size > 0) segments_.emplace(0, SymbolicSegment{size, std::move(initial), writer, {}});
  }
  uint64_t size() const { return size_; }

  // Calls fn(begin, segment) for the segments covering [lo, hi), split at lo and hi.
  template <class Fn>
  void for_range(uint64_t lo, uint64_t hi, Fn&& fn) {
    if (lo >= hi) return;
    split_at(lo);
    split_at(hi);
    for (auto it = segments_.find(lo); it != segments_.end() && it->first < hi; ++it) fn(it->first, it->second);
  }

  // Re-joins neighbours around [lo, hi) whose history became identical.
  void coalesce(uint64_t lo, uint64_t hi) {
    auto it = segments_.upper_bound(lo);
    if (it != segments_.begin()) --it;
    if (it != segments_.begin()) --it;
    while (it != segments_.end() && it->first <= hi) {
      auto next = std::next(it);
      if (next == segments_.end()) break;
      SymbolicSegment& a = it->second;
      const SymbolicSegment& b = next->second;
      if (a.writer == b.writer && a.readers == b.readers && a.contributions == b.contributions) {
        a.end = b.end;
        segments_.erase(next);
      } else {
        it = next;
      }
    }
  }

  const Map& segments() const { return segments_; }

 private:
  void split_at(uint64_t pos) {
    if (pos == 0 || pos >= size_) return;
    auto it = segments_.upper_bound(pos);
    --it;  // the segment containing pos
    if (it->first == pos) return;
    SymbolicSegment tail = it->second;
    it->second.end = pos;
    segments_.emplace_hint(std::next(it), pos, std::move(tail));
  }

  uint64_t size_;
  Map segments_;
};

}  // namespace arlab
