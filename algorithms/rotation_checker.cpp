// The rotation checker (see rotation_checker.h): the symbolic checker's rules, played on one
// rank whose units are whole (block, chunk) pieces and whose ranks are named relative to it.
#include "algorithms/rotation_checker.h"

#include <deque>
#include <string>
#include <vector>

#include "algorithms/contributions.h"
#include "algorithms/errors.h"
#include "algorithms/happens_before.h"
#include "algorithms/small_vector.h"
#include "algorithms/symbolic_buffer.h"

namespace arlab {
namespace {

struct UnitState {
  RankSet contributions;  // ranks named relative to this one (0 = itself)
  uint32_t writer = kNeverWritten;
  SmallVector2<uint32_t> readers;
  UnitRef written_as{};  // scratch: the unit whose elements the writer put in the slot
};

struct Message {
  RankSet contributions;  // named relative to the receiver
  UnitRef unit;           // the unit sent, named from the receiver
  uint32_t sent_at;
};

// Messages from one distance by sequence number: a message waiting for its receive, or a
// receive (step, op) waiting for its message.
struct Channel {
  struct Slot {
    enum class State : uint8_t { Empty, Sent, Posted, Matched } state = State::Empty;
    Message message;
    uint32_t step = 0, op = 0;
  };
  std::deque<Slot> slots;  // by sequence number; a template has few steps, so all are kept
  Slot& at(uint32_t seq) {
    if (seq >= slots.size()) slots.resize(seq + 1);
    return slots[seq];
  }
};

class RotationChecker {
 public:
  RotationChecker(const RotationTemplate& t, const CheckOptions& options)
      : t_(t), n_(t.nranks()), chunks_(t.chunks_per_block()), in_place_(options.in_place), order_(t.shape()),
        dependents_(step_dependents(t.shape())), channels_(n_) {
    output_.resize(static_cast<size_t>(n_) * chunks_);
    scratch_.resize(chunks_);
    if (in_place_)
      for (UnitState& u : output_) u.contributions = RankSet::single(0), u.writer = kInitialData;
    pending_.assign(t.num_steps(), 0);
    finish_.assign(t.num_steps(), 0);
    number_messages();
    for (uint32_t x = 0; x < t.num_steps(); ++x)
      if (dependents_.waits_for[x] == 0) ready_.push_back(x);
  }

  CheckStats run() {
    while (!ready_.empty()) {
      const uint32_t x = ready_.back();
      ready_.pop_back();
      start_step(x);
    }
    finish();
    stats_.steps = static_cast<uint64_t>(t_.num_steps()) * n_;
    return stats_;
  }

 private:
  uint32_t distance(int d) const { return static_cast<uint32_t>(mod(d, n_)); }
  UnitRef normal(UnitRef u) const { return {u.buffer, static_cast<int32_t>(mod(u.block, n_)), u.chunk}; }

  std::string name(const UnitRef& u) const {
    static const char* const buffers[] = {"in", "out", "scratch"};
    return std::string(buffers[static_cast<int>(u.buffer)]) + "[block r" + (u.block < 0 ? "" : "+") +
           std::to_string(u.block) + " chunk " + std::to_string(u.chunk) + "]";
  }
  std::string name(const TemplateOp& op) const {
    switch (op.kind) {
      case OpKind::Send: return "send(r" + std::string(op.peer < 0 ? "" : "+") + std::to_string(op.peer) + ", " + name(op.a) + ")";
      case OpKind::Recv: return "recv(r" + std::string(op.peer < 0 ? "" : "+") + std::to_string(op.peer) + ", " + name(op.dst) + ")";
      case OpKind::Reduce: return "reduce(" + name(op.dst) + " = " + name(op.a) + " + " + name(op.b) + ")";
      case OpKind::Copy: return "copy(" + name(op.dst) + " = " + name(op.a) + ")";
      default: return to_string(op.kind);
    }
  }
  [[noreturn]] void fail(int64_t step, const std::string& what) const {
    throw ScheduleError("rotation check failed (N=" + std::to_string(n_) + "): " +
                        (step >= 0 ? "step " + std::to_string(step) + ": " : "") + what);
  }

  // Sequence numbers in template order, per kind and distance modulo N (at N = 2, +1 and -1
  // are one peer), as message_sequence() numbers an expanded schedule. Also validates peers.
  void number_messages() {
    std::vector<uint32_t> sends(n_, 0), recvs(n_, 0);
    op_seq_.resize(t_.num_ops());
    for (uint32_t x = 0; x < t_.num_steps(); ++x)
      for (uint32_t i = 0; i < t_.ops(x).size(); ++i) {
        const TemplateOp& op = t_.ops(x)[i];
        if (op.kind != OpKind::Send && op.kind != OpKind::Recv) continue;
        const uint32_t d = distance(op.peer);
        if (d == 0) fail(x, name(op) + " names the rank itself");
        op_seq_[t_.first_op(x) + i] = (op.kind == OpKind::Send ? sends : recvs)[d]++;
      }
  }

