#!/usr/bin/env python3
"""The per-step tables of step-timeline.md, from the raw records in step-timeline-raw/.

Each raw line: run step start_us local_done_us complete_us (steady clock, shared by the nodes).
Usage: python3 step-timeline-table.py [step-timeline-raw]
"""
import glob, os, statistics, sys

raw = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "step-timeline-raw")
data = {}
for path in sorted(glob.glob(os.path.join(raw, "*.txt"))):
    node = os.path.basename(path)[:-4]
    data[node] = {}
    for line in open(path):
        run, step, start, local, done = line.split()
        data[node][(int(run), int(step))] = (float(start), float(local), float(done))
nodes = sorted(data)
REDUCES = (1, 3, 5)  # the ring at N = 4: transfer, reduce, transfer, reduce, transfer, reduce, 3 transfers
what = {s: "reduce 16 MiB" if s in REDUCES else
        "send/recv 16 MiB (" + ("reduce-scatter" if s < 6 else "all-gather") + ")" for s in range(9)}
ms = lambda node, run, step: (data[node][(run, step)][2] - data[node][(run, step)][0]) / 1e3
timed = [(1, "timed call 1, out of place"), (2, "timed call 2, out of place"),
         (4, "timed call 1, in place"), (5, "timed call 2, in place")]
for run, label in timed:
    print(f"\n### {label} (run {run} of the trace)\n")
    print("| step | what | " + " | ".join(f"{n} ms" for n in nodes) + " |")
    print("|---|---|" + "---|" * len(nodes))
    for s in range(9):
        print(f"| {s} | {what[s]} | " + " | ".join(f"{ms(n, run, s):.1f}" for n in nodes) + " |")
    call = [(data[n][(run, 8)][2] - data[n][(run, 0)][0]) / 1e3 for n in nodes]
    print("| all | first step's start to last step's end | " + " | ".join(f"{x:.1f}" for x in call) + " |")
transfers = [ms(n, r, s) for r, _ in timed for n in nodes for s in range(9) if s not in REDUCES]
reduces = [ms(n, r, s) for r, _ in timed for n in nodes for s in REDUCES]
print(f"\nTransfer steps (16 MiB each way): min {min(transfers):.1f} ms, median {statistics.median(transfers):.1f} ms, "
      f"max {max(transfers):.1f} ms, over {len(transfers)} (4 calls x 4 nodes x 6 steps).")
print(f"Reduce steps (16 MiB): min {min(reduces):.1f} ms, median {statistics.median(reduces):.1f} ms, max {max(reduces):.1f} ms.")
bits = 16 * 2**20 * 8
print(f"16 MiB at 1 Gbit/s: {bits / 1e9 * 1e3:.1f} ms; at the MTU-1500 payload ceiling (1448/1514 = 95.6 %): "
      f"{bits / 1e9 / (1448 / 1514) * 1e3:.1f} ms.")
