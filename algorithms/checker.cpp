// The symbolic checker (see checker.h). It plays every rank's schedule the way the
// executor would: a step starts once its dependencies are done, sends and local operations
// take effect when their step starts, a receive completes when its matching send has
// started. Instead of data, each element carries the set of ranks whose input it holds.
#include "algorithms/checker.h"

#include <deque>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>

#include "algorithms/errors.h"
#include "algorithms/happens_before.h"
#include "algorithms/small_vector.h"
#include "algorithms/symbolic_buffer.h"

namespace arlab {
namespace {

struct Piece {
  uint64_t length;
  RankSet contributions;
};
using Pieces = SmallVector2<Piece>;  // a slice's contents in order; nearly always one piece

struct Message {
  OpKind kind;
  Slice remote_dst;  // for Write: where the bytes land at the receiver
  Pieces pieces;
  uint64_t count;
  uint32_t sent_at;  // the sending step's start, in message latencies
};

struct Waiter {
  uint32_t step;
  uint32_t op;
};

// The messages from one rank to another, by sequence number: a slot holds the message
// (sent, not yet received) or the receive (posted, not yet matched) until the other side
// arrives. Slots are matched nearly in order, so the deque stays short.
struct Channel {
  struct Slot {
    enum class State : uint8_t { Empty, Sent, Posted, Matched } state = State::Empty;
    Message message;
    Waiter waiter;
  };
  uint32_t base = 0;  // sequence number of slots.front()
  std::deque<Slot> slots;

  Slot& at(uint32_t seq) {
    if (seq - base >= slots.size()) slots.resize(seq - base + 1);
    return slots[seq - base];
  }
  void drop_matched() {
    while (!slots.empty() && slots.front().state == Slot::State::Matched) slots.pop_front(), ++base;
  }
};

struct RankState {
  const RankSchedule* schedule;
  std::unique_ptr<SymbolicBuffer> output, scratch;  // the input is constant: no state
  bool in_place;
  uint64_t count;
  std::unique_ptr<HappensBefore> order;
  std::unordered_map<uint32_t, Channel> incoming;  // by sending rank
  std::vector<uint32_t> pending, op_seq;
  StepDependents dependents;  // its waits_for counts down as steps complete
  std::vector<uint32_t> finish;  // per step, in message latencies (CheckStats::rounds)
  size_t done = 0;

  SymbolicBuffer& buffer(BufferId id) { return id == BufferId::Scratch ? *scratch : *output; }
  bool constant_input(BufferId id) const { return id == BufferId::Input && !in_place; }
};

class WorldChecker {
 public:
  WorldChecker(const std::vector<RankSchedule>& world, const CheckOptions& options) : n_(world.size()) {
    ranks_.resize(n_);
    for (size_t r = 0; r < n_; ++r) init_rank(r, world[r], options);
  }

  CheckStats run() {
    while (!ready_.empty()) {
      auto [r, step] = ready_.back();
      ready_.pop_back();
      start_step(r, step);
    }
    finish();
    return stats_;
  }

 private:
  void init_rank(size_t r, const RankSchedule& s, const CheckOptions& options) {
    RankState& st = ranks_[r];
    st.schedule = &s;
    st.in_place = options.in_place;
    if (s.rank != static_cast<int>(r) || s.nranks != static_cast<int>(n_))
      fail(r, "schedule is for rank " + std::to_string(s.rank) + " of " + std::to_string(s.nranks));
    st.count = s.count;
    // Pre-cut each buffer at every boundary its slices name.
    st.output = options.in_place
                    ? std::make_unique<SymbolicBuffer>(s.count, RankSet::single(r), kInitialData, slice_bounds(st, BufferId::Output))
                    : std::make_unique<SymbolicBuffer>(s.count, RankSet{}, kNeverWritten, slice_bounds(st, BufferId::Output));
    st.scratch = std::make_unique<SymbolicBuffer>(s.scratch_count, RankSet{}, kNeverWritten, slice_bounds(st, BufferId::Scratch));
    st.order = std::make_unique<HappensBefore>(s);
    const size_t steps = s.num_steps();
    st.pending.assign(steps, 0);
    st.finish.assign(steps, 0);
    for (const Op& op : s.all_ops())
      if ((is_outgoing(op.kind) || is_incoming(op.kind)) &&
          (op.peer < 0 || op.peer >= static_cast<int>(n_) || op.peer == static_cast<int>(r)))
        fail(r, "op " + to_string(op) + " names an invalid peer");
    st.op_seq = message_sequence(s);
    st.dependents = step_dependents(s);
    for (size_t x = 0; x < steps; ++x)
      if (st.dependents.waits_for[x] == 0) ready_.push_back({r, static_cast<uint32_t>(x)});
    stats_.steps += steps;
    stats_.ops += s.num_ops();
  }

