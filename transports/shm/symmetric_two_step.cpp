#include "transports/shm/symmetric_two_step.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>

#include "algorithms/partition.h"

namespace arlab {

bool SymmetricTwoStep::reached(int q, uint64_t Flags::*flag, uint64_t call) const {
  return std::atomic_ref<uint64_t>(flags_of_[q]->*flag).load(std::memory_order_acquire) == call;
}

const char* SymmetricTwoStep::peer_input(int q) const {
  const Flags& f = *flags_of_[q];
  return memory_.address(q, {f.input_id, f.input_offset});
}

char* SymmetricTwoStep::peer_output(int q) const {
  const Flags& f = *flags_of_[q];
  return memory_.address(q, {f.output_id, f.output_offset});
}

void SymmetricTwoStep::post(uint64_t call, const void* input, void* output, size_t bytes) {
  const SymmetricMemory::Place in = memory_.place_of(input, bytes), out = memory_.place_of(output, bytes);
  Flags& mine = *flags_of_[rank_];
  mine.input_id = in.id, mine.input_offset = in.offset;
  mine.output_id = out.id, mine.output_offset = out.offset;
  reduced_ = false;
  outputs_ = output_stores(bytes, static_cast<int>(flags_of_.size()), input == output, output_setting_);
  peer_inputs_.assign(flags_of_.size(), nullptr);
  peer_outputs_.assign(flags_of_.size(), nullptr);
  // Posted even when the buffers are wrong: the peers then throw too instead of waiting.
  std::atomic_ref<uint64_t>(mine.posted).store(call, std::memory_order_release);
  if (in.id == SymmetricMemory::kNone || out.id == SymmetricMemory::kNone)
    throw TransportError("shm symmetric two-step all-reduce(" + std::to_string(bytes) + " bytes): the " +
                         (in.id == SymmetricMemory::kNone ? "input" : "output") + " of rank " + std::to_string(rank_) +
                         " is not in symmetric memory (allocate_symmetric)");
}

bool SymmetricTwoStep::poll(uint64_t call, const void* input, void* output, size_t count, const NativeReduction& reduction) {
  const int n = static_cast<int>(flags_of_.size());
  const size_t es = reduction.element_size;
  if (!reduced_) {
    for (int q = 0; q < n; ++q) {
      if (q == rank_) continue;
      if (!reached(q, &Flags::posted, call)) return false;
      peer_inputs_[q] = peer_input(q), peer_outputs_[q] = peer_output(q);
      if (!peer_inputs_[q] || !peer_outputs_[q])
        throw TransportError("shm symmetric two-step all-reduce: the input or output of rank " + std::to_string(q) +
                             " is not in symmetric memory");
    }
    // My block, piece by piece: my own input first (read before anything is written, so in
    // place works), then the peers' in rank order, each added to the piece while it stays in
    // cache; then the finished piece goes from the cache into every peer's output. With
    // streaming output stores the piece is reduced in stage_ and streamed into my output too.
    const Range mine = block_range(count, n, rank_);
    const size_t piece = std::max<size_t>(1, kPieceBytes / es);
    const char* in = static_cast<const char*>(input);
    char* out = static_cast<char*>(output);
    const StoreKind outputs = outputs_;
    for (size_t e = 0; e < mine.count; e += piece) {
      const size_t o = (mine.offset + e) * es, len = std::min(piece, mine.count - e);
      char* reduced = outputs == StoreKind::Streaming && n > 1 ? stage_.data() : out + o;  // this piece's result
      if (n == 1 && out != in) copy_with(outputs, out + o, in + o, len * es);
      if (n > 1) {
        // All N inputs' piece in one pass: mine, then the peers' in rank order.
        sources_[0] = in + o;
        for (int q = 0, j = 1; q < n; ++q)
          if (q != rank_) sources_[j++] = peer_inputs_[q] + o;
        reduction.combine_many(reduced, sources_.data(), n, len);
      }
      if (reduced != out + o) copy_streaming(out + o, reduced, len * es);
      for (int q = 0; q < n; ++q)
        if (q != rank_) copy_with(outputs, peer_outputs_[q] + o, reduced, len * es);
    }
    std::atomic_ref<uint64_t>(flags_of_[rank_]->reduced).store(call, std::memory_order_release);
    reduced_ = true;
  }
  for (int q = 0; q < n; ++q)
    if (q != rank_ && !reached(q, &Flags::reduced, call)) return false;
  return true;
}

}  // namespace arlab
