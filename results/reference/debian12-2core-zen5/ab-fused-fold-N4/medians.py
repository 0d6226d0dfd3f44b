#!/usr/bin/env python3
# Medians of ab.log (ab.sh's output): per buffers, size and placement, base and new times (us)
# and the out-of-place % of the roofline bound of each run.
import collections, re, statistics, sys

runs = collections.defaultdict(list)
current = None
for line in open(sys.argv[1] if len(sys.argv) > 1 else "ab.log"):
    m = re.match(r"### (\w+) ?(\S*) run", line)
    if m:
        current = (m.group(1), m.group(2) or "private")
        continue
    f = line.split()
    if len(f) > 10 and f[0].isdigit():  # size count type op root | time algbw busbw wrong (out, in) | bound %out %in
        runs[(current[1], int(f[0]) >> 20, "out")].append((current[0], float(f[5]), float(f[-4])))
        runs[(current[1], int(f[0]) >> 20, "in")].append((current[0], float(f[9]), None))
print(f"{'buffers':12} {'MiB':>4} {'place':5} {'base us':>9} {'new us':>9} {'new/base':>8}  % roofline (out of place) base | new")
for key in sorted(runs):
    base = [r for r in runs[key] if r[0] == "base"]
    new = [r for r in runs[key] if r[0] == "new"]
    b, n = statistics.median(r[1] for r in base), statistics.median(r[1] for r in new)
    roof = "" if key[2] == "in" else " ".join(f"{r[2]:.0f}" for r in base) + " | " + " ".join(f"{r[2]:.0f}" for r in new)
    print(f"{key[0]:12} {key[1]:>4} {key[2]:5} {b:9.0f} {n:9.0f} {n / b:8.2f}  {roof}")
