// A vector that keeps up to two elements inline and allocates only beyond that. The
// checker holds millions of rank sets and reader lists, nearly all of one or two entries.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>

namespace arlab {

template <class T>
class SmallVector2 {
 public:
  SmallVector2() = default;
  SmallVector2(const SmallVector2& o) { assign(o.data(), o.size_); }
  SmallVector2& operator=(const SmallVector2& o) {
    if (this != &o) assign(o.data(), o.size_);
    return *this;
  }
  SmallVector2(SmallVector2&&) noexcept = default;
  SmallVector2& operator=(SmallVector2&&) noexcept = default;

  uint32_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T* data() const { return heap_ ? heap_.get() : inline_; }
  T* data() { return heap_ ? heap_.get() : inline_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }
  const T& operator[](uint32_t i) const { return data()[i]; }
  void clear() {
    heap_.reset();
    size_ = capacity_ = 0;
  }

  void push_back(const T& value) {
    if (size_ < 2 && !heap_) {
      inline_[size_++] = value;
      return;
    }
    if (size_ == capacity_ || !heap_) {
      const uint32_t cap = std::max<uint32_t>(4, size_ * 2);
      std::unique_ptr<T[]> grown(new T[cap]);
      std::copy(data(), data() + size_, grown.get());
      heap_ = std::move(grown);
      capacity_ = cap;
    }
    heap_[size_++] = value;
  }

  bool operator==(const SmallVector2& o) const { return std::equal(begin(), end(), o.begin(), o.end()); }

 private:
  void assign(const T* src, uint32_t n) {
    clear();
    for (uint32_t i = 0; i < n; ++i) push_back(src[i]);
  }
  T inline_[2] = {};
  uint32_t size_ = 0, capacity_ = 0;
  std::unique_ptr<T[]> heap_;
};

}  // namespace arlab