  void check_chunk(uint32_t step, const TemplateOp& op, UnitRef u) const {
    if (u.chunk >= chunks_)
      fail(step, name(op) + ": chunk " + std::to_string(u.chunk) + " is outside the buffer (" + std::to_string(chunks_) + " chunks per block)");
  }
  UnitState& state(uint32_t step, const TemplateOp& op, UnitRef u) {
    check_chunk(step, op, u);
    if (u.buffer == BufferId::Scratch) return scratch_[u.chunk];
    return output_[static_cast<size_t>(mod(u.block, n_)) * chunks_ + u.chunk];  // in place: Input is Output
  }
  bool constant_input(UnitRef u) const { return u.buffer == BufferId::Input && !in_place_; }

  // The unit's contributions as of now, after checking it is written by a step ordered before.
  RankSet read(uint32_t step, const TemplateOp& op, UnitRef u, bool mark) {
    if (constant_input(u)) {
      check_chunk(step, op, u);
      return RankSet::single(0);
    }
    UnitState& s = state(step, op, u);
    if (s.writer == kNeverWritten)
      fail(step, name(op) + " reads " + name(u) + ", which nothing ordered before it has written (uninitialised, or a missing dependency)");
    if (s.writer != kInitialData && !order_.ordered(s.writer, step))
      fail(step, name(op) + " reads " + name(u) + " written by step " + std::to_string(s.writer) + ", which is not ordered before it (race)");
    if (u.buffer == BufferId::Scratch && !(s.written_as == normal(u)))
      fail(step, name(op) + " reads scratch slot " + std::to_string(u.chunk) + " as " + name(u) + ", but it holds " +
                     name(s.written_as) + " (sizes may differ)");
    if (mark) mark_read(s, step);
    return s.contributions;
  }
  static void mark_read(UnitState& s, uint32_t step) {
    if (s.readers.empty() || s.readers.back() != step) s.readers.push_back(step);
  }

  void write(uint32_t step, const TemplateOp& op, UnitRef u, RankSet contributions) {
    if (constant_input(u)) fail(step, name(op) + " writes into the input buffer, which is read-only");
    UnitState& s = state(step, op, u);
    if (s.writer != kNeverWritten && s.writer != kInitialData && !order_.ordered(s.writer, step))
      fail(step, name(op) + " overwrites " + name(u) + " written by unordered step " + std::to_string(s.writer) + " (race)");
    for (uint32_t reader : s.readers)
      if (!order_.ordered(reader, step))
        fail(step, name(op) + " overwrites " + name(u) + " while unordered step " + std::to_string(reader) + " reads it (race)");
    s.contributions = std::move(contributions);
    s.writer = step;
    s.readers.clear();
    s.written_as = normal(u);
  }

  void same_unit(uint32_t step, const TemplateOp& op, UnitRef x, UnitRef y) {
    const UnitRef a = normal(x), b = normal(y);
    if (a.block != b.block || a.chunk != b.chunk)
      fail(step, name(op) + " combines " + name(x) + " and " + name(y) + ", whose sizes may differ");
  }

  void start_step(uint32_t x) {
    uint32_t start = 0;  // in message latencies
    for (uint32_t d : t_.deps(x)) start = std::max(start, finish_[d]);
    finish_[x] = start;
    pending_[x] = 1;  // held until every op is posted
    const auto ops = t_.ops(x);
    for (uint32_t i = 0; i < ops.size(); ++i) {
      const TemplateOp& op = ops[i];
      const uint32_t seq = op_seq_[t_.first_op(x) + i];
      switch (op.kind) {
        case OpKind::Send: {
          // Rank q = -distance receives this from distance q; from there everything rank 0
          // holds looks shifted by q.
          const uint32_t q = distance(-op.peer);
          const RankSet sent = read(x, op, op.a, /*mark=*/true);
          const UnitRef seen{op.a.buffer, static_cast<int32_t>(mod(static_cast<long long>(op.a.block) + q, n_)), op.a.chunk};
          count(op.a, /*message=*/true);
          post_message(q, seq, Message{sent.rotated(q, n_), seen, start});
          break;
        }
        case OpKind::Recv:
          ++pending_[x];
          count(op.dst, false);
          post_receive(distance(op.peer), seq, x, i);
          break;
        case OpKind::Reduce: {
          same_unit(x, op, op.dst, op.a), same_unit(x, op, op.dst, op.b);
          const RankSet a = read(x, op, op.a, false), b = read(x, op, op.b, false);
          auto sum = RankSet::disjoint_union(a, b);
          if (!sum) fail(x, name(op) + " adds " + a.to_string() + " to " + b.to_string() + ": a contribution counted twice (ranks relative to r)");
          write(x, op, op.dst, std::move(*sum));
          for (UnitRef u : {op.a, op.b})
            if (!constant_input(u)) mark_read(state(x, op, u), x);
          count(op.dst, false);
          break;
        }
        case OpKind::Copy: {
          same_unit(x, op, op.dst, op.a);
          write(x, op, op.dst, read(x, op, op.a, false));
          if (!constant_input(op.a)) mark_read(state(x, op, op.a), x);
          count(op.dst, false);
          break;
        }
        default: fail(x, to_string(op.kind) + " has no place in a rotation template");
      }
    }
    if (--pending_[x] == 0) complete_step(x);
  }

