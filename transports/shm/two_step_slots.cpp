#include "transports/shm/two_step_slots.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>

#include "algorithms/partition.h"

namespace arlab {

bool TwoStepSlots::ready(const uint64_t& flag, uint64_t call) const {
  return std::atomic_ref<uint64_t>(const_cast<uint64_t&>(flag)).load(std::memory_order_acquire) == call;
}

size_t TwoStepSlots::rotation_base(uint64_t call, size_t bytes) {
  const size_t stride = (bytes + kRotationAlign - 1) / kRotationAlign * kRotationAlign;
  const bool moves = bytes >= kRotationMinBytes && bytes < kRotationMaxBytes;
  const size_t places = moves ? std::max<size_t>(1, kMaxBytes / stride) : 1;
  return static_cast<size_t>(call % places) * stride;
}

void TwoStepSlots::post(uint64_t call, const void* input, size_t count, const NativeReduction& reduction,
                        size_t message_bytes) {
  const int n = static_cast<int>(slots_of_.size());
  const size_t es = reduction.element_size;
  if (count * es > kMaxBytes)
    throw TransportError("shm two_step_allreduce_post(" + std::to_string(count * es) + " bytes): over the slot's " +
                         std::to_string(kMaxBytes));
  folded_ = copied_ = 0;
  copied_from_.assign(n, false);
  message_bytes_ = message_bytes;
  started_ = std::chrono::steady_clock::now();
  // The kind of stores rank 0 chose at the end of the last call, for this one (slot_stores.h).
  // It chose for the last call's size: the next call mostly has the same (the pieces of one
  // message, an application's loop); a small call after a large one keeps memcpy.
  const uint64_t decided = std::atomic_ref<uint64_t>(slot(0).next_stores).load(std::memory_order_acquire);
  stores_ = decided >> 1 == last_call_ && count * es >= StoreChooser::kMinBytes ? StoreKind(decided & 1) : StoreKind::Cached;
  base_ = rotation_base(call, count * es);
  Slot& mine = slot(rank_);
  // My copy of every block a peer reduces, at the block's own offset past this call's base.
  for (int b = 0; b < n; ++b) {
    if (b == rank_) continue;
    const Range block = block_range(count, n, b);
    copy_with(stores_, mine.inputs + base_ + block.offset * es, static_cast<const char*>(input) + block.offset * es, block.count * es);
  }
  std::atomic_ref<uint64_t>(mine.inputs_ready).store(call, std::memory_order_release);
}

bool TwoStepSlots::poll(uint64_t call, const void* input, void* output, size_t count, const NativeReduction& reduction) {
  const int n = static_cast<int>(slots_of_.size());
  const size_t es = reduction.element_size;
  char* out = static_cast<char*>(output);
  // Step 1: my block, folded into my output as the peers' copies arrive: my own input first
  // (read once, before anything is written, so in place works), then the others in rank order.
  const Range mine = block_range(count, n, rank_);
  const size_t offset = mine.offset * es;
  const char* in = static_cast<const char*>(input);
  const size_t piece = std::max<size_t>(1, kPieceBytes / es);
  // Decided at the call's first poll (which folds my own input), not on every poll while waiting.
  if (folded_ == 0) outputs_ = output_stores(message_bytes_, n, input == output, output_setting_);
  const StoreKind outputs = outputs_;
  while (folded_ < n) {
    // The peer whose copy is folded at position f >= 1: 0, 1, ... skipping me (position 0 is
    // my own input).
    const auto peer_at = [&](int f) { return f <= rank_ ? f - 1 : f; };
    // Every peer whose copy has arrived, in fold order, goes into one pass (step 1 of N = 4
    // reads my block's partial once instead of three times); at the first poll only my own.
    int step = folded_ == 0 ? 1 : 0;
    while (folded_ > 0 && folded_ + step < n && ready(slot(peer_at(folded_ + step)).inputs_ready, call)) ++step;
    if (step == 0) return false;
    // In cache-sized pieces: the last fold hands each piece on to my slot while it is hot.
    const bool last = folded_ + step == n;
    // With streaming output stores and a single fold (N = 2), my block goes through the
    // streaming reducer's L1 tiles (streaming_copy.h): reduced where my slot hands it on (or,
    // with streaming slot stores, in a tile) and streamed from there into my output, whose
    // lines are then never read. With more folds the partial block lives in my output between
    // them, so it stays cached; step 2 streams either way.
    const bool stream_fold = outputs == StoreKind::Streaming && n == 2;
    if (stream_fold && folded_ == 1) {
      const int q = peer_at(1);
      sources_[0] = in + offset, sources_[1] = slot(q).inputs + base_ + offset;
      char* handed_on = slot(rank_).reduced + base_ + offset;
      void* streamed[2] = {out + offset, handed_on};
      const bool cached_slot = stores_ == StoreKind::Cached;
      streaming_.reduce(reduction.combine_many, sources_.data(), 2, cached_slot ? handed_on : nullptr, streamed,
                        cached_slot ? 1 : 2, mine.count, es);
    }
    for (size_t e = 0; e < mine.count && (folded_ > 0 || n == 1) && !stream_fold; e += piece) {
      const size_t o = offset + e * es, len = std::min(piece, mine.count - e);
      if (n == 1) copy_with(outputs, out + o, in + o, len * es);
      else {
        // The partial so far (my input before the first fold), then this pass's copies.
        sources_[0] = folded_ == 1 ? in + o : out + o;
        for (int j = 0; j < step; ++j) sources_[1 + j] = slot(peer_at(folded_ + j)).inputs + base_ + o;
        reduction.combine_many(out + o, sources_.data(), step + 1, len);
      }
      // Every peer has posted this call, so none still reads my block from the last one.
      if (last) copy_with(stores_, slot(rank_).reduced + base_ + o, out + o, len * es);
    }
    folded_ += step;
    if (folded_ == n) {
      // Rank 0 decides the next call's stores before anyone can finish this one: every rank
      // waits for its block_ready below, so it reads the decision at its next post.
      if (rank_ == 0)
        std::atomic_ref<uint64_t>(slot(0).next_stores)
            .store(call << 1 | static_cast<uint64_t>(chooser_.choose(count * es)), std::memory_order_release);
      std::atomic_ref<uint64_t>(slot(rank_).block_ready).store(call, std::memory_order_release);
      copied_from_[rank_] = true;
      ++copied_;
    }
  }
  // Step 2: every other block from its owner's slot, in whatever order they finish.
  for (int q = 0; q < n && copied_ < n; ++q) {
    if (copied_from_[q] || !ready(slot(q).block_ready, call)) continue;
    const Range theirs = block_range(count, n, q);
    copy_with(outputs, out + theirs.offset * es, slot(q).reduced + base_ + theirs.offset * es, theirs.count * es);
    copied_from_[q] = true;
    ++copied_;
  }
  if (copied_ < n) return false;
  last_call_ = call;
  if (rank_ == 0)
    chooser_.record(stores_, count * es, std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count());
  return true;
}

}  // namespace arlab
