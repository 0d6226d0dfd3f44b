#include "harness/simulator.h"

#include <algorithm>
#include <queue>
#include <string>

#include "algorithms/errors.h"
#include "transports/slot_table.h"

namespace arlab {
namespace {

// One receive of a rank, found by (sender, sequence number): the message's arrival (sent,
// receive not yet posted) or the step that posted the receive (waiting for the message).
struct Mailbox {
  uint64_t key;  // sender << 32 | sequence number
  enum class State : uint8_t { Empty, Arrived, Posted, Matched } state = State::Empty;
  uint32_t step = 0;
  SimTime arrival;
};

struct RankState {
  const RankSchedule* schedule;
  StepDependents dependents;       // waits_for counts down as steps complete
  std::vector<uint32_t> op_seq;    // message sequence number per op
  std::vector<Mailbox> mailboxes;  // one per receive, sorted by key
  std::vector<uint32_t> pending;   // ops of a started step not yet complete
  std::vector<SimTime> finish;     // per step: its start, then the latest of its ops
  SimTime reduce_free;             // the rank's reduce engine
  size_t done = 0;

  Mailbox* mailbox(uint32_t from, uint32_t seq) {
    const uint64_t key = uint64_t{from} << 32 | seq;
    auto it = std::lower_bound(mailboxes.begin(), mailboxes.end(), key, [](const Mailbox& m, uint64_t k) { return m.key < k; });
    return it != mailboxes.end() && it->key == key ? &*it : nullptr;
  }
};

// A message whose first byte has left (or will leave) its sender's port: the rest of its path
// is reserved when that moment comes.
struct InFlight {
  uint32_t from, to, seq;
  double bytes;
  SimTime head, sender_done;
};

// At `time`: step `index` of `rank` completes, or (rank == kMessage) message `index` of the
// in-flight pool leaves its sender.
struct Event {
  double time;
  uint32_t rank, index;
  bool operator>(const Event& o) const { return time > o.time || (time == o.time && rank > o.rank); }
};
constexpr uint32_t kMessage = UINT32_MAX;

class WorldSimulator {
 public:
  WorldSimulator(const std::vector<RankSchedule>& world, Network& network, const SimOptions& options)
      : network_(network), options_(options), ranks_(world.size()) {
    for (size_t r = 0; r < world.size(); ++r) {
      RankState& st = ranks_[r];
      st.schedule = &world[r];
      st.dependents = step_dependents(world[r]);
      st.op_seq = message_sequence(world[r]);
      const auto ops = world[r].all_ops();
      for (uint32_t i = 0; i < ops.size(); ++i)
        if (is_incoming(ops[i].kind)) st.mailboxes.push_back({uint64_t{static_cast<uint32_t>(ops[i].peer)} << 32 | st.op_seq[i], Mailbox::State::Empty, 0, {}});
      std::sort(st.mailboxes.begin(), st.mailboxes.end(), [](const Mailbox& a, const Mailbox& b) { return a.key < b.key; });
      st.pending.assign(world[r].num_steps(), 0);
      st.finish.assign(world[r].num_steps(), SimTime{});
    }
  }

  SimResult run() {
    // Steps that wait for nothing start at time zero.
    for (uint32_t r = 0; r < ranks_.size(); ++r)
      for (uint32_t x = 0; x < ranks_[r].schedule->num_steps(); ++x)
        if (ranks_[r].dependents.waits_for[x] == 0) start_step(r, x, SimTime{});
    // Complete steps in time order; each completion may start the steps that wait for it.
    while (!events_.empty()) {
      const Event e = events_.top();
      events_.pop();
      if (e.rank == kMessage)
        carry(e.index);
      else
        complete_step(e.rank, e.index);
    }
    for (uint32_t r = 0; r < ranks_.size(); ++r)
      if (ranks_[r].done != ranks_[r].schedule->num_steps())
        throw ScheduleError("simulation: rank " + std::to_string(r) + " never finishes (" +
                            std::to_string(ranks_[r].schedule->num_steps() - ranks_[r].done) + " steps left: deadlock)");
    for (uint32_t r = 0; r < ranks_.size(); ++r)
      for (const Mailbox& m : ranks_[r].mailboxes)
        if (m.state != Mailbox::State::Matched)
          throw ScheduleError("simulation: rank " + std::to_string(r) + "'s receive " + std::to_string(m.key & 0xffffffff) +
                              " from rank " + std::to_string(m.key >> 32) + " is never matched");
    return result_;
  }

