// Rank discovery and the few collective helpers the harness needs (timing maxima, error
// counts, host lists) before and around the transports. Every launcher (mpirun, srun)
// already provides MPI, so the one implementation lives in transports/mpi/.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace arlab {

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int local_rank() const = 0;  // rank among the processes on this node
  virtual int local_size() const = 0;
  virtual std::string hostname() const = 0;
  virtual std::string library_version() const = 0;

  virtual void barrier() = 0;
  // A barrier that keeps calling progress() while it waits, for transports whose peers
  // need this rank's progress to finish their own operations (UCX flush).
  virtual void barrier_progressing(const std::function<void()>& progress) = 0;
  virtual double max(double value) = 0;
  virtual uint64_t sum(uint64_t value) = 0;
  virtual void broadcast(void* data, size_t bytes, int root) = 0;  // root's bytes to every rank
  virtual std::vector<std::string> gather_strings(const std::string& mine) = 0;  // every rank gets all
  [[noreturn]] virtual void abort(int status) = 0;
};

// Initialises MPI (works outside mpirun as a single rank) and finalises it on destruction.
std::unique_ptr<Bootstrap> make_mpi_bootstrap(int* argc, char*** argv);

}  // namespace arlab