  // Sorted, distinct offsets where the rank's slices of one buffer begin or end. A ring names
  // the same N block boundaries thousands of times, so for buffers up to kMaxBitmap elements
  // the offsets are marked in a bitmap (kept between ranks) and read back in order, instead
  // of collecting and sorting every occurrence.
  std::vector<uint64_t> slice_bounds(const RankState& st, BufferId buffer) {
    static constexpr uint64_t kMaxBitmap = uint64_t{1} << 26;
    const uint64_t size = buffer == BufferId::Scratch ? st.schedule->scratch_count : st.count;
    std::vector<uint64_t> bounds;
    const auto for_each_bound = [&](auto&& fn) {
      for (const Op& op : st.schedule->all_ops())
        for (const Slice& slice : op_slices(op))
          if (slice.buffer == buffer && !st.constant_input(slice.buffer)) fn(slice.offset), fn(slice.offset + slice.count);
    };
    if (size > kMaxBitmap) {
      for_each_bound([&](uint64_t x) { bounds.push_back(x); });
      return bounds;  // SymbolicBuffer sorts them
    }
    const size_t words = size / 64 + 1;
    if (bitmap_.size() < words) bitmap_.resize(words);
    for_each_bound([&](uint64_t x) {
      if (x < size) bitmap_[x / 64] |= uint64_t{1} << (x % 64);
    });
    // Read the set bits back in order, clearing the bitmap for the next buffer.
    for (size_t w = 0; w < words; ++w)
      for (uint64_t bits = std::exchange(bitmap_[w], 0); bits; bits &= bits - 1)
        bounds.push_back(w * 64 + static_cast<uint64_t>(__builtin_ctzll(bits)));
    return bounds;
  }

  // The slices an op touches on its own rank (a Write's dst is on the peer).
  struct OpSlices {
    Slice slice[3];
    int n = 0;
    const Slice* begin() const { return slice; }
    const Slice* end() const { return slice + n; }
  };
  static OpSlices op_slices(const Op& op) {
    switch (op.kind) {
      case OpKind::Send:
      case OpKind::Write: return {{op.a()}, 1};
      case OpKind::Recv:
      case OpKind::WaitSignal: return {{op.dst()}, 1};
      case OpKind::Copy: return {{op.dst(), op.a()}, 2};
      case OpKind::Reduce: return {{op.dst(), op.a(), op.b()}, 3};
    }
    return {};
  }

  [[noreturn]] void fail(size_t r, const std::string& what, int64_t step = -1) const {
    std::string where = "rank " + std::to_string(r);
    if (step >= 0) where += " step " + std::to_string(step);
    throw ScheduleError("schedule check failed: " + where + ": " + what);
  }

  void check_bounds(size_t r, uint32_t step, const Op& op, const Slice& s) {
    RankState& st = ranks_[r];
    const uint64_t size = st.constant_input(s.buffer) ? st.count : st.buffer(s.buffer).size();
    if (s.offset + s.count > size || s.offset + s.count < s.offset)
      fail(r, to_string(op) + ": " + to_string(s) + " is outside the buffer of " + std::to_string(size) + " elements", step);
  }

  // Reads a slice as of now: checks it is initialised and written by a step ordered
  // before this one, and returns its contributions piece by piece. With `mark`, also records
  // `step` among the slice's readers (for the race check of later writes); an op that writes
  // on its own rank marks its reads after its write instead (mark_read), so that the write
  // does not see the op's own read as another op's.
  Pieces read(size_t r, uint32_t step, const Op& op, const Slice& s, bool mark) {
    check_bounds(r, step, op, s);
    RankState& st = ranks_[r];
    Pieces pieces;
    if (s.count == 0) return pieces;
    if (st.constant_input(s.buffer)) {
      pieces.push_back({s.count, RankSet::single(static_cast<uint32_t>(r))});
      return pieces;
    }
    st.buffer(s.buffer).for_range(s.offset, s.offset + s.count, [&](uint64_t begin, uint64_t end, SymbolicSegment& seg) {
      if (seg.writer == kNeverWritten)
        fail(r, to_string(op) + " reads " + to_string(s) + ", which nothing ordered before it has written (uninitialised, or a missing dependency)", step);
      if (seg.writer != kInitialData && !st.order->ordered(seg.writer, step))
        fail(r, to_string(op) + " reads " + to_string(s) + " written by step " + std::to_string(seg.writer) +
                    ", which is not ordered before it (race)", step);
      if (mark && (seg.readers.empty() || seg.readers.back() != step)) seg.readers.push_back(step);
      if (!pieces.empty() && pieces.back().contributions == seg.contributions)
        pieces.back().length += end - begin;
      else
        pieces.push_back({end - begin, seg.contributions});
    });
    return pieces;
  }

