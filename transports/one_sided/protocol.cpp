#include "transports/one_sided/protocol.h"

#include "transports/transport.h"

namespace arlab::one_sided {

uint64_t Immediate::decode(uint32_t imm, uint64_t expected) {
  constexpr uint64_t kPeriod = uint64_t{1} << 31;
  const uint64_t low = imm & 0x7fffffffu;
  // Candidates: expected's period, and the ones either side of it.
  const uint64_t base = expected - (expected % kPeriod);
  uint64_t best = base + low;
  for (const uint64_t candidate : {base + low + kPeriod, base >= kPeriod ? base - kPeriod + low : base + low}) {
    const auto distance = [&](uint64_t x) { return x > expected ? x - expected : expected - x; };
    if (distance(candidate) < distance(best)) best = candidate;
  }
  return best;
}

uint64_t RemoteWindow::target(uint64_t offset, uint64_t length, const std::string& what) const {
  if (!holds(offset, length))
    throw TransportError(what + ": bytes [" + std::to_string(offset) + ", " + std::to_string(offset + length) +
                         ") fall outside the peer's window of " + std::to_string(bytes) + " bytes");
  return address + offset;
}

}  // namespace arlab::one_sided
