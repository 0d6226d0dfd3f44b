// `arlab bench --roofline`: the lowest time the hardware allows for an all-reduce of n bytes,
// next to every measured time.
//
// Inside a node the limit is memory bandwidth. However the algorithm splits the work, all N
// inputs must be read and all N outputs written: per rank, n bytes read and n written. The
// least a rank can do is read its block of every input and write the reduced block into its
// output (a reduce: (N+1)/N * n bytes moved), then write that block, still in its cache, into
// the other N-1 outputs ((N-1)/N * n bytes written, nothing read: half a copy's traffic). The
// bench measures the two loops this maps onto, at the same size and with every rank of the node
// running them at once, so caches and the shared memory bus count as they do for the all-reduce:
//   reduce(n)  dst = a op b over n bytes (reads 2n, writes n: 3n bytes moved)
//   copy(n)    dst = src over n bytes (2n bytes moved)
//   memory bound = (N+1)/(3N) * reduce(n) + (N-1)/(2N) * copy(n)
// On the host each loop is timed with cached stores and with streaming ones (straight to
// memory, no read of the line first; transports/streaming_copy.h), and the faster counts:
// arlab writes large outputs with streaming stores, so the bound must allow them too.
// For N = 2 that is half a reduce plus a quarter of a copy; where both loops move bytes at the
// same rate it is one copy of n, whatever N. One rank alone: one copy (out of place).
// (Until 2026-12 the bound charged the second part as a whole copy, (N-1)/N * copy(n): it
// assumed the reduced block is read back from memory, which the two-step path on symmetric
// memory does not do.)
//
// Between nodes the limit is each node's link: M nodes must each send and receive at least
// 2(M-1)/M * n bytes (with one rank per node, the familiar 2(N-1)/N * n), at the link rate
// given with --link-rate or measured by an exchange between two nodes. The bound is the larger
// of the two.
#pragma once

#include <cstdint>
#include <string>

#include "algorithms/datatype.h"
#include "transports/bootstrap.h"
#include "transports/device.h"
#include "transports/transport.h"

namespace arlab {

// Times of one copy and one reduce of n bytes, the slowest rank's, with every rank running.
struct MemoryLoopTimes {
  double copy_us = 0, reduce_us = 0;
};

double memory_bound_us(const MemoryLoopTimes& loops, int nranks);
double link_bound_us(double bytes, int nnodes, double link_bytes_per_second);
// The table header's account of how the bound was computed (host: the loops ran on the CPU,
// with cached and streaming stores).
std::string roofline_description(int nranks, int nnodes, double link_bytes_per_second, bool link_measured, bool host);

// Runs the two loops over `bytes` of the three buffers (each at least that long) on every
// rank at once; the best of a few rounds (a bound is the best the hardware does).
MemoryLoopTimes measure_memory_loops(Device& device, Bootstrap& boot, DataType type, RedOp op, char* dst,
                                     const char* a, const char* b, size_t bytes);

// Bytes per second between two nodes: rank 0 and the first rank on another host exchange
// messages both ways at once over `transport` (two-sided); the result is broadcast. The
// other ranks wait in a barrier. `hosts` is every rank's host name.
double measure_link_rate(Transport& transport, Bootstrap& boot, const std::vector<std::string>& hosts);

}  // namespace arlab
