#include "algorithms/happens_before.h"

#include <algorithm>

namespace arlab {

namespace {
constexpr uint64_t kMaxClockEntries = 32ull << 20;  // 128 MiB of clocks per rank at most
}

HappensBefore::HappensBefore(const RankSchedule& schedule) : schedule_(schedule) {
  const size_t n = schedule.num_steps();
  chain_.resize(n);
  position_.resize(n);
  std::vector<bool> has_successor(n, false);
  for (size_t x = 0; x < n; ++x) {
    const auto deps = schedule.deps(x);
    if (!deps.empty() && !has_successor[deps[0]]) {
      has_successor[deps[0]] = true;
      chain_[x] = chain_[deps[0]];
      position_[x] = position_[deps[0]] + 1;
    } else {
      chain_[x] = width_++;
      position_[x] = 1;
    }
  }
  if (static_cast<uint64_t>(width_) * n > kMaxClockEntries) {
    visited_.assign(n, 0);
    return;
  }
  // clock(x) = max over deps of clock(dep), then x's own position on its chain.
  clock_.assign(static_cast<uint64_t>(width_) * n, 0);
  for (size_t x = 0; x < n; ++x) {
    uint32_t* cx = &clock_[x * width_];
    for (uint32_t d : schedule.deps(x)) {
      const uint32_t* cd = &clock_[static_cast<uint64_t>(d) * width_];
      for (uint32_t k = 0; k < width_; ++k) cx[k] = std::max(cx[k], cd[k]);
    }
    cx[chain_[x]] = position_[x];
  }
}

bool HappensBefore::ordered(uint32_t w, uint32_t x) {
  if (w >= x) return false;
  if (!clock_.empty()) return clock_[static_cast<uint64_t>(x) * width_ + chain_[w]] >= position_[w];
  return search(w, x);
}

// Depth-first search backwards from x; steps before w cannot lead to it (deps point back).
bool HappensBefore::search(uint32_t w, uint32_t x) {
  ++stamp_;
  std::vector<uint32_t> stack{x};
  while (!stack.empty()) {
    const uint32_t y = stack.back();
    stack.pop_back();
    for (uint32_t d : schedule_.deps(y)) {
      if (d == w) return true;
      if (d > w && visited_[d] != stamp_) {
        visited_[d] = stamp_;
        stack.push_back(d);
      }
    }
  }
  return false;
}

}  // namespace arlab
