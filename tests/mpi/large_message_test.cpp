// A message above INT_MAX bytes through the MPI transport, which must split it into pieces
// that MPI's int counts can carry. Run with 2 ranks; needs about 2 GiB per rank.
#include <climits>
#include <cstdio>
#include <vector>

#include "transports/bootstrap.h"
#include "transports/registry.h"

using namespace arlab;

int main(int argc, char** argv) {
  auto boot = make_mpi_bootstrap(&argc, &argv);
  if (boot->size() != 2) {
    if (boot->rank() == 0) std::printf("large_message_test needs exactly 2 ranks\n");
    return 2;
  }
  auto transport = make_transport("mpi");
  const size_t bytes = static_cast<size_t>(INT_MAX) + 4099;
  std::vector<unsigned char> buffer(bytes);
  uint64_t bad = 0;
  if (boot->rank() == 0) {
    for (size_t i = 0; i < bytes; ++i) buffer[i] = static_cast<unsigned char>(i * 131 + (i >> 20));
    const RequestId r = transport->isend(1, buffer.data(), bytes, 0);
    while (!transport->test(r)) {}
  } else {
    const RequestId r = transport->irecv(0, buffer.data(), bytes, 0);
    while (!transport->test(r)) {}
    for (size_t i = 0; i < bytes; ++i) bad += buffer[i] != static_cast<unsigned char>(i * 131 + (i >> 20));
  }
  bad = boot->sum(bad);
  if (boot->rank() == 0)
    std::printf("message of %zu bytes (INT_MAX + 4099): %s\n%d passed, %d failed\n", bytes, bad ? "CORRUPTED" : "intact",
                bad ? 0 : 1, bad ? 1 : 0);
  return bad ? 1 : 0;
}
