// Property test: random (algorithm, N <= 64, count, chunk, placement, hier's node size and
// phases) combinations through the symbolic checker, as written and lowered to one-sided
// write + signal. Seeded and reproducible: a failure prints the seed and the case, and
// ARLAB_PROPERTY_SEED=<seed> (ARLAB_PROPERTY_CASES=<n>) replays it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <sstream>

#include "algorithms/checker.h"
#include "algorithms/errors.h"
#include "algorithms/lockstep.h"
#include "algorithms/one_sided.h"
#include "algorithms/registry.h"

namespace arlab {
namespace {

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

TEST(ScheduleProperties, RandomProblemsPassTheChecker) {
  const uint64_t seed = env_or("ARLAB_PROPERTY_SEED", 20261201);
  const uint64_t cases = env_or("ARLAB_PROPERTY_CASES", 1500);
  std::mt19937_64 rng(seed);
  const auto uniform = [&](uint64_t lo, uint64_t hi) { return std::uniform_int_distribution<uint64_t>(lo, hi)(rng); };
  const auto& registry = algorithms();
  const std::vector<std::string> phases{"direct", "ring"};
  int refused = 0;
  for (uint64_t k = 0; k < cases; ++k) {
    const AlgorithmInfo& a = registry[uniform(0, registry.size() - 1)];
    Problem p;
    p.nranks = static_cast<int>(uniform(1, 64));
    // Counts around N (empty and uneven blocks) as often as larger ones.
    p.count = uniform(0, 1) ? uniform(0, 3 * static_cast<uint64_t>(p.nranks)) : uniform(0, 200000);
    p.element_size = static_cast<uint32_t>(std::vector<int>{1, 2, 4, 8}[uniform(0, 3)]);
    p.chunk_bytes = uniform(0, 2) == 0 ? 0 : uniform(1, 64) * 1024;
    if (a.name == "hier") {
      p.ranks_per_node = static_cast<int>(uniform(1, static_cast<uint64_t>(p.nranks)));
      do p.inter = std::string(registry[uniform(0, registry.size() - 1)].name); while (p.inter == "hier");
      p.intra = phases[uniform(0, 1)];
    }
    const bool in_place = uniform(0, 1) == 1, one_sided = uniform(0, 3) == 0;
    std::ostringstream what;
    what << "ARLAB_PROPERTY_SEED=" << seed << " case " << k << ": -a " << a.name << " N=" << p.nranks << " count=" << p.count
         << " element=" << p.element_size << " chunk=" << p.chunk_bytes << (in_place ? " in place" : "")
         << (one_sided ? " one-sided" : "");
    if (a.name == "hier") what << " ranks-per-node=" << p.ranks_per_node << " inter=" << p.inter << " intra=" << p.intra;
    SCOPED_TRACE(what.str());
    try {
      std::vector<RankSchedule> world = generate_world(p, a.generate);
      if (one_sided) lower_to_one_sided(world);
      const CheckStats stats = check_schedules(world, {.in_place = in_place});
      if (p.nranks > 1 && p.count > 0) {
        EXPECT_GT(stats.messages, 0u) << "no rank can finish without the others' data";
      }
    } catch (const UnsupportedProblem& e) {
      ++refused;  // a problem the algorithm says it cannot serve is a refusal, not a wrong schedule
      EXPECT_EQ(a.name, "hier") << "flat algorithms serve every N and count: " << e.what();
    } catch (const ScheduleError& e) {
      ADD_FAILURE() << e.what();
    }
  }
  RecordProperty("refused", refused);
}

}  // namespace
}  // namespace arlab
