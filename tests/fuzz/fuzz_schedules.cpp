// libFuzzer target: schedule generation for fuzzed (algorithm, N, count, chunk, element size,
// placement, one-sided lowering, hier's node size and phases), proved by the symbolic checker.
// A ScheduleError (a wrong schedule) or a crash is a finding; an UnsupportedProblem (hier
// refusing a node layout it cannot serve) is an answer.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>

#include "algorithms/checker.h"
#include "algorithms/errors.h"
#include "algorithms/lockstep.h"
#include "algorithms/one_sided.h"
#include "algorithms/registry.h"

namespace {

// Takes fuzz bytes in order; zeros once they run out.
struct Bytes {
  const uint8_t* data;
  size_t size;
  uint64_t take(int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v = v << 8 | (size ? (--size, *data++) : 0);
    return v;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace arlab;
  Bytes in{data, size};
  const auto& registry = algorithms();
  const AlgorithmInfo& a = registry[in.take(1) % registry.size()];
  Problem p;
  p.nranks = static_cast<int>(in.take(1) % 96) + 1;
  p.count = in.take(3) % 300000;
  p.element_size = uint32_t{1} << (in.take(1) % 4);
  p.chunk_bytes = in.take(2);
  const uint64_t flags = in.take(1);
  if (a.name == "hier") {
    p.ranks_per_node = static_cast<int>(in.take(1) % p.nranks) + 1;
    p.inter = std::string(registry[in.take(1) % registry.size()].name);
    p.intra = flags & 4 ? "ring" : "direct";
  }
  try {
    std::vector<RankSchedule> world = generate_world(p, a.generate);
    if (flags & 2) lower_to_one_sided(world);
    check_schedules(world, {.in_place = (flags & 1) != 0});
  } catch (const UnsupportedProblem&) {
  } catch (const ScheduleError& e) {
    std::fprintf(stderr, "-a %s N=%d count=%llu element=%u chunk=%llu flags=%llu rpn=%d inter=%s: %s\n",
                 std::string(a.name).c_str(), p.nranks, static_cast<unsigned long long>(p.count), p.element_size,
                 static_cast<unsigned long long>(p.chunk_bytes), static_cast<unsigned long long>(flags), p.ranks_per_node,
                 p.inter.c_str(), e.what());
    std::abort();
  }
  return 0;
}
