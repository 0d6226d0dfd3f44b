// libarlab_mpi.so: PMPI interposition. With LD_PRELOAD=libarlab_mpi.so, the application's
// MPI_Allreduce runs arlab's algorithm (ARLAB_ALGO) on arlab's transport (ARLAB_TRANSPORT);
// whatever arlab cannot serve goes to PMPI_Allreduce unchanged, so results never change.
// MPI_Iallreduce always goes to the library (counted as such). MPI_Init reads and checks the
// settings on every rank; MPI_Finalize prints a one-line summary on rank 0 of MPI_COMM_WORLD.
//
// arlab itself calls MPI (its bootstrap's MPI_Allreduce, the transport's MPI_Isend): while
// arlab runs, a thread-local guard sends its own MPI_Allreduce calls straight to the library.
#include <mpi.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "algorithms/datatype.h"
#include "harness/pmpi/communicator_state.h"
#include "harness/pmpi/interpose_config.h"
#include "harness/pmpi/interpose_types.h"
#include "harness/watchdog.h"

namespace arlab {
namespace {

thread_local int t_inside_arlab = 0;  // > 0 while arlab's own code runs on this thread

struct InsideArlab {
  InsideArlab() { ++t_inside_arlab; }
  ~InsideArlab() { --t_inside_arlab; }
};

struct Interposer {
  std::once_flag configured;
  InterposeConfig config;
  std::mutex mutex;  // guards states and keyval creation
  int keyval = MPI_KEYVAL_INVALID;
  // Every live state by creation number: MPI_Finalize frees them newest first, the same order
  // on every rank (creation is collective, so ranks sharing two communicators made them in
  // the same order).
  std::map<uint64_t, std::pair<MPI_Comm, CommunicatorState*>> states;
  uint64_t created = 0;
  std::atomic<uint64_t> served{0};
  std::array<std::atomic<uint64_t>, kPassReasons> passed{};
  std::array<std::atomic<bool>, kPassReasons> reported{};
};

Interposer& interposer() {
  static Interposer* instance = new Interposer;  // never destroyed: atexit order is the application's
  return *instance;
}

int world_rank() {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

[[noreturn]] void stop(const std::string& message, bool mine) {
  // The lowest rank with something to say says it; every rank exits with status 2.
  int first = 0, candidate = mine ? world_rank() : INT32_MAX;
  PMPI_Allreduce(&candidate, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (mine && first == world_rank()) std::fprintf(stderr, "arlab: %s\n", message.c_str());
  PMPI_Finalize();
  std::exit(2);
}

// Reads the settings on every rank and compares them: a bad value, or ranks that would run
// different collectives (a hang or a wrong answer), stops every rank with one line.
void configure() {
  Interposer& ip = interposer();
  std::string error;
  try {
    ip.config = read_interpose_config([](const char* name) { return std::getenv(name); });
  } catch (const std::exception& e) {
    error = e.what();
  }
  Watchdog::instance().set_timeout(ip.config.timeout_s);  // the executors' stall reports
  int any_error = 0, has_error = error.empty() ? 0 : 1;
  PMPI_Allreduce(&has_error, &any_error, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any_error) stop(error, has_error);

  uint64_t digest = ip.config.digest();
  char first_settings[256] = {};
  std::snprintf(first_settings, sizeof first_settings, "%s", ip.config.describe().c_str());
  PMPI_Bcast(&digest, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  PMPI_Bcast(first_settings, sizeof first_settings, MPI_CHAR, 0, MPI_COMM_WORLD);
  const bool differs = digest != ip.config.digest();
  int any_differs = 0, mine = differs ? 1 : 0;
  PMPI_Allreduce(&mine, &any_differs, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any_differs)
    stop("ARLAB_* settings differ between ranks: rank 0 runs " + std::string(first_settings) + ", rank " +
             std::to_string(world_rank()) + " runs " + ip.config.describe(),
         differs);
}

void report_once(PassReason reason, const std::string& detail, int comm_rank) {
  Interposer& ip = interposer();
  if (!ip.config.verbose || comm_rank != 0) return;
  if (ip.reported[static_cast<size_t>(reason)].exchange(true)) return;
  std::fprintf(stderr, "arlab: MPI_Allreduce goes to the MPI library: %s%s\n", std::string(describe(reason)).c_str(),
               detail.empty() ? "" : (" (" + detail + ")").c_str());
}

// Counts (and, verbose, reports) a call that goes to the MPI library; returns false (not served).
bool pass(PassReason reason, const std::string& detail, MPI_Comm comm) {
  interposer().passed[static_cast<size_t>(reason)]++;
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  report_once(reason, detail, rank);
  return false;
}

int delete_state(MPI_Comm, int, void* attribute, void*) {
  InsideArlab guard;
  auto* state = static_cast<CommunicatorState*>(attribute);
  {
    std::lock_guard lock(interposer().mutex);
    std::erase_if(interposer().states, [&](const auto& entry) { return entry.second.second == state; });
  }
  delete state;  // collective over comm, as MPI_Comm_free is
  return MPI_SUCCESS;
}

// The communicator's state, created (collectively) on its first served call.
CommunicatorState& state_of(MPI_Comm comm) {
  Interposer& ip = interposer();
  {
    std::lock_guard lock(ip.mutex);
    if (ip.keyval == MPI_KEYVAL_INVALID) PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &ip.keyval, nullptr);
  }
  void* attribute = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, ip.keyval, &attribute, &found);
  if (found) return *static_cast<CommunicatorState*>(attribute);
  auto* state = new CommunicatorState(comm, ip.config);
  PMPI_Comm_set_attr(comm, ip.keyval, state);
  std::lock_guard lock(ip.mutex);
  ip.states[ip.created++] = {comm, state};
  return *state;
}

// Runs the call on arlab when it can (true); false when it must go to the MPI library.
bool serve(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  Interposer& ip = interposer();
  int is_inter = 0;
  PMPI_Comm_test_inter(comm, &is_inter);
  if (is_inter) return pass(PassReason::InterCommunicator, "", comm);
  const Translated t = translate(datatype, op);
  if (!t.translation) return pass(t.refusal.reason, t.refusal.detail, comm);
  const uint64_t bytes = static_cast<uint64_t>(count) * info(t.translation->type).size;
  if (bytes < ip.config.min_bytes) return pass(PassReason::BelowMinBytes, "", comm);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (is_gpu_pointer(recvbuf) || (!in_place && is_gpu_pointer(sendbuf))) return pass(PassReason::GpuBuffer, "", comm);

  try {
    CommunicatorState& state = state_of(comm);
    if (!state.unavailable().empty()) return pass(PassReason::TransportUnavailable, state.unavailable(), comm);
    state.allreduce(in_place ? recvbuf : sendbuf, recvbuf, static_cast<uint64_t>(count), t.translation->type,
                    t.translation->op);
  } catch (const std::exception& e) {
    // The other ranks are inside the same collective (or the state's collective set-up): the
    // job cannot continue.
    std::fprintf(stderr, "arlab: rank %d: MPI_Allreduce(count=%d, %s) failed: %s\n", world_rank(), count,
                 ip.config.describe().c_str(), e.what());
    PMPI_Abort(comm, 1);
  }
  ip.served++;
  return true;
}

std::string summary(const uint64_t* totals, int ranks) {
  const InterposeConfig& c = interposer().config;
  uint64_t passed = 0;
  std::string reasons;
  for (size_t r = 0; r < kPassReasons; ++r) {
    passed += totals[1 + r];
    if (totals[1 + r]) reasons += (reasons.empty() ? "" : ", ") + std::string(describe(static_cast<PassReason>(r))) + " " + std::to_string(totals[1 + r]);
  }
  std::string s = "arlab: " + std::to_string(ranks) + " ranks made " + std::to_string(totals[0] + passed) +
                  " MPI_Allreduce calls: " + std::to_string(totals[0]) + " served by arlab (" + c.describe() + "), " +
                  std::to_string(passed) + " passed to the MPI library";
  return reasons.empty() ? s : s + " (" + reasons + ")";
}

}  // namespace
}  // namespace arlab

using namespace arlab;

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  const int code = PMPI_Init(argc, argv);
  if (code == MPI_SUCCESS) std::call_once(interposer().configured, configure);
  return code;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int code = PMPI_Init_thread(argc, argv, required, provided);
  if (code == MPI_SUCCESS) std::call_once(interposer().configured, configure);
  return code;
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  int finalized = 0;
  PMPI_Finalized(&finalized);
  if (t_inside_arlab > 0 || finalized || comm == MPI_COMM_NULL || count < 0)
    return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
  InsideArlab guard;
  std::call_once(interposer().configured, configure);  // MPI initialised without our MPI_Init
  if (serve(sendbuf, recvbuf, count, datatype, op, comm)) return MPI_SUCCESS;
  return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request* request) {
  if (t_inside_arlab == 0 && comm != MPI_COMM_NULL) {
    InsideArlab guard;
    std::call_once(interposer().configured, configure);
    pass(PassReason::NonBlocking, "", comm);
  }
  return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
}

