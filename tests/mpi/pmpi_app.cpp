// An ordinary MPI application for the PMPI library's tests (it links only MPI). It calls
// MPI_Allreduce for every datatype x operation the library serves, in place and not, on
// MPI_COMM_WORLD, a duplicate and a split, at counts 0, 1, 7 and 65537, and compares each
// result bit for bit with PMPI_Allreduce (the library's own, which the preload does not touch)
// on the same inputs. Inputs are small integers, so float sums and products are exact in
// any order and floats compare bit for bit too.
//   --expect-served   libarlab_mpi.so must be loaded and must have served every call
//   --expect-library  it must not be loaded (the run without the preload)
//   --digest FILE     rank 0 writes a hash of its results per case (compared between runs)
//   --fallbacks       instead, calls arlab must pass to the library: a user-defined operation,
//                     a derived datatype, MPI_MINLOC, MPI_SHORT and MPI_Iallreduce
// Exits non-zero on any mismatch, printing the case.
#include <dlfcn.h>
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct TypeCase {
  MPI_Datatype type;
  const char* name;
  bool is_signed;
};

struct OpCase {
  MPI_Op op;
  const char* name;
};

int g_failures = 0;

// Element i of rank r: 1..5 (unsigned) or -2..2 (signed), written at the type's width.
void fill(const TypeCase& t, std::vector<char>& buffer, int count, int rank) {
  int size = 0;
  MPI_Type_size(t.type, &size);
  buffer.assign(static_cast<size_t>(count) * size, 0);
  for (int i = 0; i < count; ++i) {
    const long v = (static_cast<long>(i) * 7 + rank * 3) % 5 + (t.is_signed ? -2 : 1);
    char* p = buffer.data() + static_cast<size_t>(i) * size;
    if (t.type == MPI_FLOAT) { const float f = static_cast<float>(v); std::memcpy(p, &f, 4); }
    else if (t.type == MPI_DOUBLE) { const double d = static_cast<double>(v); std::memcpy(p, &d, 8); }
    else std::memcpy(p, &v, size);  // little-endian: the low bytes of v
  }
}

