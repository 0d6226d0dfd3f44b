#include "harness/watchdog.h"

#include <sched.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "harness/errors.h"

namespace arlab {
namespace {

// What the signal handler and the thread print: a prefix ("rank 2 on n1") and the current
// activity, in fixed buffers (a handler may not allocate). The activity is written into the
// buffer not in use, then published by switching the index.
struct Lines {
  char identity[256] = "arlab";
  char activity[2][512] = {"set-up (device, transports, buffers)", "set-up (device, transports, buffers)"};
  std::atomic<int> current{0};
};
Lines g_lines;

void append(char* out, size_t& used, size_t capacity, const char* text) {
  const size_t n = std::min(std::strlen(text), capacity - 1 - used);
  std::memcpy(out + used, text, n);
  used += n;
  out[used] = '\0';
}

extern "C" void on_terminate_signal(int sig) {
  // Only async-signal-safe calls: the line is assembled with memcpy and written with write(2).
  char line[1024];
  size_t used = 0;
  append(line, used, sizeof line, "arlab: ");
  append(line, used, sizeof line, g_lines.identity);
  append(line, used, sizeof line,
         sig == SIGINT    ? ": interrupted (SIGINT) during "
         : sig == SIGABRT ? ": aborted (SIGABRT, raised inside a library; its message is above) during "
                          : ": terminated (SIGTERM) during ");
  append(line, used, sizeof line, g_lines.activity[g_lines.current.load(std::memory_order_acquire)]);
  append(line, used, sizeof line, "; results written so far are kept\n");
  ssize_t ignored = write(STDERR_FILENO, line, used);
  (void)ignored;
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

Watchdog& Watchdog::instance() {
  static Watchdog watchdog;
  return watchdog;
}

void Watchdog::arm(const std::string& identity) {
  std::snprintf(g_lines.identity, sizeof g_lines.identity, "%s", identity.c_str());
  struct sigaction action {};
  action.sa_handler = on_terminate_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  // A library that gives up (UCX on a dead peer's memory) aborts: say where this rank was.
  sigaction(SIGABRT, &action, nullptr);
  if (armed_) return;
  armed_ = true;
  std::thread([this] { watch(); }).detach();
}

void Watchdog::disarm() {
  set_timeout(0);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGABRT, SIG_DFL);
}

void Watchdog::set_activity(const std::string& activity) {
  const int next = 1 - g_lines.current.load(std::memory_order_relaxed);
  std::snprintf(g_lines.activity[next], sizeof g_lines.activity[next], "%s", activity.c_str());
  g_lines.current.store(next, std::memory_order_release);
  beat();
}

std::string Watchdog::describe(const std::string& what) const {
  return std::string(g_lines.identity) + ": " + what + " during " + g_lines.activity[g_lines.current.load()];
}

// The backstop for blocking calls outside the executors: the heartbeat must move at least
// once per timeout plus a grace period that lets an executor's own, more precise report win.
void Watchdog::watch() {
  SignalsHeld signals_go_to_the_main_thread;  // whose writes they must not interrupt
  uint64_t last_beats = beats_.load(std::memory_order_relaxed);
  auto last_change = std::chrono::steady_clock::now();
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const double timeout = this->timeout();
    const uint64_t beats = beats_.load(std::memory_order_relaxed);
    const auto now = std::chrono::steady_clock::now();
    if (beats != last_beats || timeout <= 0) {
      last_beats = beats;
      last_change = now;
      continue;
    }
    const double idle = std::chrono::duration<double>(now - last_change).count();
    const double grace = std::max(2.0, 0.1 * timeout);
    if (idle < timeout + grace) continue;
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.0f", idle);
    const std::string line = "arlab: " + describe(std::string("no progress for ") + seconds +
                                                  " s, blocked outside the executor (in a library call or a barrier)") +
                             "; ending this rank\n";
    ssize_t ignored = write(STDERR_FILENO, line.data(), line.size());
    (void)ignored;
    _exit(kStallExitStatus);
  }
}

double parse_timeout(const char* text) {
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  if (end == text || *end != '\0' || !std::isfinite(seconds) || seconds < 0)
    throw UsageError(std::string("ARLAB_TIMEOUT: '") + text + "' is not a number of seconds (0 turns the watchdog off)");
  return seconds;
}

double default_timeout_from_environment() {
  const char* text = std::getenv("ARLAB_TIMEOUT");
  return text && *text ? parse_timeout(text) : 60.0;
}

SignalsHeld::SignalsHeld() {
  sigset_t held;
  sigemptyset(&held);
  sigaddset(&held, SIGINT);
  sigaddset(&held, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &held, &previous_);
}

SignalsHeld::~SignalsHeld() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

bool IdlePoll::yield_and_expire() {
  sched_yield();
  const auto now = std::chrono::steady_clock::now();
  if (idle_since_ == std::chrono::steady_clock::time_point{}) idle_since_ = now;
  seconds_idle_ = std::chrono::duration<double>(now - idle_since_).count();
  const double timeout = Watchdog::instance().timeout();
  return timeout > 0 && seconds_idle_ > timeout;
}

void IdlePoll::throw_stall(const std::string& what) const {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.0f", seconds_idle_);
  throw StallError(std::string("no progress for ") + seconds + " s: " + what);
}

}  // namespace arlab