  // Ops (and messages) as the N expansions hold them: only on ranks where the unit has elements.
  void count(UnitRef u, bool message) {
    const uint64_t ranks = u.chunk < chunks_ ? t_.ranks_with_elements(u) : 0;
    stats_.ops += ranks;
    if (message) stats_.messages += ranks;
  }

  void post_message(uint32_t from, uint32_t seq, Message m) {
    Channel::Slot& slot = channels_[from].at(seq);
    if (slot.state == Channel::Slot::State::Posted) {
      slot.state = Channel::Slot::State::Matched;
      deliver(slot.step, slot.op, from, m);
    } else {
      slot.state = Channel::Slot::State::Sent;
      slot.message = std::move(m);
    }
  }

  void post_receive(uint32_t from, uint32_t seq, uint32_t step, uint32_t op) {
    Channel::Slot& slot = channels_[from].at(seq);
    if (slot.state == Channel::Slot::State::Sent) {
      slot.state = Channel::Slot::State::Matched;
      deliver(step, op, from, slot.message);
    } else {
      slot.state = Channel::Slot::State::Posted;
      slot.step = step, slot.op = op;
    }
  }

  void deliver(uint32_t step, uint32_t i, uint32_t from, const Message& m) {
    const TemplateOp& op = t_.ops(step)[i];
    const UnitRef want = normal(op.dst);
    if (m.unit.block != want.block || m.unit.chunk != want.chunk)
      fail(step, name(op) + " is matched by a send of " + name(m.unit) + " from rank r+" + std::to_string(from) +
                     " (seen from here), whose size may differ");
    write(step, op, op.dst, m.contributions);
    finish_[step] = std::max(finish_[step], m.sent_at + 1);
    if (--pending_[step] == 0) complete_step(step);
  }

  void complete_step(uint32_t x) {
    ++done_;
    stats_.rounds = std::max<uint64_t>(stats_.rounds, finish_[x]);
    for (uint32_t k = dependents_.begin[x]; k < dependents_.begin[x + 1]; ++k)
      if (--dependents_.waits_for[dependents_.list[k]] == 0) ready_.push_back(dependents_.list[k]);
  }

  void finish() {
    for (uint32_t x = 0; done_ < t_.num_steps() && x < t_.num_steps(); ++x)
      if (pending_[x] > 0 || dependents_.waits_for[x] > 0)
        fail(x, "deadlock: never completes (waiting for " +
                    (pending_[x] ? std::string("a message") : std::to_string(dependents_.waits_for[x]) + " dependencies") + ")");
    for (uint32_t from = 1; from < static_cast<uint32_t>(n_); ++from)
      for (size_t seq = 0; seq < channels_[from].slots.size(); ++seq)
        if (channels_[from].slots[seq].state == Channel::Slot::State::Sent)
          fail(-1, "message " + std::to_string(seq) + " from rank r+" + std::to_string(from) + " to rank r is never received");
    // Every unit of the output must hold every rank's contribution exactly once.
    for (size_t k = 0; k < output_.size(); ++k)
      if (!output_[k].contributions.is_range(0, static_cast<uint32_t>(n_)))
        fail(-1, "output " + name(UnitRef{BufferId::Output, static_cast<int32_t>(k / chunks_), static_cast<uint32_t>(k % chunks_)}) +
                     " ends with contributions " + output_[k].contributions.to_string() + " (relative to r), not all " +
                     std::to_string(n_) + " ranks");
  }

  const RotationTemplate& t_;
  int n_;
  uint32_t chunks_;
  bool in_place_;
  HappensBefore order_;
  StepDependents dependents_;
  std::vector<Channel> channels_;  // by the distance messages come from
  std::vector<UnitState> output_, scratch_;
  std::vector<uint32_t> pending_, finish_, op_seq_, ready_;
  size_t done_ = 0;
  CheckStats stats_;
};

}  // namespace

CheckStats check_rotation_template(const RotationTemplate& t, const CheckOptions& options) {
  return RotationChecker(t, options).run();
}

}  // namespace arlab