uint64_t fnv(const std::vector<char>& bytes, uint64_t h) {
  for (char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

void check(bool ok, const std::string& what) {
  if (ok) return;
  ++g_failures;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "pmpi_app: rank %d: FAIL %s\n", rank, what.c_str());
}

uint64_t counter(const char* symbol) {
  auto fn = reinterpret_cast<uint64_t (*)()>(dlsym(RTLD_DEFAULT, symbol));
  return fn ? fn() : UINT64_MAX;
}

int run_served_cases(FILE* digest) {
  const std::vector<TypeCase> types{
      {MPI_INT8_T, "MPI_INT8_T", true},         {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", true},
      {MPI_UINT8_T, "MPI_UINT8_T", false},      {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", false},
      {MPI_INT32_T, "MPI_INT32_T", true},       {MPI_INT, "MPI_INT", true},
      {MPI_UINT32_T, "MPI_UINT32_T", false},    {MPI_UNSIGNED, "MPI_UNSIGNED", false},
      {MPI_INT64_T, "MPI_INT64_T", true},       {MPI_LONG, "MPI_LONG", true},
      {MPI_LONG_LONG, "MPI_LONG_LONG", true},   {MPI_UINT64_T, "MPI_UINT64_T", false},
      {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", false}, {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", false},
      {MPI_FLOAT, "MPI_FLOAT", true},           {MPI_DOUBLE, "MPI_DOUBLE", true},
  };
  const std::vector<OpCase> ops{{MPI_SUM, "MPI_SUM"}, {MPI_PROD, "MPI_PROD"}, {MPI_MIN, "MPI_MIN"}, {MPI_MAX, "MPI_MAX"}};
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm dup, split;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, -world_rank, &split);  // reversed rank order
  const std::vector<std::pair<MPI_Comm, const char*>> comms{{MPI_COMM_WORLD, "world"}, {dup, "dup"}, {split, "split"}};
  int calls = 0;
  std::vector<char> input, result, reference;
  // Every communicator x type x op x count x placement: MPI_Allreduce against PMPI_Allreduce.
  for (const auto& [comm, comm_name] : comms)
    for (const TypeCase& t : types)
      for (const OpCase& o : ops)
        for (int count : {0, 1, 7, 65537})
          for (bool in_place : {false, true}) {
            int rank = 0;
            MPI_Comm_rank(comm, &rank);
            fill(t, input, count, rank);
            reference.assign(input.size(), 0);
            PMPI_Allreduce(input.data(), reference.data(), count, t.type, o.op, comm);
            result = in_place ? input : std::vector<char>(input.size(), 0);
            MPI_Allreduce(in_place ? MPI_IN_PLACE : input.data(), result.data(), count, t.type, o.op, comm);
            ++calls;
            const std::string name = std::string(comm_name) + " " + t.name + " " + o.name + " count " +
                                     std::to_string(count) + (in_place ? " in place" : "");
            check(result == reference, name + ": differs from PMPI_Allreduce");
            if (digest) std::fprintf(digest, "%s %016llx\n", name.c_str(), static_cast<unsigned long long>(fnv(result, 1469598103934665603ull)));
          }
  MPI_Comm_free(&split);  // frees arlab's state for it (attribute delete callback)
  MPI_Comm_free(&dup);

  // Applications that make a communicator per phase: arlab's state must go with each one.
  const uint64_t live_before = counter("arlab_mpi_live_communicators");
  for (int i = 0; i < 64; ++i) {
    MPI_Comm phase;
    MPI_Comm_dup(MPI_COMM_WORLD, &phase);
    long one = 1, ranks = 0;
    MPI_Allreduce(&one, &ranks, 1, MPI_LONG, MPI_SUM, phase);
    ++calls;
    int size = 0;
    MPI_Comm_size(phase, &size);
    check(ranks == size, "sum over a fresh communicator");
    MPI_Comm_free(&phase);
  }
  check(counter("arlab_mpi_live_communicators") == live_before, "state of freed communicators is still held");
  return calls;
}

void sum_ints(void* in, void* inout, int* len, MPI_Datatype*) {
  for (int i = 0; i < *len; ++i) static_cast<int*>(inout)[i] += static_cast<int*>(in)[i];
}
void sum_int_pairs(void* in, void* inout, int* len, MPI_Datatype*) {
  for (int i = 0; i < 2 * *len; ++i) static_cast<int*>(inout)[i] += static_cast<int*>(in)[i];
}

// What the library must pass on: each result still compared with PMPI_Allreduce.
void run_fallback_cases() {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Op user_sum, user_pair_sum;
  MPI_Op_create(sum_ints, 1, &user_sum);
  MPI_Op_create(sum_int_pairs, 1, &user_pair_sum);
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);

  std::vector<int> in(64), out(64), ref(64);
  for (int i = 0; i < 64; ++i) in[i] = rank * 100 + i;
  MPI_Allreduce(in.data(), out.data(), 64, MPI_INT, user_sum, MPI_COMM_WORLD);
  PMPI_Allreduce(in.data(), ref.data(), 64, MPI_INT, user_sum, MPI_COMM_WORLD);
  check(out == ref, "user-defined operation");
  MPI_Allreduce(in.data(), out.data(), 32, pair, user_pair_sum, MPI_COMM_WORLD);
  PMPI_Allreduce(in.data(), ref.data(), 32, pair, user_pair_sum, MPI_COMM_WORLD);
  check(out == ref, "derived datatype");

  struct { int value, index; } loc_in{rank % 3, rank}, loc_out{}, loc_ref{};
  MPI_Allreduce(&loc_in, &loc_out, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD);
  PMPI_Allreduce(&loc_in, &loc_ref, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD);
  check(loc_out.value == loc_ref.value && loc_out.index == loc_ref.index, "MPI_MINLOC");

  short s_in = static_cast<short>(rank + 1), s_out = 0;
  MPI_Allreduce(&s_in, &s_out, 1, MPI_SHORT, MPI_SUM, MPI_COMM_WORLD);
  check(s_out == size * (size + 1) / 2, "MPI_SHORT sum");

  long l_in = rank + 1, l_out = 0;
  MPI_Request request;
  MPI_Iallreduce(&l_in, &l_out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  check(l_out == size * (size + 1) / 2, "MPI_Iallreduce");

  if (size >= 2) {  // an inter-communicator between the even and the odd ranks
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 99, &inter);
    int mine = rank + 1, theirs = 0, reference = 0;
    MPI_Allreduce(&mine, &theirs, 1, MPI_INT, MPI_SUM, inter);
    PMPI_Allreduce(&mine, &reference, 1, MPI_INT, MPI_SUM, inter);
    check(theirs == reference, "inter-communicator");
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
  }

  MPI_Type_free(&pair);
  MPI_Op_free(&user_sum);
  MPI_Op_free(&user_pair_sum);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  bool expect_served = false, expect_library = false, fallbacks = false;
  const char* digest_path = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--expect-served") expect_served = true;
    else if (a == "--expect-library") expect_library = true;
    else if (a == "--fallbacks") fallbacks = true;
    else if (a == "--digest" && i + 1 < argc) digest_path = argv[++i];
    else { std::fprintf(stderr, "pmpi_app: unknown argument %s\n", a.c_str()); MPI_Abort(MPI_COMM_WORLD, 2); }
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  FILE* digest = digest_path && rank == 0 ? std::fopen(digest_path, "w") : nullptr;
  const uint64_t served_before = counter("arlab_mpi_calls_served");
  if (expect_library) check(served_before == UINT64_MAX, "libarlab_mpi.so is loaded, but this run expects the library's own MPI_Allreduce");
  if (expect_served) check(served_before != UINT64_MAX, "libarlab_mpi.so is not loaded (LD_PRELOAD)");
  if (fallbacks) {
    run_fallback_cases();
    if (expect_served) check(counter("arlab_mpi_calls_served") == served_before, "arlab served a call it should have passed on");
  } else {
    const int calls = run_served_cases(digest);
    if (expect_served)
      check(counter("arlab_mpi_calls_served") - served_before == static_cast<uint64_t>(calls),
            "arlab served " + std::to_string(counter("arlab_mpi_calls_served") - served_before) + " of " + std::to_string(calls) + " calls");
  }
  if (digest) std::fclose(digest);
  int failures = 0;
  PMPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("pmpi_app: %s, %d failures\n", failures ? "FAILED" : "passed", failures);
  MPI_Finalize();
  return failures ? 1 : 0;
}
