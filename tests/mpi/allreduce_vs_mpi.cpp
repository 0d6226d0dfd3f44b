// Integration test, run under mpiexec at several world sizes: every scheduled algorithm x
// datatype x operation x count x placement on the MPI transport, compared with the MPI
// library's own MPI_Allreduce on the same random data. Integers must match bit for bit;
// floating point within N * N * eps of the inputs' magnitude (summation order differs).
// Every rank must also end with bit-identical results, whatever the order of summation.
// Options: --algorithms a,b (default: all), --ranks-per-node K and --intra direct|ring (for
// hier, which then runs with every flat algorithm between the nodes), --lockstep 1 (run the
// schedules round by round, the lowering the NCCL transport uses), --transport NAME (the
// scheduled algorithms on another transport; the reference is still MPI_Allreduce),
// --types a,b and --ops a,b (default: all), --symmetric 1 (also twoshot, ring and rabenseifner
// on buffers in the transport's symmetric memory, at a different offset on every rank, and
// twoshot's refusal of buffers that are not).
// Prints "N passed, M failed" on rank 0 and exits non-zero on any failure.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "algorithms/half.h"
#include "algorithms/registry.h"
#include "harness/collective.h"
#include "harness/devices.h"
#include "transports/bootstrap.h"
#include "transports/registry.h"

using namespace arlab;

namespace {

// Random inputs: full-range integers (sums and products wrap), floats in [-1, 1] for sums,
// near 1 for products, anything for min / max.
void fill_random(DataType type, RedOp op, void* buffer, uint64_t count, int rank) {
  std::mt19937_64 rng(1234567 + 7919 * rank + 31 * static_cast<int>(type) + static_cast<int>(op));
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const size_t size = info(type).size;
  for (uint64_t i = 0; i < count; ++i) {
    double v = op == RedOp::Prod ? 1.0 + unit(rng) / 16 : unit(rng);
    char* p = static_cast<char*>(buffer) + i * size;
    const uint64_t bits = rng();
    switch (type) {
      case DataType::Float16: { const uint16_t h = float_to_half(static_cast<float>(v)); std::memcpy(p, &h, 2); break; }
      case DataType::Bfloat16: { const uint16_t b = float_to_bfloat16(static_cast<float>(v)); std::memcpy(p, &b, 2); break; }
      case DataType::Float32: { const float f = static_cast<float>(v); std::memcpy(p, &f, 4); break; }
      case DataType::Float64: std::memcpy(p, &v, 8); break;
      default: std::memcpy(p, &bits, size); break;
    }
  }
}

double as_double(DataType type, const char* p) {
  switch (type) {
    case DataType::Float16: { uint16_t h; std::memcpy(&h, p, 2); return half_to_float(h); }
    case DataType::Bfloat16: { uint16_t b; std::memcpy(&b, p, 2); return bfloat16_to_float(b); }
    case DataType::Float32: { float f; std::memcpy(&f, p, 4); return f; }
    default: { double d; std::memcpy(&d, p, 8); return d; }
  }
}

double epsilon(DataType type) {
  switch (type) {
    case DataType::Float16: return std::ldexp(1.0, -10);
    case DataType::Bfloat16: return std::ldexp(1.0, -7);
    case DataType::Float32: return std::ldexp(1.0, -23);
    default: return std::ldexp(1.0, -52);
  }
}

uint64_t mismatches(DataType type, const char* got, const char* want, uint64_t count, int n) {
  const DataTypeInfo& t = info(type);
  if (!t.is_float) return count == 0 ? 0 : (std::memcmp(got, want, count * t.size) != 0 ? count : 0);
  const double tol = n * n * epsilon(type);  // inputs are at most 1 in magnitude (products near 1)
  uint64_t bad = 0;
  for (uint64_t i = 0; i < count; ++i) {
    const double a = as_double(type, got + i * t.size), b = as_double(type, want + i * t.size);
    bad += !(a == b || std::fabs(a - b) <= tol * std::max(1.0, std::fabs(b)));
  }
  return bad;
}

// FNV-1a of the result, to compare ranks' outputs bit for bit without moving them.
std::string digest(const char* data, size_t bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < bytes; ++i) h = (h ^ static_cast<unsigned char>(data[i])) * 0x100000001b3ull;
  return std::to_string(h);
}

}  // namespace