int MPI_Finalize() {
  {
    InsideArlab guard;
    Interposer& ip = interposer();
    // States still alive (MPI_COMM_WORLD's, communicators never freed) go first, collectively.
    for (;;) {
      std::pair<MPI_Comm, CommunicatorState*> newest;
      {
        std::lock_guard lock(ip.mutex);
        if (ip.states.empty()) break;
        newest = std::prev(ip.states.end())->second;
      }
      if (PMPI_Comm_delete_attr(newest.first, ip.keyval) != MPI_SUCCESS) delete_state(newest.first, ip.keyval, newest.second, nullptr);
    }
    if (ip.keyval != MPI_KEYVAL_INVALID) PMPI_Comm_free_keyval(&ip.keyval);
    uint64_t mine[1 + kPassReasons], totals[1 + kPassReasons] = {};
    mine[0] = ip.served;
    for (size_t r = 0; r < kPassReasons; ++r) mine[1 + r] = ip.passed[r];
    PMPI_Reduce(mine, totals, 1 + kPassReasons, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    int ranks = 1;
    PMPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (world_rank() == 0) std::fprintf(stderr, "%s\n", summary(totals, ranks).c_str());
  }
  return PMPI_Finalize();
}

// For test programs (dlsym): the calls this process's arlab served and passed on, and the
// communicators it holds state for.
uint64_t arlab_mpi_calls_served() { return interposer().served; }
uint64_t arlab_mpi_live_communicators() {
  std::lock_guard lock(interposer().mutex);
  return interposer().states.size();
}
uint64_t arlab_mpi_calls_passed() {
  uint64_t total = 0;
  for (const auto& n : interposer().passed) total += n;
  return total;
}

}  // extern "C"
