#include "harness/pmpi/interpose_config.h"


#include "algorithms/registry.h"
#include "harness/collective.h"
#include "harness/errors.h"
#include "harness/sizes.h"
#include "harness/watchdog.h"
#include "transports/registry.h"

namespace arlab {
namespace {

std::string algorithm_from(const char* text) {
  const std::string name = text;
  for (const auto& baseline : baselines())
    if (baseline.name == name)
      throw UsageError("ARLAB_ALGO=" + name + ": '" + name +
                       "' is a library's own all-reduce, which the preload replaces; run without LD_PRELOAD for it");
  if (!is_known_algorithm(name)) throw UsageError("ARLAB_ALGO=" + name + ": unknown algorithm; known: " + algorithm_names() + ", auto");
  return name;
}

// The transports that move host memory: the application's buffers are host memory (GPU
// buffers go to the MPI library, see mpi_allreduce.cpp).
std::string transport_from(const char* text) {
  const std::string name = text;
  const TransportInfo* info = find_transport(name);
  if (!info) throw UsageError("ARLAB_TRANSPORT=" + name + ": unknown transport; known: " + transport_names());
  if (!info->make) throw UsageError("ARLAB_TRANSPORT=" + name + ": " + std::string(info->unavailable_reason));
  if (name == "nccl") throw UsageError("ARLAB_TRANSPORT=nccl: moves GPU memory only; the PMPI library serves host buffers");
  return name;
}

bool flag_from(const char* text) {
  const std::string value = text;
  if (value == "1" || value == "yes" || value == "true") return true;
  if (value.empty() || value == "0" || value == "no" || value == "false") return false;
  throw UsageError("ARLAB_VERBOSE=" + value + ": expected 1 or 0");
}

}  // namespace

InterposeConfig read_interpose_config(const EnvironmentLookup& getenv) {
  InterposeConfig c;
  if (const char* v = getenv("ARLAB_ALGO"); v && *v) c.algorithm = algorithm_from(v);
  if (const char* v = getenv("ARLAB_TRANSPORT"); v && *v) c.transport = transport_from(v);
  if (const char* v = getenv("ARLAB_CHUNK"); v && *v) c.chunk_bytes = parse_size("ARLAB_CHUNK", v);
  if (const char* v = getenv("ARLAB_MIN_BYTES"); v && *v) c.min_bytes = parse_size("ARLAB_MIN_BYTES", v);
  if (const char* v = getenv("ARLAB_VERBOSE")) c.verbose = flag_from(v);
  if (const char* v = getenv("ARLAB_TIMEOUT"); v && *v) c.timeout_s = parse_timeout(v);
  return c;
}

std::string InterposeConfig::describe() const {
  std::string s = algorithm + " on " + transport;
  if (chunk_bytes) s += ", chunk " + format_size(chunk_bytes);
  if (min_bytes) s += ", from " + format_size(min_bytes);
  return s;
}

uint64_t InterposeConfig::digest() const {
  // FNV-1a over everything that changes what the ranks exchange.
  uint64_t h = 1469598103934665603ull;
  for (char ch : algorithm + '\0' + transport + '\0' + std::to_string(chunk_bytes) + '\0' + std::to_string(min_bytes))
    h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  return h;
}

}  // namespace arlab
