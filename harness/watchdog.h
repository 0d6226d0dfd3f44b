// No silent hangs. Two guards share one timeout (--timeout, ARLAB_TIMEOUT, default 60 s):
//  - the executors time their own idle polling: when no request completes for the timeout,
//    they throw StallError naming the step, the operation and the peer they wait for;
//  - a watchdog thread covers every other place a rank can block (a library's own
//    all-reduce, a barrier, the bootstrap): when the run's heartbeat has not moved for the
//    timeout plus a grace period, it prints one line with the rank, host and what the run
//    was doing, and ends the process with status 3 (the launcher then ends the job).
// SIGINT / SIGTERM print the same kind of line and end the process at once; results already
// written stay valid (reporters write a temporary file and rename it, signals held meanwhile).
#pragma once

#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace arlab {

// Exit status of a rank that gave up waiting.
inline constexpr int kStallExitStatus = 3;

class StallError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Watchdog {
 public:
  static Watchdog& instance();

  // 0 disables both guards. Set before any collective runs.
  void set_timeout(double seconds) { timeout_s_.store(seconds, std::memory_order_relaxed); }
  double timeout() const { return timeout_s_.load(std::memory_order_relaxed); }

  // Starts the thread and the signal handlers; `identity` begins every line ("rank 2 on n1").
  void arm(const std::string& identity);
  // The run is over (finalising): signals take their default action again, silently, and the
  // thread stops judging.
  void disarm();
  // What the run is doing now ("ring on mpi, 1M, timing"): set between collectives, not in them.
  void set_activity(const std::string& activity);
  // Progress: the executors call this when a request completes, the harness after each call.
  void beat() { beats_.fetch_add(1, std::memory_order_relaxed); }

  // The line a stall or signal prints, without the "arlab: " prefix.
  std::string describe(const std::string& what) const;

 private:
  Watchdog() = default;
  void watch();

  std::atomic<double> timeout_s_{60.0};
  std::atomic<uint64_t> beats_{0};
  bool armed_ = false;
};

// ARLAB_TIMEOUT's value in seconds; UsageError when it is not a number >= 0.
double parse_timeout(const char* text);
// --timeout's default: ARLAB_TIMEOUT, else 60 s.
double default_timeout_from_environment();

// Blocks SIGINT / SIGTERM while alive, so a file being replaced is never left half-done.
class SignalsHeld {
 public:
  SignalsHeld();
  ~SignalsHeld();
  SignalsHeld(const SignalsHeld&) = delete;
  SignalsHeld& operator=(const SignalsHeld&) = delete;

 private:
  sigset_t previous_;
};

// The executors' polling loop: yields the core after a run of fruitless polls, and throws
// StallError ("no progress for 60 s: " + describe()) once nothing has completed for the
// watchdog's timeout. The clock is read once per kSpinsPerCheck polls.
class IdlePoll {
 public:
  void progressed() {
    spins_ = 0;
    idle_since_ = {};
    spinning_since_ = {};
    Watchdog::instance().beat();
  }
  template <class Describe>
  void idle(Describe&& describe) {
    if (++spins_ < kSpinsPerCheck) return;
    spins_ = 0;
    if (keep_spinning()) return;
    if (yield_and_expire()) throw_stall(describe());
  }

 private:
  // Ranks that have a core each spin for kSpinBeforeYield before they yield (a yield is a
  // system call, a microsecond on a VM); ranks that share cores yield after kSpinsPerCheck
  // polls, so the peer they wait for gets the core. set_cores_shared: once per process.
 public:
  static void set_cores_shared(bool shared) { cores_shared_ = shared; }
  static bool cores_shared() { return cores_shared_; }

 private:
  static constexpr int kSpinsPerCheck = 64;
  static constexpr std::chrono::microseconds kSpinBeforeYield{20};
  static inline bool cores_shared_ = true;
  bool keep_spinning() {
    if (cores_shared_) return false;
    const auto now = std::chrono::steady_clock::now();
    if (spinning_since_ == std::chrono::steady_clock::time_point{}) spinning_since_ = now;
    return now - spinning_since_ < kSpinBeforeYield;
  }
  std::chrono::steady_clock::time_point spinning_since_{};
  bool yield_and_expire();  // yields; true once idle for longer than the watchdog's timeout
  [[noreturn]] void throw_stall(const std::string& what) const;

  int spins_ = 0;
  std::chrono::steady_clock::time_point idle_since_{};
  double seconds_idle_ = 0;
};

}  // namespace arlab
