// The two-step all-reduce of the shm transport on symmetric buffers (symmetric_memory.h): the
// same reduce-scatter then all-gather as two_step_slots.h, but every rank reads its peers'
// inputs and writes its peers' outputs where they are, so nothing passes through a slot and
// there is no size limit.
//
//   post:   publish where my input and output are (allocation id, offset)     ; posted = call
//   poll 1: once every peer has posted, piece by piece (cache-sized, or L1 tiles with streaming
//           output stores: streaming_copy.h):
//             out[r] = in_me[r] op in_0[r] op in_1[r] ... (peers in rank order)
//             out_q[r] = out[r] for every peer q, while the piece is still in cache ; reduced = call
//   poll 2: done once every peer's reduced reaches call: its block is in my output, and it has
//           stopped reading my input (the caller may overwrite both).
//
// Per rank, at N ranks and n bytes: reads of block r of all N inputs (n) and writes of block r
// into all N outputs (n), the least any all-reduce can move (harness/roofline.h): the reduced
// block goes on from the cache, never read back from memory.
// In place is safe: rank q's block r is read and written by its owner r alone (my own block of
// my buffer, by me), so no read of an input can see a result. Each block is reduced once, by
// its owner, so every rank has the same bits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "transports/shm/slot_stores.h"
#include "transports/shm/symmetric_memory.h"
#include "transports/streaming_copy.h"
#include "transports/transport.h"

namespace arlab {

class SymmetricTwoStep {
 public:
  // Each rank's flags: this struct, in each rank's shared segment.
  struct alignas(64) Flags {
    uint64_t posted;  // the call whose buffers are described below
    uint64_t input_id, input_offset, output_id, output_offset;
    char pad[24];
    uint64_t reduced;  // the call whose block r is in every rank's output
    char pad2[56];
  };
  static constexpr size_t kPieceBytes = 64 << 10;  // step 1's unit: the partial block stays in L2

  // flags_of[q]: rank q's flags, mapped in this process.
  // Reads ARLAB_SHM_OUTPUT_STORES (slot_stores.h; throws std::invalid_argument on a bad value).
  SymmetricTwoStep(std::vector<Flags*> flags_of, int rank, const SymmetricMemory& memory)
      : flags_of_(std::move(flags_of)), rank_(rank), memory_(memory), sources_(flags_of_.size()),
        pieces_(flags_of_.size()), destinations_(flags_of_.size()), output_setting_(output_stores_setting()),
        streaming_(static_cast<int>(flags_of_.size())) {}

  // Throws TransportError when input or output is not in symmetric memory (and tells the peers,
  // which throw too instead of waiting).
  void post(uint64_t call, const void* input, void* output, size_t bytes);
  // True once the output holds the result and no peer reads or writes my buffers any more.
  bool poll(uint64_t call, const void* input, void* output, size_t count, const NativeReduction& reduction);

 private:
  bool reached(int q, uint64_t Flags::*flag, uint64_t call) const;
  const char* peer_input(int q) const;
  char* peer_output(int q) const;

  std::vector<Flags*> flags_of_;
  int rank_;
  const SymmetricMemory& memory_;
  bool reduced_ = false;  // this call's block r is reduced and handed on
  std::vector<const char*> peer_inputs_;  // this call's, in my mappings of the peers' memory
  std::vector<char*> peer_outputs_;
  std::vector<const void*> sources_;  // my block in my input, then in the peers' in rank order
  std::vector<const void*> pieces_;   // one piece of each of sources_
  std::vector<void*> destinations_;   // my block in my output, then in the peers' in rank order
  // Cached or streaming stores into the outputs (output_stores in slot_stores.h); streaming
  // ones go through streaming_'s tiles.
  OutputStoresSetting output_setting_;
  StoreKind outputs_ = StoreKind::Cached;  // this call's, decided at its post
  StreamingReducer streaming_;
};

}  // namespace arlab
