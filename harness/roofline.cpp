#include "harness/roofline.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "algorithms/reducers.h"
#include "harness/units.h"
#include "transports/streaming_copy.h"

namespace arlab {
namespace {

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

double memory_bound_us(const MemoryLoopTimes& loops, int nranks) {
  if (nranks <= 1) return loops.copy_us;
  const double n = nranks;
  return (n + 1) / (3 * n) * loops.reduce_us + (n - 1) / (2 * n) * loops.copy_us;
}

double link_bound_us(double bytes, int nnodes, double link_bytes_per_second) {
  if (nnodes <= 1 || link_bytes_per_second <= 0) return 0;
  const double m = nnodes;
  return 2 * (m - 1) / m * bytes / link_bytes_per_second * 1e6;
}

std::string roofline_description(int nranks, int nnodes, double link_bytes_per_second, bool link_measured, bool host) {
  std::string text = "# roofline: memory = (N+1)/3N x reduce(n) + (N-1)/2N x copy(n), N = " + std::to_string(nranks) +
                     ", both loops timed at each size with every rank of the node running them at once" +
                     std::string(host ? ", each with cached or streaming stores, whichever is faster" : "");
  if (nnodes > 1 && link_bytes_per_second > 0)
    text += "\n# roofline: link = 2(M-1)/M x n / " + format_bandwidth(link_bytes_per_second) + " (" +
            (link_measured ? "measured between two nodes" : "--link-rate") + "), M = " + std::to_string(nnodes) +
            " nodes; bound = the larger of the two";
  text += "\n# roofline: %out, %in = bound / time (100 = as fast as the hardware allows)";
  return text;
}

MemoryLoopTimes measure_memory_loops(Device& device, Bootstrap& boot, DataType type, RedOp op, char* dst, const char* a,
                                     const char* b, size_t bytes) {
  const size_t element = info(type).size;
  const size_t count = bytes / element;
  // Enough repetitions that one timing spans some 16 MiB of traffic (a few for big sizes).
  const int reps = static_cast<int>(std::clamp<size_t>((16u << 20) / std::max<size_t>(bytes, 1), 3, 2000));
  const auto timed = [&](auto&& loop) {
    double best = 1e300;
    for (int round = 0; round < 3; ++round) {
      device.synchronize();
      boot.barrier();
      device.timer_start();
      for (int i = 0; i < reps; ++i) loop();
      best = std::min(best, boot.max(device.timer_stop_us() / reps));
    }
    return best;
  };
  MemoryLoopTimes t;
  t.copy_us = timed([&] { device.copy(dst, a, count * element); });
  t.reduce_us = timed([&] { device.reduce(type, op, dst, a, b, count); });
  if (!device.is_gpu()) {
    // The host's loops also with streaming stores, which arlab's two-step paths use for outputs
    // larger than the caches (transports/shm/slot_stores.h): the bound is the faster of each
    // (so it never allows arlab a store the loops did not have). The reduce then runs through
    // the same L1 tiles as theirs (transports/streaming_copy.h).
    const ReduceManyFn combine = many_reducer(type, op);
    StreamingReducer streaming(2);
    const void* sources[2] = {a, b};
    void* streamed[1] = {dst};
    t.copy_us = std::min(t.copy_us, timed([&] { copy_streaming(dst, a, count * element); }));
    t.reduce_us = std::min(t.reduce_us, timed([&] { streaming.reduce(combine, sources, 2, nullptr, streamed, 1, count, element); }));
  }
  return t;
}

double measure_link_rate(Transport& transport, Bootstrap& boot, const std::vector<std::string>& hosts) {
  int peer = -1;
  for (size_t r = 1; r < hosts.size() && peer < 0; ++r)
    if (hosts[r] != hosts[0]) peer = static_cast<int>(r);
  double rate = 0;
  const int me = boot.rank();
  if (peer > 0 && (me == 0 || me == peer)) {
    // 4 MiB each way at once, five times; the best round is the link's rate in one direction.
    const size_t bytes = 4u << 20;
    std::vector<char> out(bytes, 1), in(bytes);
    const int other = me == 0 ? peer : 0;
    double best_us = 1e300;
    for (uint32_t round = 0; round < 5; ++round) {
      const double start = now_us();
      const RequestId r = transport.irecv(other, in.data(), bytes, round);
      const RequestId s = transport.isend(other, out.data(), bytes, round);
      bool received = false, sent = false;
      while (!received || !sent) {
        received = received || transport.test(r);
        sent = sent || transport.test(s);
      }
      best_us = std::min(best_us, now_us() - start);
    }
    rate = bytes / (best_us * 1e-6);
  }
  boot.barrier();
  return boot.max(rate);
}

}  // namespace arlab
