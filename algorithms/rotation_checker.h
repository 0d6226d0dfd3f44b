// The rotation checker: proves a rotation template (rotation_template.h) for all N ranks at
// once, with the symbolic checker's guarantees (checker.h) for every rank's expansion: each
// output element holds every rank's contribution exactly once, every send is matched by a
// receive of the same size in order, nothing reads unwritten or unordered data, no races, no
// deadlock. The work is one rank's: a 4096-rank ring in milliseconds, where checking the
// 4096 expanded schedules takes 47 s and gigabytes.
//
// Why playing one rank is enough. Every rank runs the same template, so the world looks the
// same from every rank. Play it in lock-step: all ranks start template step x together. Then
// rank r's state is rank 0's with every block and every contribution shifted by r, and the
// message rank 0 receives from distance q is the one rank q sends to distance -q, which is
// rank 0's own send seen from q ranks away (its blocks and contributions shifted by q). So
// the checker plays rank 0 alone and names ranks relative to it. Whether a step ever runs does
// not depend on the order of play (it runs once its dependencies and messages are there), so
// a deadlock anywhere shows in lock-step too.
//
// Sizes. A unit's size differs between ranks (blocks of uneven count), so each check must hold
// for all sizes at once: a send and its receive name the same unit (seen from either end), the
// slices of one reduce or copy name the same unit, and a scratch slot is read as the unit that
// last wrote it. The checker demands exactly that (stronger than equal sizes on every rank).
//
// From the template to its expansions. expand() drops zero-element operations and empty steps.
// A dropped send and its receive name the same unit, so both ends drop them and the remaining
// messages still pair in order; an operation of no elements touches nothing; a dropped step
// passes its dependencies on, so the order between the remaining steps is unchanged, and
// removing operations and waits cannot create a deadlock. So the proof holds for every rank's
// schedule. Throws ScheduleError naming the template step and operation at the first violation.
#pragma once

#include "algorithms/checker.h"
#include "algorithms/rotation_template.h"

namespace arlab {

// Stats as the general checker would count them over all N expansions, with two bounds:
// `steps` counts every template step on every rank (expansions drop the empty ones), and
// `rounds` counts zero-element messages as latencies too (equal when every unit has elements).
CheckStats check_rotation_template(const RotationTemplate& t, const CheckOptions& options = {});

}  // namespace arlab