 private:
  void start_step(uint32_t r, uint32_t step, const SimTime& now) {
    RankState& st = ranks_[r];
    const auto ops = st.schedule->ops(step);
    const uint32_t first = st.schedule->first_op(step);
    st.finish[step] = now;
    st.pending[step] = 1;  // held until every op is posted
    for (uint32_t i = 0; i < ops.size(); ++i) {
      const Op& op = ops[i];
      const double bytes = static_cast<double>(op.count) * options_.element_size;
      switch (op.kind) {
        case OpKind::Send:
        case OpKind::Write: {
          InFlight m{r, static_cast<uint32_t>(op.peer), st.op_seq[first + i], bytes, {}, {}};
          m.head = network_.leave(static_cast<int>(r), op.peer, bytes, now, &m.sender_done);
          ++st.pending[step];
          op_done(r, step, m.sender_done);
          launch(m);
          break;
        }
        case OpKind::Recv:
        case OpKind::WaitSignal:
          ++st.pending[step];
          post_receive(r, static_cast<uint32_t>(op.peer), st.op_seq[first + i], step, now);
          break;
        case OpKind::Reduce: {
          SimTime t = later(now, st.reduce_free);
          t.reduction += bytes * options_.reduce_seconds_per_byte;
          st.reduce_free = t;
          ++st.pending[step];
          op_done(r, step, t);
          break;
        }
        case OpKind::Copy: break;  // free, as in the closed forms
      }
    }
    if (--st.pending[step] == 0) events_.push({st.finish[step].total(), r, step});
  }

  void op_done(uint32_t r, uint32_t step, const SimTime& t) {
    RankState& st = ranks_[r];
    st.finish[step] = later(st.finish[step], t);
    if (--st.pending[step] == 0) events_.push({st.finish[step].total(), r, step});
  }

  void launch(const InFlight& m) {
    const uint32_t slot = in_flight_.add(m);
    events_.push({m.head.total(), kMessage, slot});
  }

  void carry(uint32_t slot) {
    const InFlight m = in_flight_[slot];
    in_flight_.release(slot);
    const SimTime arrival = network_.arrive(static_cast<int>(m.from), static_cast<int>(m.to), m.bytes, m.head, m.sender_done);
    Mailbox* box = ranks_[m.to].mailbox(m.from, m.seq);
    if (!box || box->state == Mailbox::State::Arrived || box->state == Mailbox::State::Matched)
      throw ScheduleError("simulation: rank " + std::to_string(m.from) + "'s message " + std::to_string(m.seq) + " to rank " +
                          std::to_string(m.to) + " has no receive");
    if (box->state == Mailbox::State::Posted) {
      box->state = Mailbox::State::Matched;
      op_done(m.to, box->step, arrival);  // posted before: it completes on arrival
    } else {
      box->state = Mailbox::State::Arrived;
      box->arrival = arrival;
    }
  }

  void post_receive(uint32_t r, uint32_t from, uint32_t seq, uint32_t step, const SimTime& now) {
    Mailbox* box = ranks_[r].mailbox(from, seq);  // exists: built from this rank's receives
    if (box->state == Mailbox::State::Arrived) {
      box->state = Mailbox::State::Matched;
      op_done(r, step, later(box->arrival, now));
    } else {
      box->state = Mailbox::State::Posted;
      box->step = step;
    }
  }

  void complete_step(uint32_t r, uint32_t step) {
    RankState& st = ranks_[r];
    ++st.done;
    result_.finish = later(result_.finish, st.finish[step]);
    const StepDependents& d = st.dependents;
    for (uint32_t k = d.begin[step]; k < d.begin[step + 1]; ++k) {
      const uint32_t x = d.list[k];
      if (--st.dependents.waits_for[x] != 0) continue;
      // Every dependency is done: the step starts at the latest of them.
      SimTime start;
      for (uint32_t dep : st.schedule->deps(x)) start = later(start, st.finish[dep]);
      start_step(r, x, start);
    }
  }

  Network& network_;
  SimOptions options_;
  std::vector<RankState> ranks_;
  SlotTable<InFlight> in_flight_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  SimResult result_;
};

}  // namespace

SimResult simulate(const std::vector<RankSchedule>& world, Network& network, const SimOptions& options) {
  if (world.empty()) throw ScheduleError("simulation: empty world");
  return WorldSimulator(world, network, options).run();
}

}  // namespace arlab
