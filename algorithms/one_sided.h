// Lowering two-sided messages to one-sided writes. On a one-sided transport (shm, ucx-rma,
// ibverbs) a sender puts its bytes straight into the receiver's buffer and signals; it must
// therefore know where the receiver wants them. Every rank can generate every rank's
// schedule, so the k-th send from a to b becomes write(b, src -> the slice that b's k-th
// receive from a names) and that receive becomes wait_signal(a, slice). The checker proves
// the lowered world exactly as it proves the two-sided one.
#pragma once

#include <functional>
#include <vector>

#include "algorithms/schedule.h"

namespace arlab {

// Rewrites world in place: the messages from a to b for which lower(a, b) holds (all of
// them by default). Throws ScheduleError when sends and receives do not pair up.
void lower_to_one_sided(std::vector<RankSchedule>& world, const std::function<bool(int, int)>& lower = nullptr);

}  // namespace arlab
