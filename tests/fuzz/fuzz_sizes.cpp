// libFuzzer target: the size parser every -b / -e / --chunk / ARLAB_* size goes through.
// Any text either parses or throws UsageError (never anything else, never a crash), and a
// parsed size printed by format_size parses back to the same number.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "harness/errors.h"
#include "harness/sizes.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace arlab;
  const std::string text(reinterpret_cast<const char*>(data), size);
  uint64_t bytes = 0;
  try {
    bytes = parse_size("-e", text);
  } catch (const UsageError&) {
    return 0;
  }
  const std::string printed = format_size(bytes);
  if (parse_size("-e", printed) != bytes) {
    std::fprintf(stderr, "'%s' parses to %llu, printed '%s', which parses to %llu\n", text.c_str(),
                 static_cast<unsigned long long>(bytes), printed.c_str(),
                 static_cast<unsigned long long>(parse_size("-e", printed)));
    std::abort();
  }
  return 0;
}
