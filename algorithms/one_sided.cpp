#include "algorithms/one_sided.h"

#include <map>
#include <string>

#include "algorithms/errors.h"

namespace arlab {

void lower_to_one_sided(std::vector<RankSchedule>& world, const std::function<bool(int, int)>& lower) {
  const auto lowered = [&](int from, int to) { return !lower || lower(from, to); };
  const int n = static_cast<int>(world.size());
  // receives[b][a]: indices (into b's ops) of b's receives from a, in op order.
  std::vector<std::map<int, std::vector<size_t>>> receives(n);
  for (int b = 0; b < n; ++b) {
    const auto ops = world[b].all_ops();
    for (size_t i = 0; i < ops.size(); ++i)
      if (ops[i].kind == OpKind::Recv && lowered(ops[i].peer, b)) receives[b][ops[i].peer].push_back(i);
  }
  // Each send takes the destination of its matching receive; then receives become waits.
  for (int a = 0; a < n; ++a) {
    std::map<int, size_t> sent;  // sends so far to each peer
    for (Op& op : world[a].mutable_ops()) {
      if (op.kind != OpKind::Send || !lowered(a, op.peer)) continue;
      const int b = op.peer;
      const size_t k = sent[b]++;
      const auto it = b >= 0 && b < n ? receives[b].find(a) : receives[a].end();
      if (b < 0 || b >= n || it == receives[b].end() || k >= it->second.size())
        throw ScheduleError("lower_to_one_sided: rank " + std::to_string(a) + "'s send " + std::to_string(k) +
                            " to rank " + std::to_string(b) + " has no matching receive");
      const Op& recv = world[b].all_ops()[it->second[k]];
      if (recv.count != op.count)
        throw ScheduleError("lower_to_one_sided: rank " + std::to_string(a) + " sends " + std::to_string(op.count) +
                            " elements to rank " + std::to_string(b) + ", which receives " + std::to_string(recv.count));
      op = Op::write(b, op.a(), recv.dst());
    }
  }
  for (int b = 0; b < n; ++b)
    for (Op& op : world[b].mutable_ops())
      if (op.kind == OpKind::Recv && lowered(op.peer, b)) op = Op::wait_signal(op.peer, op.dst());
}

}  // namespace arlab
