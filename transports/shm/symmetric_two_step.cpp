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
    // My block from all N inputs' copies of it: my own input first (read before anything is
    // written, so in place works), then the peers' in rank order. With streaming output stores
    // the whole block goes through the streaming reducer's L1 tiles into every output; with
    // cached ones piece by piece, each reduced into my output while it stays in cache and then
    // copied from the cache into every peer's output.
    const Range mine = block_range(count, n, rank_);
    const char* in = static_cast<const char*>(input);
    char* out = static_cast<char*>(output);
    const size_t block = mine.offset * es;
    sources_[0] = in + block;
    for (int q = 0, j = 1; q < n; ++q)
      if (q != rank_) sources_[j++] = peer_inputs_[q] + block;
    if (n == 1) {
      if (out != in) copy_with(outputs_, out, in, count * es);
    } else if (outputs_ == StoreKind::Streaming) {
      destinations_[0] = out + block;
      for (int q = 0, j = 1; q < n; ++q)
        if (q != rank_) destinations_[j++] = peer_outputs_[q] + block;
      streaming_.reduce(reduction.combine_many, sources_.data(), n, nullptr, destinations_.data(), n, mine.count, es);
    } else {
      const size_t piece = std::max<size_t>(1, kPieceBytes / es);
      // Each piece: all N inputs' piece in one pass into my output, then into every peer's.
      for (size_t e = 0; e < mine.count; e += piece) {
        const size_t o = e * es, len = std::min(piece, mine.count - e);
        for (int j = 0; j < n; ++j) pieces_[j] = static_cast<const char*>(sources_[j]) + o;
        reduction.combine_many(out + block + o, pieces_.data(), n, len);
        for (int q = 0; q < n; ++q)
          if (q != rank_) std::memcpy(peer_outputs_[q] + block + o, out + block + o, len * es);
      }
    }
    std::atomic_ref<uint64_t>(flags_of_[rank_]->reduced).store(call, std::memory_order_release);
    reduced_ = true;
  }
  for (int q = 0; q < n; ++q)
    if (q != rank_ && !reached(q, &Flags::reduced, call)) return false;
  return true;
}

}  // namespace arlab