  void mark_read(size_t r, uint32_t step, const Slice& s) {
    if (ranks_[r].constant_input(s.buffer)) return;
    ranks_[r].buffer(s.buffer).for_range(s.offset, s.offset + s.count, [&](uint64_t, uint64_t, SymbolicSegment& seg) {
      if (seg.readers.empty() || seg.readers.back() != step) seg.readers.push_back(step);
    });
  }

  void write(size_t r, uint32_t step, const Op& op, const Slice& s, const Pieces& pieces) {
    check_bounds(r, step, op, s);
    RankState& st = ranks_[r];
    if (st.constant_input(s.buffer)) fail(r, to_string(op) + " writes into the input buffer, which is read-only", step);
    SymbolicBuffer& buf = st.buffer(s.buffer);
    // Split the destination at every piece boundary, then overwrite segment by segment.
    uint64_t pos = s.offset;
    for (const Piece& piece : pieces) {
      buf.for_range(pos, pos + piece.length, [&](uint64_t, uint64_t, SymbolicSegment& seg) {
        if (seg.writer != kNeverWritten && seg.writer != kInitialData && !st.order->ordered(seg.writer, step))
          fail(r, to_string(op) + " overwrites " + to_string(s) + " written by unordered step " + std::to_string(seg.writer) + " (race)", step);
        for (uint32_t reader : seg.readers)
          if (!st.order->ordered(reader, step))
            fail(r, to_string(op) + " overwrites " + to_string(s) + " while unordered step " + std::to_string(reader) + " reads it (race)", step);
        seg.contributions = piece.contributions;
        seg.writer = step;
        seg.readers.clear();
      });
      pos += piece.length;
    }
  }

  // a (op) b, piece by piece; a rank present in both is a contribution counted twice.
  Pieces combine(size_t r, uint32_t step, const Op& op, const Pieces& a, const Pieces& b) {
    Pieces out;
    size_t i = 0, j = 0;
    uint64_t used_a = 0, used_b = 0;
    while (i < a.size() && j < b.size()) {
      const uint64_t len = std::min(a[i].length - used_a, b[j].length - used_b);
      auto u = RankSet::disjoint_union(a[i].contributions, b[j].contributions);
      if (!u)
        fail(r, to_string(op) + " adds " + a[i].contributions.to_string() + " to " + b[j].contributions.to_string() +
                    ": a contribution counted twice", step);
      out.push_back({len, std::move(*u)});
      if ((used_a += len) == a[i].length) ++i, used_a = 0;
      if ((used_b += len) == b[j].length) ++j, used_b = 0;
    }
    return out;
  }

  void start_step(size_t r, uint32_t step) {
    RankState& st = ranks_[r];
    const auto ops = st.schedule->ops(step);
    const uint32_t first = st.schedule->first_op(step);
    uint32_t start = 0;  // when the step starts, in message latencies
    for (uint32_t d : st.schedule->deps(step)) start = std::max(start, st.finish[d]);
    st.finish[step] = start;
    st.pending[step] = 1;  // held until every op is posted, so a delivery cannot complete the step early
    for (uint32_t i = 0; i < ops.size(); ++i) {
      const Op& op = ops[i];
      switch (op.kind) {
        case OpKind::Send:
        case OpKind::Write: {
          Message m{op.kind, op.dst(), read(r, step, op, op.a(), /*mark=*/true), op.count, start};
          post_message(r, op, st.op_seq[first + i], std::move(m));
          break;
        }
        case OpKind::Recv:
        case OpKind::WaitSignal:
          ++st.pending[step];
          post_receive(r, step, first + i);
          break;
        case OpKind::Reduce: {
          const Pieces a = read(r, step, op, op.a(), false), b = read(r, step, op, op.b(), false);
          const Pieces sum = combine(r, step, op, a, b);
          write(r, step, op, op.dst(), sum);
          mark_read(r, step, op.a());
          mark_read(r, step, op.b());
          break;
        }
        case OpKind::Copy: {
          const Pieces a = read(r, step, op, op.a(), false);
          write(r, step, op, op.dst(), a);
          mark_read(r, step, op.a());
          break;
        }
      }
    }
    if (--st.pending[step] == 0) complete_step(r, step);
  }

  void post_message(size_t r, const Op& op, uint32_t seq, Message m) {
    ++stats_.messages;
    Channel& channel = ranks_[op.peer].incoming[static_cast<uint32_t>(r)];
    Channel::Slot& slot = channel.at(seq);
    if (slot.state == Channel::Slot::State::Posted) {
      slot.state = Channel::Slot::State::Matched;
      deliver(op.peer, slot.waiter, r, m);
      channel.drop_matched();
    } else {
      slot.state = Channel::Slot::State::Sent;
      slot.message = std::move(m);
    }
  }

