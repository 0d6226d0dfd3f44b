// The checker's model of one buffer: which ranks' contributions each element holds, which
// step last wrote it and which steps have read it since. Elements with the same history
// share one interval. The intervals start out cut at every slice boundary the rank's
// schedule names (so a ring's output is N intervals in a flat array, no tree to walk) and
// are cut further only when a message's pieces do not line up with them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "algorithms/contributions.h"
#include "algorithms/small_vector.h"

namespace arlab {

inline constexpr uint32_t kNeverWritten = UINT32_MAX;     // uninitialised memory
inline constexpr uint32_t kInitialData = UINT32_MAX - 1;  // the user's input, there from the start

struct SymbolicSegment {
  RankSet contributions;
  uint32_t writer;                // step that wrote it, or one of the constants above
  SmallVector2<uint32_t> readers;  // steps that read it since it was written
};

class SymbolicBuffer {
 public:
  // `cuts`: offsets where the schedule's slices begin or end (any order, duplicates allowed).
  SymbolicBuffer(uint64_t size, RankSet initial, uint32_t writer, std::vector<uint64_t> cuts) : size_(size) {
    if (size == 0) return;
    cuts.push_back(0);
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    while (!cuts.empty() && cuts.back() >= size) cuts.pop_back();
    starts_ = std::move(cuts);
    segments_.assign(starts_.size(), SymbolicSegment{initial, writer, {}});
  }
  uint64_t size() const { return size_; }

  // Calls fn(begin, end, segment) for the intervals covering [lo, hi), cut at lo and hi.
  template <class Fn>
  void for_range(uint64_t lo, uint64_t hi, Fn&& fn) {
    if (lo >= hi) return;
    cut_at(hi);
    size_t i = cut_at(lo);
    for (; i < starts_.size() && starts_[i] < hi; ++i) fn(starts_[i], end_of(i), segments_[i]);
  }

  template <class Fn>
  void for_each(Fn&& fn) const {
    for (size_t i = 0; i < starts_.size(); ++i) fn(starts_[i], end_of(i), segments_[i]);
  }

 private:
  uint64_t end_of(size_t i) const { return i + 1 < starts_.size() ? starts_[i + 1] : size_; }

  // Index of the interval starting at pos, cutting the one that contains it if needed.
  size_t cut_at(uint64_t pos) {
    if (pos >= size_) return starts_.size();
    const size_t containing = find_containing(pos);
    if (starts_[containing] == pos) return containing;
    starts_.insert(starts_.begin() + containing + 1, pos);
    segments_.insert(segments_.begin() + containing + 1, segments_[containing]);
    return containing + 1;
  }

  // The interval containing pos. Most schedules cut a buffer into blocks of nearly equal
  // size, so the guess pos * intervals / size lands on or next to it; a few steps of walking
  // settle it, and a binary search takes over when the guess is far off.
  size_t find_containing(uint64_t pos) const {
    const size_t n = starts_.size();
    size_t i = static_cast<size_t>(static_cast<unsigned __int128>(pos) * n / size_);
    for (int walk = 0; walk < 4; ++walk) {
      if (starts_[i] > pos) {
        --i;  // starts_[0] == 0 <= pos, so i > 0 here
      } else if (i + 1 < n && starts_[i + 1] <= pos) {
        ++i;
      } else {
        return i;
      }
    }
    return static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), pos) - starts_.begin()) - 1;
  }

  uint64_t size_;
  std::vector<uint64_t> starts_;
  std::vector<SymbolicSegment> segments_;
};

}  // namespace arlab
