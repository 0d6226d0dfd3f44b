// A two-sided transport's matching, under mpiexec with 2 ranks: what the schedules rely on
// (transport.h: the k-th message of a pair carries tag k, posting order does not matter),
// driven through isend / irecv / test directly, with the orders a run can produce.
//  - early arrivals: every message is sent before any receive is posted, large ones included;
//  - receives posted out of tag order: the message the receiver waits for lies behind others
//    in the stream, so those must be taken aside without losing or reordering bytes;
//  - both ranks sending 8 MiB to each other before either posts a receive (no deadlock);
//  - --truncation 1: a message longer than its receive fails on the receiver with an error that
//    names the peer and the size.
// Every byte is checked. Prints "N passed, M failed" on rank 0, exits non-zero on any failure.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "harness/devices.h"
#include "transports/bootstrap.h"
#include "transports/registry.h"

using namespace arlab;

namespace {

uint8_t pattern(uint32_t tag, size_t i, int sender) { return static_cast<uint8_t>(tag * 131 + i * 7 + sender * 29); }

std::vector<uint8_t> message(uint32_t tag, size_t bytes, int sender) {
  std::vector<uint8_t> data(bytes);
  for (size_t i = 0; i < bytes; ++i) data[i] = pattern(tag, i, sender);
  return data;
}

// Drives test() until every request completes; a stall of 60 s is a failure, not a hang.
void wait_all(Transport& t, std::vector<RequestId> requests, const char* what) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!requests.empty()) {
    for (size_t i = 0; i < requests.size();)
      if (t.test(requests[i])) {
        requests[i] = requests.back();
        requests.pop_back();
      } else {
        ++i;
      }
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr, "FAIL: rank %d: %s: %zu requests still open after 60 s\n", t.rank(), what, requests.size());
      std::fflush(stderr);
      std::_Exit(1);
    }
  }
}

// Bytes of `got` that differ from what `sender` put in message `tag`.
size_t wrong_bytes(const std::vector<uint8_t>& got, uint32_t tag, int sender) {
  size_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i) wrong += got[i] != pattern(tag, i, sender);
  return wrong;
}

}  // namespace

int main(int argc, char** argv) {
  auto boot = make_mpi_bootstrap(&argc, &argv);
  std::string transport_name = "mpi";
  bool truncation = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--transport") transport_name = argv[i + 1];
    if (std::string(argv[i]) == "--truncation") truncation = std::string(argv[i + 1]) == "1";
  }
  if (boot->size() != 2) {
    if (boot->rank() == 0) std::printf("point_to_point_test needs exactly 2 ranks, got %d\n", boot->size());
    return 2;
  }
  const auto host = make_host_device();
  TransportContext context;
  context.bootstrap = boot.get();
  context.device = host.get();
  auto t = make_transport(transport_name, context);
  const int rank = t->rank(), other = 1 - rank;
  int passed = 0, failed = 0;
  const auto verdict = [&](const std::string& name, size_t wrong) {
    const uint64_t total = boot->sum(wrong);
    if (total == 0) ++passed; else ++failed;
    if (rank == 0 && total) std::printf("FAIL: %s: %lu bytes wrong\n", name.c_str(), static_cast<unsigned long>(total));
  };

  // Rank 0 sends six messages (tags 0-5) at once; rank 1 starts receiving 200 ms later, tag 3
  // first: tags 0-2 lie before it in the stream, the 3 MiB tag 0 among them.
  const std::vector<size_t> sizes = {3 << 20, 100, 0, 5 << 20, 200 << 10, 1 << 20};
  const std::vector<uint32_t> receive_order = {3, 5, 1, 0, 2, 4};
  std::vector<std::vector<uint8_t>> payloads(sizes.size());
  if (rank == 0) {
    std::vector<RequestId> sends;
    for (uint32_t tag = 0; tag < sizes.size(); ++tag) {
      payloads[tag] = message(tag, sizes[tag], rank);
      sends.push_back(t->isend(other, payloads[tag].data(), sizes[tag], tag));
    }
    wait_all(*t, sends, "early arrivals, sending");
  } else {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    for (size_t k = 0; k < receive_order.size(); ++k) {
      const uint32_t tag = receive_order[k];
      payloads[tag].assign(sizes[tag], 0xee);
      // Each receive completes before the next is posted: tag 3 while tags 0-2 wait in line.
      wait_all(*t, {t->irecv(other, payloads[tag].data(), sizes[tag], tag)}, "early arrivals");
    }
  }
  size_t wrong = 0;
  if (rank == 1)
    for (uint32_t tag = 0; tag < sizes.size(); ++tag) wrong += wrong_bytes(payloads[tag], tag, 0);
  verdict("early arrivals, received out of tag order", wrong);

  // Both ranks send 8 MiB twice (tags 6, 7) before either posts a receive, then receive 7 first.
  {
    constexpr size_t kBig = 8 << 20;
    const auto a = message(6, kBig, rank), b = message(7, kBig, rank);
    std::vector<uint8_t> got6(kBig), got7(kBig);
    std::vector<RequestId> all = {t->isend(other, a.data(), kBig, 6), t->isend(other, b.data(), kBig, 7)};
    all.push_back(t->irecv(other, got7.data(), kBig, 7));
    all.push_back(t->irecv(other, got6.data(), kBig, 6));
    wait_all(*t, all, "exchange");
    verdict("8 MiB each way, sends posted first", wrong_bytes(got6, 6, other) + wrong_bytes(got7, 7, other));
  }

  // The same tag again in a new run (tags restart per run): FIFO per tag, posted both before
  // and after the message arrives.
  {
    const auto first = message(0, 70000, rank), second = message(1, 70000, rank);
    std::vector<uint8_t> got_first(70000), got_second(70000);
    if (rank == 0) {
      wait_all(*t, {t->isend(other, first.data(), first.size(), 0)}, "same tag, first");
      wait_all(*t, {t->isend(other, second.data(), second.size(), 0)}, "same tag, second");
    } else {
      const RequestId id = t->irecv(other, got_first.data(), got_first.size(), 0);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      wait_all(*t, {id, t->irecv(other, got_second.data(), got_second.size(), 0)}, "same tag");
    }
    verdict("one tag twice, in order", rank == 1 ? wrong_bytes(got_first, 0, 0) + wrong_bytes(got_second, 1, 0) : 0);
  }

  if (truncation) {
    // 1000 bytes into a 10-byte receive: the receiver's error names the peer and the receive's size.
    std::string error;
    const auto sent = message(9, 1000, rank);
    std::vector<uint8_t> small(10);
    try {
      if (rank == 0) wait_all(*t, {t->isend(other, sent.data(), sent.size(), 9)}, "truncation, sending");
      else wait_all(*t, {t->irecv(other, small.data(), small.size(), 9)}, "truncation");
    } catch (const std::exception& e) {
      error = e.what();
    }
    const bool ok = rank == 0 ? error.empty() : error.find("rank 0") != std::string::npos && error.find("10") != std::string::npos;
    if (rank == 1) std::printf("truncation error on rank 1: %s\n", error.c_str());
    verdict("a message longer than its receive", ok ? 0 : 1);
  }
  boot->barrier();
  if (rank == 0) std::printf("point to point on -t %s: %d passed, %d failed\n", transport_name.c_str(), passed, failed);
  return failed ? 1 : 0;
}
