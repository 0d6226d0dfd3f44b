// The arlab command: a registry of subcommands. Every error ends as one line on stderr
// (rank 0 only under a launcher) and an exit status: 2 for bad input, 1 for failures.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "algorithms/errors.h"
#include "harness/bench.h"
#include "harness/cli.h"
#include "harness/errors.h"
#include "harness/explain.h"
#include "harness/fit_command.h"
#include "harness/launched_errors.h"
#include "harness/model.h"
#include "harness/plot_command.h"
#include "harness/sim_command.h"
#include "harness/tune.h"
#include "harness/watchdog.h"
#include "transports/bootstrap.h"
#include "transports/transport.h"

namespace arlab {
namespace {

int bench_main(int argc, char** argv) {
  BenchOptions options;
  const std::string parse_error = usage_error_of([&] { options = parse_bench_options(argc, argv); });
  auto bootstrap = make_mpi_bootstrap(&argc, &argv);
  if (agree_on_usage_errors(*bootstrap, "bench", parse_error)) return 2;
  Watchdog& watchdog = Watchdog::instance();
  watchdog.set_timeout(options.timeout_s);
  watchdog.arm("rank " + std::to_string(bootstrap->rank()) + " on " + bootstrap->hostname());
  // Once this rank is done (its status decided), the launcher may end the others: quietly.
  struct Disarm {
    Watchdog& w;
    ~Disarm() { w.disarm(); }
  } disarm_at_exit{watchdog};
  try {
    return run_bench(options, *bootstrap);
  } catch (const StallError& e) {
    // Waiting longer will not help: say what this rank waited for, then end the whole job.
    watchdog.set_timeout(0);
    std::fprintf(stderr, "arlab: %s; ending the job\n", watchdog.describe(e.what()).c_str());
    bootstrap->abort(kStallExitStatus);
  } catch (const UsageError& e) {
    // The same on every rank: the first reports it while MPI still holds every rank (once a
    // rank has finalised and exited non-zero, the launcher may end the others), then all exit 2.
    if (bootstrap->rank() == 0) std::fprintf(stderr, "arlab bench: %s\n", e.what());
    return 2;
  } catch (const UnsupportedProblem& e) {
    if (bootstrap->rank() == 0) std::fprintf(stderr, "arlab bench: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    // A failure on one rank would leave the others waiting: report it and end the job.
    std::fprintf(stderr, "arlab bench: rank %d on %s: %s\n", bootstrap->rank(), bootstrap->hostname().c_str(), e.what());
    bootstrap->abort(1);
  }
  return 1;
}

struct Subcommand {
  std::string_view name;
  std::string_view summary;
  int (*main)(int argc, char** argv);
};

const Subcommand kSubcommands[] = {
    {"bench", "time all-reduce algorithms under mpirun / srun (nccl-tests flags)", bench_main},
    {"explain", "print an algorithm's schedule and check it symbolically", run_explain},
    {"tune", "measure alpha, beta and gamma for -a auto (under mpirun, >= 2 ranks)", run_tune},
    {"sim", "simulate an algorithm's schedules at any N on a modelled fabric and topology", run_sim},
    {"fit", "fit alpha, beta, gamma per algorithm and transport to arlab bench results", run_fit},
    {"plot", "busbw, latency-term and measured-versus-simulated plots of results (-o DIR)", run_plot},
    {"model", "compute vs all-reduce time per training iteration, per algorithm and fabric (--seed-example)", run_model},
};

// Under a launcher every rank runs the same parser; only the first prints the error.
bool is_first_rank() { return launcher_rank() <= 0; }

void usage() {
  std::printf("usage: arlab <command> [options]   (arlab <command> --help for its options)\n\ncommands:\n");
  for (const auto& s : kSubcommands)
    std::printf("  %-10s %s\n", std::string(s.name).c_str(), std::string(s.summary).c_str());
}

int fail(const std::string& command, const std::string& message, int status) {
  if (is_first_rank()) std::fprintf(stderr, "arlab %s: %s\n", command.c_str(), message.c_str());
  return status;
}

}  // namespace
}  // namespace arlab

int main(int argc, char** argv) {
  using namespace arlab;
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    usage();
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  for (const auto& s : kSubcommands) {
    if (s.name != command) continue;
    try {
      return s.main(argc - 1, argv + 1);
    } catch (const HelpShown&) {
      return 0;
    } catch (const UsageError& e) {
      return fail(command, e.what(), 2);
    } catch (const UnsupportedProblem& e) {
      return fail(command, e.what(), 2);
    } catch (const TransportUnavailable& e) {
      return fail(command, e.what(), 2);
    } catch (const std::exception& e) {
      return fail(command, e.what(), 1);
    }
  }
  return fail(command, "unknown command (commands: bench, explain, tune, model; see arlab --help)", 2);
}
