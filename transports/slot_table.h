// The table behind a transport's request ids and completion handles (and the simulator's messages
// in flight): a small integer indexes a slot, a completed id goes back on a free list and is
// handed out again, so the table stays as large as the most entries ever in use at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace arlab {

// Container: std::vector, or std::deque where a slot's address must survive the table's growth.
template <typename T, typename Id = uint32_t, typename Container = std::vector<T>>
class SlotTable {
 public:
  // reserved: ids 0 .. reserved-1 are never handed out (where id 0 means "already complete").
  explicit SlotTable(size_t reserved = 0) : slots_(reserved) {}

  // A free id: a released one (its slot keeps its old contents, and their capacity) or a new one.
  Id acquire() {
    if (free_.empty()) {
      slots_.emplace_back();
      return static_cast<Id>(slots_.size() - 1);
    }
    const Id id = free_.back();
    free_.pop_back();
    return id;
  }
  Id add(T value) {
    const Id id = acquire();
    slots_[id] = std::move(value);
    return id;
  }
  // The id may be handed out again by the next acquire().
  void release(Id id) { free_.push_back(id); }

  T& operator[](Id id) { return slots_[id]; }
  const T& operator[](Id id) const { return slots_[id]; }

 private:
  Container slots_;
  std::vector<Id> free_;
};

}  // namespace arlab
