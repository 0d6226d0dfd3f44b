// The two-step all-reduce of the shm transport (Transport::two_step_allreduce_*), on one slot
// in every rank's shared segment. The slot has two areas laid out like the user's buffer: in
// `inputs` rank r keeps its copies of the peers' blocks at their own offsets, in `reduced` its
// reduced block r at block r's.
//
//   post:   copy input block b into my inputs, for every b != r       ; inputs_ready = call
//   poll 1: as the peers' inputs_ready reach call, fold their copies of block r into my output,
//           all that have arrived in one pass: out[r] = in[r] op inputs_q[r] op ... (my own
//           first, then the peers in rank order);
//           once all are in, copy out[r] into my reduced area          ; block_ready = call
//   poll 2: as each peer's block_ready reaches call, copy its block from its reduced area into
//           my output
//
// From 64 KiB to under 1 MiB each call's blocks sit at a base that moves through the areas
// from call to call (base = (call mod places) x the message rounded up to 4 KiB, places = how
// many fit), so a line written in one call is written again only calls later, once the peer
// that read it has dropped it from its caches. Rewriting lines a peer still holds costs a
// cross-core invalidation for each; measured at N = 2 on a 2-vCPU AMD EPYC VM, moving the base
// took a 128 KiB call from about 21 to 8 us (README, performance). Every rank computes the same base
// from the call's number and size.
//
// One slot serves every call, and the flags only grow. Reusing it is safe whatever the sizes
// and bases of consecutive calls (the blocks move with both): my inputs are read in the peers' step 1,
// which ends (block_ready) before my previous call could end; my reduced area is rewritten only
// once every peer has posted this call, so has left the previous one and its step 2. (With one
// area, a call whose blocks lie elsewhere than the last call's could overwrite a reduced block a
// peer was still copying: pieces of a large message, the last one short, did.) Each block is
// reduced by its owner alone, so all ranks get the same bits.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "transports/shm/slot_stores.h"
#include "transports/transport.h"

namespace arlab {

class TwoStepSlots {
 public:
  static constexpr size_t kMaxBytes = 2 << 20;  // the largest message of one call
  struct alignas(64) Slot {
    uint64_t inputs_ready;  // the call whose peers' blocks are in inputs
    uint64_t next_stores;   // rank 0's slot: (call << 1) | StoreKind for the call after that one
    char pad[48];
    uint64_t block_ready;  // the call whose reduced block is in reduced
    char pad2[56];
    char inputs[kMaxBytes];
    char reduced[kMaxBytes];
  };
  static constexpr size_t kSegmentBytes = sizeof(Slot);
  static constexpr size_t kPieceBytes = 64 << 10;  // the fold's unit: well inside L2
  static constexpr size_t kRotationAlign = 4 << 10;  // bases are multiples of a page
  // Smaller calls keep base 0: 2 MiB of places would take hundreds of calls to warm up, and
  // from a cold start (bench/compare.sh, 25 calls a size between MPI_Allreduce's) 2-32 KiB
  // were 1.1-3x slower with the base moving.
  static constexpr size_t kRotationMinBytes = 64 << 10;
  // Nor do calls of 1 MiB and more, a large message's pieces (harness/collective.cpp): two
  // places of 1 MiB double the slot's share of the caches. At N = 2, six alternated runs
  // (results/reference/debian12-2core-zen4/ab-rotation-cap/): out of place 2 MiB 116 against
  // 125 us and 4 MiB 281 against 308 with the base fixed there; in place 3-8 % slower.
  static constexpr size_t kRotationMaxBytes = 1 << 20;
  // Where call `call` of `bytes` puts its blocks in each area (the comment above).
  static size_t rotation_base(uint64_t call, size_t bytes);

  // slots_of[q]: where rank q's slot is mapped in this process. Reads ARLAB_SHM_OUTPUT_STORES
  // (slot_stores.h; throws std::invalid_argument on a bad value).
  TwoStepSlots(std::vector<char*> slots_of, int rank)
      : slots_of_(std::move(slots_of)), rank_(rank), sources_(slots_of_.size()), output_setting_(output_stores_setting()),
        streaming_(2) {
    // Write every page of my areas now: the base moves through all of them (above), and the
    // first store to each page of a shared mapping is a fault even after MAP_POPULATE.
    std::memset(slot(rank_).inputs, 0, kMaxBytes);
    std::memset(slot(rank_).reduced, 0, kMaxBytes);
  }

  // message_bytes: the whole all-reduce this call is a piece of (its buffers' footprint decides
  // the output's stores).
  void post(uint64_t call, const void* input, size_t count, const NativeReduction& reduction, size_t message_bytes);
  // True once the output holds the result.
  bool poll(uint64_t call, const void* input, void* output, size_t count, const NativeReduction& reduction);

 private:
  Slot& slot(int q) { return *reinterpret_cast<Slot*>(slots_of_[q]); }
  bool ready(const uint64_t& flag, uint64_t call) const;

  std::vector<char*> slots_of_;
  int rank_;
  int folded_ = 0;  // ranks folded into my block so far, in the order: me, then the others
  int copied_ = 0;  // ranks whose blocks are in my output (myself included)
  std::vector<bool> copied_from_;
  std::vector<const void*> sources_;  // one fold pass's: the partial, then the peers' copies
  // Cached or streaming stores into my slot, as rank 0 chose from the calls' times
  // (slot_stores.h): the post's copies of the peers' blocks and the reduced block handed on.
  StoreKind stores_ = StoreKind::Cached;
  // Cached or streaming stores into my output (output_stores in slot_stores.h), and the
  // reducer of N = 2's step 1 when the output takes streaming stores.
  OutputStoresSetting output_setting_;
  size_t message_bytes_ = 0;
  StoreKind outputs_ = StoreKind::Cached;  // this call's
  StreamingReducer streaming_;
  StoreChooser chooser_;  // rank 0's
  uint64_t last_call_ = 0;
  size_t base_ = 0;  // this call's rotation_base
  std::chrono::steady_clock::time_point started_;
};

}  // namespace arlab
