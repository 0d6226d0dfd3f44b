// A command-line mistake: printed as one line naming the flag and the accepted values,
// exit status 2.
#pragma once

#include <stdexcept>

namespace arlab {

class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace arlab
