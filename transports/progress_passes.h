// One progress call (a poll() of the sockets, a ucp_worker_progress) per pass of the executor
// over its requests in flight, not one per test(). The executor tests each request in flight
// once per pass; a request that has not yet seen the latest progress just reads its state, and
// one that has already seen it starts the next pass. So k requests in flight cost one progress
// call per pass, and a loop waiting on a single request still progresses on every test().
#pragma once

#include <cstdint>

namespace arlab {

class ProgressPasses {
 public:
  using Mark = uint64_t;  // kept with each request: the pass its last test() saw

  // For a request just posted: its first test() progresses.
  Mark current() const { return passes_; }

  // Whether this test() should progress first; `seen` is the request's mark, updated here.
  bool start_pass(Mark& seen) {
    const bool progress = seen == passes_;
    if (progress) ++passes_;
    seen = passes_;
    return progress;
  }

 private:
  Mark passes_ = 0;
};

}  // namespace arlab
