#include <gtest/gtest.h>

#include "harness/errors.h"
#include "harness/sizes.h"

namespace arlab {
namespace {

TEST(Sizes, ParsesBinarySuffixes) {
  EXPECT_EQ(parse_size("-b", "8"), 8u);
  EXPECT_EQ(parse_size("-b", "4K"), 4096u);
  EXPECT_EQ(parse_size("-b", "16M"), 16u << 20);
  EXPECT_EQ(parse_size("-b", "1G"), 1ull << 30);
  EXPECT_EQ(parse_size("-b", "2g"), 2ull << 30);
  EXPECT_EQ(parse_size("-b", "64KB"), 65536u);
  EXPECT_EQ(parse_size("-b", "1MiB"), 1u << 20);
  EXPECT_EQ(parse_size("-b", "1.5K"), 1536u);
  EXPECT_EQ(parse_size("-b", "0"), 0u);
}

TEST(Sizes, RejectsWhatIsNotASizeNamingTheFlag) {
  for (const char* bad : {"12Q", "", "-1", "K", "1.5", "abc", "1e3", "3X", "1..2"}) {
    try {
      parse_size("-e", bad);
      FAIL() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("-e: '" + std::string(bad) + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(Sizes, SweepsLikeNcclTests) {
  EXPECT_EQ(size_sweep(8, 128, 2, 0, 4), (std::vector<uint64_t>{8, 16, 32, 64, 128}));
  EXPECT_EQ(size_sweep(8, 100, 4, 0, 4), (std::vector<uint64_t>{8, 32}));
  EXPECT_EQ(size_sweep(0, 16, 2, 0, 4), (std::vector<uint64_t>{0, 4, 8, 16}));
  EXPECT_EQ(size_sweep(10, 30, 2, 10, 4), (std::vector<uint64_t>{8, 20, 28}));  // -i adds; rounded to elements
  EXPECT_EQ(size_sweep(6, 6, 2, 0, 8), (std::vector<uint64_t>{0}));
  EXPECT_EQ(format_size(16u << 20), "16M");
  EXPECT_EQ(format_size(1000), "1000");
}

}  // namespace
}  // namespace arlab
