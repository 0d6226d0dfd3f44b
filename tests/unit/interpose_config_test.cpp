// The PMPI library's settings (harness/pmpi/interpose_config.h), read from a fake environment.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "harness/errors.h"
#include "harness/pmpi/interpose_config.h"

namespace arlab {
namespace {

InterposeConfig read(const std::map<std::string, std::string>& env) {
  return read_interpose_config([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

std::string error_of(const std::map<std::string, std::string>& env) {
  try {
    read(env);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(InterposeConfig, DefaultsAreAutoOnMpiForEverySize) {
  const InterposeConfig c = read({});
  EXPECT_EQ(c.algorithm, "auto");
  EXPECT_EQ(c.transport, "mpi");
  EXPECT_EQ(c.chunk_bytes, 0u);
  EXPECT_EQ(c.min_bytes, 0u);
  EXPECT_FALSE(c.verbose);
  EXPECT_EQ(c.describe(), "auto on mpi");
}

TEST(InterposeConfig, ReadsEverySetting) {
  const InterposeConfig c =
      read({{"ARLAB_ALGO", "ring"}, {"ARLAB_TRANSPORT", "shm"}, {"ARLAB_CHUNK", "64K"}, {"ARLAB_MIN_BYTES", "4K"}, {"ARLAB_VERBOSE", "1"}});
  EXPECT_EQ(c.algorithm, "ring");
  EXPECT_EQ(c.transport, "shm");
  EXPECT_EQ(c.chunk_bytes, 65536u);
  EXPECT_EQ(c.min_bytes, 4096u);
  EXPECT_TRUE(c.verbose);
  EXPECT_EQ(c.describe(), "ring on shm, chunk 64K, from 4K");
}

TEST(InterposeConfig, BadValuesNameTheVariable) {
  EXPECT_NE(error_of({{"ARLAB_ALGO", "bogus"}}).find("ARLAB_ALGO=bogus: unknown algorithm; known: ring"), std::string::npos);
  EXPECT_NE(error_of({{"ARLAB_ALGO", "mpi"}}).find("ARLAB_ALGO=mpi: 'mpi' is a library's own all-reduce"), std::string::npos);
  EXPECT_NE(error_of({{"ARLAB_TRANSPORT", "carrier-pigeon"}}).find("ARLAB_TRANSPORT=carrier-pigeon: unknown transport"), std::string::npos);
  EXPECT_NE(error_of({{"ARLAB_TRANSPORT", "nccl"}}).find("ARLAB_TRANSPORT=nccl"), std::string::npos);
  EXPECT_NE(error_of({{"ARLAB_CHUNK", "lots"}}).find("ARLAB_CHUNK: 'lots' is not a size"), std::string::npos);
  EXPECT_NE(error_of({{"ARLAB_MIN_BYTES", "-1"}}).find("ARLAB_MIN_BYTES"), std::string::npos);
  EXPECT_NE(error_of({{"ARLAB_VERBOSE", "maybe"}}).find("ARLAB_VERBOSE=maybe"), std::string::npos);
  EXPECT_NE(error_of({{"ARLAB_TIMEOUT", "soon"}}).find("ARLAB_TIMEOUT: 'soon' is not a number of seconds"), std::string::npos);
  EXPECT_NE(error_of({{"ARLAB_TIMEOUT", "-3"}}).find("ARLAB_TIMEOUT: '-3' is not a number of seconds"), std::string::npos);
  EXPECT_EQ(read({{"ARLAB_TIMEOUT", "2.5"}}).timeout_s, 2.5);
}

TEST(InterposeConfig, DigestDiffersWhenRanksWouldRunDifferentCollectives) {
  const uint64_t ring = read({{"ARLAB_ALGO", "ring"}}).digest();
  EXPECT_EQ(ring, read({{"ARLAB_ALGO", "ring"}, {"ARLAB_VERBOSE", "1"}}).digest());  // verbosity changes nothing exchanged
  EXPECT_NE(ring, read({{"ARLAB_ALGO", "rd"}}).digest());
  EXPECT_NE(ring, read({{"ARLAB_ALGO", "ring"}, {"ARLAB_CHUNK", "8K"}}).digest());
  EXPECT_NE(ring, read({{"ARLAB_ALGO", "ring"}, {"ARLAB_MIN_BYTES", "8K"}}).digest());
  EXPECT_NE(ring, read({{"ARLAB_ALGO", "ring"}, {"ARLAB_TRANSPORT", "shm"}}).digest());
}

}  // namespace
}  // namespace arlab