int main(int argc, char** argv) {
  auto boot = make_mpi_bootstrap(&argc, &argv);
  auto mpi = make_transport("mpi");
  const auto host = make_host_device();
  const int n = boot->size(), rank = boot->rank();
  std::vector<std::string> chosen, types, ops;
  std::string transport_name = "mpi";
  int ranks_per_node = 0;
  std::string intra = "direct";
  bool lockstep = false, symmetric = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--ranks-per-node") ranks_per_node = std::stoi(value);
    if (flag == "--intra") intra = value;
    if (flag == "--lockstep") lockstep = value == "1";
    if (flag == "--transport") transport_name = value;
    if (flag == "--symmetric") symmetric = value == "1";
    auto& list = flag == "--algorithms" ? chosen : flag == "--types" ? types : ops;
    if (flag == "--algorithms" || flag == "--types" || flag == "--ops")
      for (size_t start = 0; start <= value.size();) {
        const size_t comma = std::min(value.find(',', start), value.size());
        list.push_back(value.substr(start, comma - start));
        start = comma + 1;
      }
  }
  const auto wanted = [](const std::vector<std::string>& list, std::string_view name) {
    return list.empty() || std::find(list.begin(), list.end(), name) != list.end();
  };
  auto ours_transport = transport_name == "mpi" ? nullptr : make_transport(transport_name, {boot.get(), host.get(), "", 0, -1, ranks_per_node});
  Transport* transport = ours_transport ? ours_transport.get() : mpi.get();
  // (algorithm, inter) pairs to run: hier once per flat algorithm between nodes.
  std::vector<std::pair<std::string, std::string>> variants;
  for (const auto& a : algorithms()) {
    if (!chosen.empty() && std::find(chosen.begin(), chosen.end(), a.name) == chosen.end()) continue;
    if (a.name != "hier") {
      variants.push_back({std::string(a.name), "ring"});
      continue;
    }
    for (const auto& between : algorithms())
      if (between.name != "hier") variants.push_back({"hier", std::string(between.name)});
  }
  // The transport's one-step and two-step paths through shared slots (shm): one step on the
  // counts that fit its slots, with one count of several cache lines besides; two steps on every
  // count (the largest, 8 MB of float64, goes through the slot in pieces, the last one short).
  const size_t small_limit = transport->small_allreduce_limit(), two_step_limit = transport->two_step_allreduce_limit();
  if (small_limit > 0 && wanted(chosen, "oneshot")) variants.push_back({"oneshot", "ring"});
  if (two_step_limit > 0 && wanted(chosen, "twoshot")) variants.push_back({"twoshot", "ring"});
  const TransportLookup lookup = [&](std::string_view) -> Transport& { return *mpi; };
  std::vector<uint64_t> counts = {0, 1, 7, 1000003};
  if (small_limit > 0) counts.insert(counts.begin() + 3, 4099);
  int passed = 0, failed = 0;
  // --symmetric: input and output in symmetric memory, each rank's at its own offset (the path
  // exchanges places, not addresses); "A/symmetric" runs A on them: twoshot at any size (the
  // largest count is 8 MB of float64, over the slots' limit), and two schedules, whose writes
  // into the peers' outputs become plain copies.
  SymmetricBuffer symmetric_input, symmetric_output;
  const size_t symmetric_offset = 64 * rank + 8;
  if (symmetric) {
    const size_t largest = counts.back() * 8 + symmetric_offset;
    symmetric_input = SymmetricBuffer(*transport, largest);
    symmetric_output = SymmetricBuffer(*transport, largest);
    for (const char* a : {"twoshot/symmetric", "ring/symmetric", "rabenseifner/symmetric"}) variants.push_back({a, "ring"});
    // Buffers outside symmetric memory: every rank refuses, none waits for the others.
    std::vector<char> plain(64);
    AllreduceSpec spec{"twoshot", DataType::Float32, RedOp::Sum, 16, 0, ranks_per_node, "ring", intra, {}, false, true};
    std::string error;
    try {
      make_collective(spec, *transport, *host, lookup)->run(plain.data(), plain.data());
    } catch (const TransportError& e) {
      error = e.what();
    }
    const bool refused = error.find("is not in symmetric memory") != std::string::npos;
    if (boot->sum(refused ? 1 : 0) == static_cast<uint64_t>(n)) {
      ++passed;
    } else {
      ++failed;
      std::printf("FAIL: rank %d: twoshot on buffers outside symmetric memory: '%s'\n", rank, error.c_str());
    }
  }
  // One input and one MPI_Allreduce reference per datatype x op x count, shared by every
  // algorithm and both placements.
  for (const auto& type : datatypes())
    for (const auto& op : redops())
      for (uint64_t count : counts) {
        if (!wanted(types, type.name) || !wanted(ops, op.name)) continue;
        const size_t bytes = count * type.size;
        std::vector<char> input(bytes + 1), output(bytes + 1), reference(bytes + 1);
        fill_random(type.type, op.op, input.data(), count, rank);
        AllreduceSpec spec{"mpi", type.type, op.op, count, 0, ranks_per_node, "ring", intra, {}, lockstep};
        make_collective(spec, *mpi, *host, lookup)->run(input.data(), reference.data());
        for (const auto& [algorithm, inter] : variants)
          for (bool in_place : {false, true}) {
            if (algorithm == "oneshot" && bytes > small_limit) continue;
            const size_t suffix = algorithm.find("/symmetric");
            const bool on_symmetric = suffix != std::string::npos;
            spec.algorithm = algorithm.substr(0, suffix);
            spec.inter = inter;
            spec.symmetric = on_symmetric;
            auto ours = make_collective(spec, *transport, *host, lookup);
            if (on_symmetric) {
              // The same data, through the symmetric buffers; the output starts as garbage.
              char* in = symmetric_input.data() + symmetric_offset;
              char* out = symmetric_output.data() + symmetric_offset;
              std::memcpy(in_place ? out : in, input.data(), bytes);
              if (!in_place) std::memset(out, 0xa5, bytes);
              ours->run(in_place ? out : in, out);
              std::memcpy(output.data(), out, bytes);
            } else if (in_place) {
              output = input;
              ours->run(output.data(), output.data());
            } else {
              ours->run(input.data(), output.data());
            }
            const uint64_t bad = boot->sum(mismatches(type.type, output.data(), reference.data(), count, n));
            const auto digests = boot->gather_strings(digest(output.data(), bytes));
            const bool ranks_agree = std::all_of(digests.begin(), digests.end(), [&](const auto& d) { return d == digests[0]; });
            if (bad == 0 && ranks_agree) {
              ++passed;
            } else {
              ++failed;
              if (rank == 0)
                std::printf("FAIL: %s%s %s %s count %lu %s: %lu elements differ from MPI_Allreduce%s\n",
                            algorithm.c_str(), algorithm == "hier" ? ("/" + inter).c_str() : "", std::string(type.name).c_str(),
                            std::string(op.name).c_str(), static_cast<unsigned long>(count),
                            in_place ? "in-place" : "out-of-place", static_cast<unsigned long>(bad),
                            ranks_agree ? "" : "; ranks' results are not bit-identical");
            }
          }
      }
  if (rank == 0)
    std::printf("allreduce vs MPI_Allreduce at N = %d, -t %s%s%s%s: %d passed, %d failed\n", n, transport_name.c_str(),
                lockstep ? ", lockstep" : "", symmetric ? ", symmetric buffers" : "",
                ranks_per_node ? (", " + std::to_string(ranks_per_node) + " ranks per node").c_str() : "", passed, failed);
  return failed ? 1 : 0;
}
