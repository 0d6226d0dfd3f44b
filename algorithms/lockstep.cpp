#include "algorithms/lockstep.h"

#include <map>
#include <string>

#include "algorithms/errors.h"

namespace arlab {
namespace {

// For one rank: the step of its k-th send to (receive from) each peer, k in op order.
struct MessageSteps {
  std::map<int, std::vector<uint32_t>> sends, receives;
};

MessageSteps message_steps(const RankSchedule& s) {
  MessageSteps m;
  for (uint32_t step = 0; step < s.num_steps(); ++step)
    for (const Op& op : s.ops(step)) {
      if (is_outgoing(op.kind)) m.sends[op.peer].push_back(step);
      if (is_incoming(op.kind)) m.receives[op.peer].push_back(step);
    }
  return m;
}

}  // namespace

std::vector<std::vector<uint32_t>> lockstep_rounds(std::span<const RankSchedule> world) {
  const int n = static_cast<int>(world.size());
  std::vector<MessageSteps> messages;
  std::vector<std::vector<uint32_t>> rounds(n);
  uint64_t total_steps = 0;
  for (const RankSchedule& s : world) {
    messages.push_back(message_steps(s));
    total_steps += s.num_steps();
  }
  for (int r = 0; r < n; ++r) rounds[r].assign(world[r].num_steps(), 0);

  // Raise rounds until both rules hold. Without a cycle no round exceeds the number of steps
  // in the world, so a round beyond it proves one.
  for (bool changed = true; changed;) {
    changed = false;
    // Rule 1: later than every step waited for (deps are earlier steps: one pass in order).
    for (int r = 0; r < n; ++r)
      for (uint32_t step = 0; step < world[r].num_steps(); ++step)
        for (uint32_t dep : world[r].deps(step))
          if (rounds[r][step] <= rounds[r][dep]) rounds[r][step] = rounds[r][dep] + 1, changed = true;
    // Rule 2: the k-th message from a to b is in the same round on both sides.
    for (int a = 0; a < n; ++a)
      for (const auto& [b, send_steps] : messages[a].sends) {
        const auto it = b >= 0 && b < n ? messages[b].receives.find(a) : messages[a].sends.end();
        if (b < 0 || b >= n || it == messages[b].receives.end() || it->second.size() != send_steps.size())
          throw ScheduleError("lockstep: rank " + std::to_string(a) + "'s sends to rank " + std::to_string(b) +
                              " do not match that rank's receives");
        for (size_t k = 0; k < send_steps.size(); ++k) {
          uint32_t& x = rounds[a][send_steps[k]];
          uint32_t& y = rounds[b][it->second[k]];
          if (x == y) continue;
          x = y = std::max(x, y);
          changed = true;
          if (x > total_steps)
            throw ScheduleError("lockstep: rank " + std::to_string(a) + " step " + std::to_string(send_steps[k]) +
                                " sends to rank " + std::to_string(b) +
                                " in a cycle of waits: with rendezvous sends this schedule deadlocks");
        }
      }
  }
  return rounds;
}

std::vector<RankSchedule> generate_world(const Problem& p, RankSchedule (*generate)(const Problem&)) {
  std::vector<RankSchedule> world;
  world.reserve(p.nranks);
  for (int r = 0; r < p.nranks; ++r) {
    Problem q = p;
    q.rank = r;
    world.push_back(generate(q));
  }
  return world;
}

}  // namespace arlab