  void post_receive(size_t r, uint32_t step, uint32_t op_index) {
    const Op& op = ranks_[r].schedule->all_ops()[op_index];
    Channel& channel = ranks_[r].incoming[static_cast<uint32_t>(op.peer)];
    Channel::Slot& slot = channel.at(ranks_[r].op_seq[op_index]);
    if (slot.state == Channel::Slot::State::Sent) {
      slot.state = Channel::Slot::State::Matched;
      const Message m = std::move(slot.message);
      deliver(r, {step, op_index}, op.peer, m);
      channel.drop_matched();
    } else {
      slot.state = Channel::Slot::State::Posted;
      slot.waiter = {step, op_index};
    }
  }

  void deliver(size_t r, Waiter w, size_t from, const Message& m) {
    RankState& st = ranks_[r];
    const Op& op = st.schedule->all_ops()[w.op];
    const bool one_sided = op.kind == OpKind::WaitSignal;
    if (one_sided != (m.kind == OpKind::Write))
      fail(r, to_string(op) + " is matched by a " + to_string(m.kind) + " from rank " + std::to_string(from), w.step);
    if (m.count != op.count || (one_sided && (m.remote_dst.offset != op.dst_offset || m.remote_dst.buffer != op.dst_buffer)))
      fail(r, to_string(op) + " is matched by a " + to_string(m.kind) + " of " + std::to_string(m.count) +
                  " elements into " + to_string(m.remote_dst) + " from rank " + std::to_string(from), w.step);
    write(r, w.step, op, op.dst(), m.pieces);
    st.finish[w.step] = std::max(st.finish[w.step], m.sent_at + 1);
    if (--st.pending[w.step] == 0) complete_step(r, w.step);
  }

  void complete_step(size_t r, uint32_t step) {
    RankState& st = ranks_[r];
    ++st.done;
    stats_.rounds = std::max<uint64_t>(stats_.rounds, st.finish[step]);
    for (uint32_t k = st.dependents.begin[step]; k < st.dependents.begin[step + 1]; ++k) {
      const uint32_t x = st.dependents.list[k];
      if (--st.dependents.waits_for[x] == 0) ready_.push_back({r, x});
    }
  }

  void finish() {
    for (size_t r = 0; r < n_; ++r) {
      RankState& st = ranks_[r];
      if (st.done == st.schedule->num_steps()) continue;
      for (uint32_t x = 0; x < st.schedule->num_steps(); ++x)
        if (st.pending[x] > 0 || st.dependents.waits_for[x] > 0)
          fail(r, "deadlock: never completes (waiting for " +
                      (st.pending[x] ? std::string("a message") : std::to_string(st.dependents.waits_for[x]) + " dependencies") + ")", x);
    }
    for (size_t r = 0; r < n_; ++r)
      for (const auto& [from, channel] : ranks_[r].incoming)
        for (size_t i = 0; i < channel.slots.size(); ++i)
          if (channel.slots[i].state == Channel::Slot::State::Sent)
            fail(from, "a message to rank " + std::to_string(r) + " (sequence " + std::to_string(channel.base + i) +
                           ") is never received");
    // Every element of every output must hold every rank's contribution exactly once.
    for (size_t r = 0; r < n_; ++r)
      ranks_[r].output->for_each([&](uint64_t begin, uint64_t end, const SymbolicSegment& seg) {
        if (!seg.contributions.is_range(0, static_cast<uint32_t>(n_)))
          fail(r, "output[" + std::to_string(begin) + ":" + std::to_string(end) + "] ends with contributions " +
                      seg.contributions.to_string() + ", not all " + std::to_string(n_) + " ranks");
      });
  }

  size_t n_;
  std::vector<RankState> ranks_;
  std::vector<std::pair<size_t, uint32_t>> ready_;
  CheckStats stats_;
  std::vector<uint64_t> bitmap_;  // slice_bounds' scratch, all zero between calls
};

}  // namespace

CheckStats check_schedules(const std::vector<RankSchedule>& world, const CheckOptions& options) {
  if (world.empty()) throw ScheduleError("schedule check failed: empty world");
  return WorldChecker(world, options).run();
}

CheckStats check_algorithm(ScheduleGeneratorFn generate, Problem problem, const CheckOptions& options) {
  std::vector<RankSchedule> world;
  world.reserve(problem.nranks);
  for (int r = 0; r < problem.nranks; ++r) {
    problem.rank = r;
    world.push_back(generate(problem));
  }
  return check_schedules(world, options);
}

}  // namespace arlab
