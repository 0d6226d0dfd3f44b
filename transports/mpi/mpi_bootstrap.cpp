#include <mpi.h>
#include <unistd.h>

#include "transports/bootstrap.h"
#include "transports/mpi/mpi_check.h"
#include "transports/mpi/mpi_comm.h"

namespace arlab {
namespace {

class MpiBootstrap final : public Bootstrap {
 public:
  MpiBootstrap(int* argc, char*** argv) {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      int provided = 0;
      ARLAB_MPI_CHECK(MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided), "MPI_Init_thread");
      owns_mpi_ = true;
    }
    open(MPI_COMM_WORLD);
  }

  // On an application's communicator (the PMPI library): MPI is the application's.
  explicit MpiBootstrap(MPI_Comm comm) { open(comm); }

  ~MpiBootstrap() override {
    MPI_Comm_free(&node_);
    MPI_Comm_free(&comm_);
    if (owns_mpi_) MPI_Finalize();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  int local_size() const override { return local_size_; }

  std::string hostname() const override {
    char name[256] = {};
    gethostname(name, sizeof(name) - 1);
    return name;
  }

  std::string library_version() const override {
    char text[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(text, &length);
    std::string v(text, length);
    if (auto comma = v.find(','); comma != std::string::npos) v.resize(comma);
    return v;
  }

  void barrier() override { ARLAB_MPI_CHECK(MPI_Barrier(comm_), "MPI_Barrier"); }

  void barrier_progressing(const std::function<void()>& progress) override {
    MPI_Request request;
    ARLAB_MPI_CHECK(MPI_Ibarrier(comm_, &request), "MPI_Ibarrier");
    for (int done = 0; !done;) {
      progress();
      ARLAB_MPI_CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test(MPI_Ibarrier)");
    }
  }

  double max(double value) override {
    double out = 0;
    ARLAB_MPI_CHECK(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MAX, comm_), "MPI_Allreduce(max, double)");
    return out;
  }

  uint64_t sum(uint64_t value) override {
    uint64_t out = 0;
    ARLAB_MPI_CHECK(MPI_Allreduce(&value, &out, 1, MPI_UINT64_T, MPI_SUM, comm_), "MPI_Allreduce(sum, uint64)");
    return out;
  }

  void broadcast(void* data, size_t bytes, int root) override {
    ARLAB_MPI_CHECK(MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, root, comm_),
                    "MPI_Bcast(" + std::to_string(bytes) + " bytes from rank " + std::to_string(root) + ")");
  }

  std::vector<std::string> gather_strings(const std::string& mine) override {
    int length = static_cast<int>(mine.size());
    std::vector<int> lengths(size_), offsets(size_);
    ARLAB_MPI_CHECK(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm_), "MPI_Allgather(lengths)");
    int total = 0;
    for (int r = 0; r < size_; ++r) offsets[r] = total, total += lengths[r];
    std::string all(total, '\0');
    ARLAB_MPI_CHECK(MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, comm_),
                    "MPI_Allgatherv(strings)");
    std::vector<std::string> out;
    for (int r = 0; r < size_; ++r) out.push_back(all.substr(offsets[r], lengths[r]));
    return out;
  }

  MPI_Comm communicator() const { return comm_; }

  [[noreturn]] void abort(int status) override {
    MPI_Abort(MPI_COMM_WORLD, status);
    _exit(status);
  }

 private:
  // A private duplicate of the parent, and the ranks of it sharing this node.
  void open(MPI_Comm parent) {
    ARLAB_MPI_CHECK(MPI_Comm_dup(parent, &comm_), "MPI_Comm_dup");
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    ARLAB_MPI_CHECK(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node_),
                    "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)");
    MPI_Comm_rank(node_, &local_rank_);
    MPI_Comm_size(node_, &local_size_);
  }

  bool owns_mpi_ = false;
  MPI_Comm comm_ = MPI_COMM_NULL, node_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
};

}  // namespace

std::unique_ptr<Bootstrap> make_mpi_bootstrap(int* argc, char*** argv) {
  return std::make_unique<MpiBootstrap>(argc, argv);
}

std::unique_ptr<Bootstrap> make_mpi_bootstrap_on(MPI_Comm comm) { return std::make_unique<MpiBootstrap>(comm); }

MPI_Comm bootstrap_communicator(const Bootstrap* bootstrap) {
  const auto* mpi = dynamic_cast<const MpiBootstrap*>(bootstrap);
  return mpi ? mpi->communicator() : MPI_COMM_WORLD;
}

}  // namespace arlab
