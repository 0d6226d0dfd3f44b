// A set of ranks, stored as sorted, disjoint, non-adjacent half-open intervals. Every
// algorithm in the lab accumulates contiguous rank ranges (a ring arc, a subtree, a
// recursive-doubling group), so a set is one or two intervals and a union is cheap even
// for N in the thousands.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/small_vector.h"

namespace arlab {

class RankSet {
  struct Interval {
    uint32_t begin, end;
    bool operator==(const Interval&) const = default;
  };

 public:
  RankSet() = default;
  static RankSet single(uint32_t rank) { return range(rank, rank + 1); }
  static RankSet range(uint32_t begin, uint32_t end) {
    RankSet s;
    s.parts_.push_back({begin, end});
    return s;
  }

  // The union, or nullopt when the two sets share a rank (a contribution counted twice).
  static std::optional<RankSet> disjoint_union(const RankSet& a, const RankSet& b) {
    RankSet result;
    auto& out = result.parts_;
    size_t i = 0, j = 0;
    while (i < a.parts_.size() || j < b.parts_.size()) {
      const bool take_a = j == b.parts_.size() || (i < a.parts_.size() && a.parts_[i].begin < b.parts_[j].begin);
      const Interval next = take_a ? a.parts_[i++] : b.parts_[j++];
      if (!out.empty() && next.begin < out.back().end) return std::nullopt;
      if (!out.empty() && next.begin == out.back().end)
        out.back().end = next.end;
      else
        out.push_back(next);
    }
    return result;
  }

  // {(x + shift) mod n : x in this set}, for a set inside [0, n): how a set of ranks named
  // relative to one rank reads from another (the rotation checker).
  RankSet rotated(uint32_t shift, uint32_t n) const {
    std::vector<Interval> parts;
    // Shift each interval; one that runs past n wraps into two.
    for (const Interval& p : parts_) {
      const uint64_t b = (uint64_t{p.begin} + shift) % n, e = b + (p.end - p.begin);
      if (e <= n) {
        parts.push_back({static_cast<uint32_t>(b), static_cast<uint32_t>(e)});
      } else {
        parts.push_back({static_cast<uint32_t>(b), n});
        parts.push_back({0, static_cast<uint32_t>(e - n)});
      }
    }
    // Back in order, with intervals that now touch merged.
    std::sort(parts.begin(), parts.end(), [](const Interval& x, const Interval& y) { return x.begin < y.begin; });
    RankSet out;
    for (const Interval& p : parts) {
      if (!out.parts_.empty() && out.parts_.back().end == p.begin)
        out.parts_.back().end = p.end;
      else
        out.parts_.push_back(p);
    }
    return out;
  }

  bool empty() const { return parts_.empty(); }
  bool is_range(uint32_t begin, uint32_t end) const {
    return parts_.size() == 1 && parts_[0].begin == begin && parts_[0].end == end;
  }
  bool operator==(const RankSet& o) const { return parts_ == o.parts_; }

  std::string to_string() const {
    std::string s = "{";
    for (const auto& p : parts_) {
      if (s.size() > 1) s += ",";
      s += std::to_string(p.begin);
      if (p.end > p.begin + 1) s += ".." + std::to_string(p.end - 1);
    }
    return s + "}";
  }

 private:
  SmallVector2<Interval> parts_;
};

}  // namespace arlab
