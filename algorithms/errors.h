// Errors raised by the algorithm layer. Two kinds, kept apart on purpose:
// an UnsupportedProblem is the user's to fix (exit status 2), a ScheduleError is a bug
// in a generator or a broken schedule (the checker's verdict).
#pragma once

#include <stdexcept>
#include <string>

namespace arlab {

// The user asked for something this algorithm, datatype or operation cannot do.
class UnsupportedProblem : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A schedule is wrong: unmatched message, race, missing or duplicated contribution.
class ScheduleError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

}  // namespace arlab
