// Lockstep rounds: when every send waits for its matching receive (NCCL's ncclSend /
// ncclRecv, or any rendezvous protocol), a rank cannot simply post steps as they become
// ready. Instead every rank issues its steps round by round, one group of messages per
// round, and a message's send and receive must sit in the same round on both ranks.
//
// lockstep_rounds assigns each step of each rank the smallest round such that
//   - a step's round is greater than the rounds of the steps it waits for, and
//   - the step holding the k-th send from a to b and the step holding b's k-th receive
//     from a have the same round.
// A world with no such assignment would deadlock under rendezvous; it is reported as a
// ScheduleError naming a step on the cycle.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/schedule.h"

namespace arlab {

// world[r] is rank r's schedule. Result: rounds[r][step].
std::vector<std::vector<uint32_t>> lockstep_rounds(std::span<const RankSchedule> world);

// Every rank's schedule for a problem (p.rank is ignored), by the named generator.
std::vector<RankSchedule> generate_world(const Problem& p, RankSchedule (*generate)(const Problem&));

}  // namespace arlab
