#include "algorithms/schedule.h"

#include <algorithm>
#include <sstream>
#include <unordered_map>

#include "algorithms/errors.h"

namespace arlab {

Op Op::send(int peer, Slice src) {
  return {OpKind::Send, BufferId::Input, src.buffer, BufferId::Input, peer, src.count, 0, src.offset, 0};
}
Op Op::recv(int peer, Slice dst) {
  return {OpKind::Recv, dst.buffer, BufferId::Input, BufferId::Input, peer, dst.count, dst.offset, 0, 0};
}
Op Op::write(int peer, Slice src, Slice remote_dst) {
  if (src.count != remote_dst.count)
    throw ScheduleError("Op::write: source and destination counts differ (" + to_string(src) +
                        " -> " + to_string(remote_dst) + ")");
  return {OpKind::Write, remote_dst.buffer, src.buffer, BufferId::Input, peer, src.count,
          remote_dst.offset, src.offset, 0};
}
Op Op::wait_signal(int peer, Slice dst) {
  return {OpKind::WaitSignal, dst.buffer, BufferId::Input, BufferId::Input, peer, dst.count, dst.offset, 0, 0};
}
Op Op::reduce(Slice dst, Slice a, Slice b) {
  if (a.count != dst.count || b.count != dst.count)
    throw ScheduleError("Op::reduce: operand counts differ (" + to_string(dst) + " = " +
                        to_string(a) + " op " + to_string(b) + ")");
  return {OpKind::Reduce, dst.buffer, a.buffer, b.buffer, -1, dst.count, dst.offset, a.offset, b.offset};
}
Op Op::copy(Slice dst, Slice src) {
  if (src.count != dst.count)
    throw ScheduleError("Op::copy: counts differ (" + to_string(dst) + " = " + to_string(src) + ")");
  return {OpKind::Copy, dst.buffer, src.buffer, BufferId::Input, -1, dst.count, dst.offset, src.offset, 0};
}

bool is_incoming(OpKind kind) { return kind == OpKind::Recv || kind == OpKind::WaitSignal; }
bool is_outgoing(OpKind kind) { return kind == OpKind::Send || kind == OpKind::Write; }

uint64_t Problem::chunk_elements() const {
  if (chunk_bytes == 0) return UINT64_MAX;
  return std::max<uint64_t>(1, chunk_bytes / std::max<uint32_t>(1, element_size));
}

uint32_t RankSchedule::add_step(std::span<const Op> ops, std::span<const uint32_t> deps) {
  const auto index = static_cast<uint32_t>(num_steps());
  for (uint32_t d : deps)
    if (d >= index)
      throw ScheduleError("RankSchedule::add_step: step " + std::to_string(index) +
                          " depends on step " + std::to_string(d) + ", which is not earlier");
  ops_.insert(ops_.end(), ops.begin(), ops.end());
  deps_.insert(deps_.end(), deps.begin(), deps.end());
  step_op_begin_.push_back(static_cast<uint32_t>(ops_.size()));
  step_dep_begin_.push_back(static_cast<uint32_t>(deps_.size()));
  return index;
}

std::vector<uint32_t> message_sequence(const RankSchedule& s) {
  // Counters per peer, found by a linear scan: a rank talks to a handful of peers (2 in a ring,
  // lg N in the trees), so this beats hashing; past 32 peers a hash map takes over.
  struct PeerCounters {
    int peer;
    uint32_t sent, received;
  };
  std::vector<PeerCounters> counters;
  std::unordered_map<int, size_t> index;
  const auto counters_of = [&](int peer) -> PeerCounters& {
    if (counters.size() <= 32) {
      for (PeerCounters& c : counters)
        if (c.peer == peer) return c;
    } else if (auto it = index.find(peer); it != index.end()) {
      return counters[it->second];
    }
    counters.push_back({peer, 0, 0});
    if (counters.size() > 32) {
      if (index.empty())
        for (size_t k = 0; k < counters.size(); ++k) index[counters[k].peer] = k;
      index[peer] = counters.size() - 1;
    }
    return counters.back();
  };
  const auto ops = s.all_ops();
  std::vector<uint32_t> seq(ops.size(), 0);
  for (size_t i = 0; i < ops.size(); ++i) {
    if (is_outgoing(ops[i].kind)) seq[i] = counters_of(ops[i].peer).sent++;
    if (is_incoming(ops[i].kind)) seq[i] = counters_of(ops[i].peer).received++;
  }
  return seq;
}

StepDependents step_dependents(const RankSchedule& s) {
  const size_t steps = s.num_steps();
  StepDependents d;
  d.begin.assign(steps + 1, 0);
  d.waits_for.resize(steps);
  for (size_t x = 0; x < steps; ++x) {
    d.waits_for[x] = static_cast<uint32_t>(s.deps(x).size());
    for (uint32_t dep : s.deps(x)) ++d.begin[dep + 1];
  }
  for (size_t x = 0; x < steps; ++x) d.begin[x + 1] += d.begin[x];
  d.list.resize(d.begin[steps]);
  std::vector<uint32_t> fill(d.begin.begin(), d.begin.end() - 1);
  for (size_t x = 0; x < steps; ++x)
    for (uint32_t dep : s.deps(x)) d.list[fill[dep]++] = static_cast<uint32_t>(x);
  return d;
}

std::string to_string(BufferId buffer) {
  switch (buffer) {
    case BufferId::Input: return "in";
    case BufferId::Output: return "out";
    case BufferId::Scratch: return "tmp";
  }
  return "?";
}

std::string to_string(OpKind kind) {
  switch (kind) {
    case OpKind::Send: return "send";
    case OpKind::Recv: return "recv";
    case OpKind::Write: return "write";
    case OpKind::WaitSignal: return "wait";
    case OpKind::Reduce: return "reduce";
    case OpKind::Copy: return "copy";
  }
  return "?";
}

std::string to_string(const Slice& s) {
  std::ostringstream out;
  out << to_string(s.buffer) << "[" << s.offset << ":" << s.offset + s.count << "]";
  return out.str();
}

std::string to_string(const Op& op) {
  std::string peer = "r";  // appended, not "r" + ...: GCC 12 warns falsely on that (-Wrestrict, PR105329)
  peer += std::to_string(op.peer);
  switch (op.kind) {
    case OpKind::Send: return "send " + to_string(op.a()) + " -> " + peer;
    case OpKind::Recv: return "recv " + to_string(op.dst()) + " <- " + peer;
    case OpKind::Write: return "write " + to_string(op.a()) + " -> " + peer + ":" + to_string(op.dst()) + " +signal";
    case OpKind::WaitSignal: return "wait " + to_string(op.dst()) + " <- " + peer + " (signal)";
    case OpKind::Reduce: return "reduce " + to_string(op.dst()) + " = " + to_string(op.a()) + " op " + to_string(op.b());
    case OpKind::Copy: return "copy " + to_string(op.dst()) + " = " + to_string(op.a());
  }
  return "?";
}

}  // namespace arlab
