#!/usr/bin/python3
"""Side-by-side summary of an `arlab bench -a auto,mpi --roofline` CSV, with the performance
targets of issue 8 checked against it.

    bench/compare.py RESULTS.csv [--ours auto] [--theirs mpi] > compare.md

For every size: both algorithms' time and busbw (out of place and in place), the ratio
ours / theirs of busbw (above 1: ours is faster), and the fraction of the roofline bound each
reaches. Then one line per target: met or NOT MET, with the worst size and its numbers.
Exit status 0 either way (targets are reported, not enforced); 2 for a file it cannot read.
"""
import argparse
import csv
import sys

KIB, MIB = 1 << 10, 1 << 20


def fail(message):
    print(f"compare.py: {message}", file=sys.stderr)
    sys.exit(2)


def read(path, ours, theirs):
    """{(algorithm, placement): {size: row}} for the two algorithms, and N."""
    table, nranks = {}, None
    try:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                if row.get("algorithm") not in (ours, theirs):
                    continue
                try:
                    size = int(row["size_bytes"])
                    row["time_us"] = float(row["time_us"])
                    row["busbw_gbs"] = float(row["busbw_gbs"])
                    row["bound_us"] = float(row.get("bound_us") or 0)
                    nranks = int(row["nranks"])
                except (KeyError, ValueError, TypeError):
                    fail(f"{path}: not an arlab bench CSV, or truncated")
                table.setdefault((row["algorithm"], row["placement"]), {})[size] = row
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    for algorithm in (ours, theirs):
        if (algorithm, "out") not in table:
            fail(f"{path}: no rows for '{algorithm}' (run bench with -a {ours},{theirs})")
    return table, nranks


def size_text(size):
    for unit, scale in (("MiB", MIB), ("KiB", KIB)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results")
    parser.add_argument("--ours", default="auto")
    parser.add_argument("--theirs", default="mpi")
    args = parser.parse_args()
    table, n = read(args.results, args.ours, args.theirs)
    ours, theirs = args.ours, args.theirs
    sizes = sorted(s for s in table[(ours, "out")] if s in table[(theirs, "out")] and s > 0)

    def ratio(size, placement):  # ours' busbw over theirs' = their time over ours
        return table[(theirs, placement)][size]["time_us"] / table[(ours, placement)][size]["time_us"]

    def roofline(algorithm, size, placement="out"):
        row = table[(algorithm, placement)][size]
        return 100 * row["bound_us"] / row["time_us"] if row["bound_us"] > 0 else None

    print(f"N = {n}: `{ours}` against `{theirs}`; ratio = {ours} busbw / {theirs} busbw (above 1: {ours} is faster)\n")
    print(f"| size | {ours} picks | {ours} us | {theirs} us | {ours} busbw | {theirs} busbw | ratio out | ratio in "
          f"| {ours} % roofline | {theirs} % roofline |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for s in sizes:
        a, b = table[(ours, "out")][s], table[(theirs, "out")][s]
        roof = [roofline(x, s) for x in (ours, theirs)]
        print(f"| {size_text(s)} | {a.get('chosen', '')} | {a['time_us']:.2f} | {b['time_us']:.2f} | {a['busbw_gbs']:.2f} "
              f"| {b['busbw_gbs']:.2f} | {ratio(s, 'out'):.2f} | {ratio(s, 'in'):.2f} | "
              + " | ".join("-" if r is None else f"{r:.0f}" for r in roof) + " |")

    # The targets: (what, sizes it covers, the value per size, the threshold, above or below).
    mid = 1.5 if n == 2 else 1.0
    targets = [
        (f"busbw >= {mid}x {theirs}, 64 KiB to 4 MiB", [s for s in sizes if 64 * KIB <= s <= 4 * MIB],
         lambda s: min(ratio(s, "out"), ratio(s, "in")), mid),
        (f"busbw >= 1.0x {theirs} at every size", sizes, lambda s: min(ratio(s, "out"), ratio(s, "in")), 1.0),
        (f"latency <= 1.0x {theirs}'s, 8 B to 1 KiB", [s for s in sizes if s <= KIB],
         lambda s: min(ratio(s, "out"), ratio(s, "in")), 1.0),
        ("at least 70 % of the roofline at 16 MiB and 64 MiB",
         [s for s in sizes if s in (16 * MIB, 64 * MIB) and roofline(ours, s) is not None],
         lambda s: roofline(ours, s) / 100, 0.70),
    ]
    print("\n| target | result | worst size | worst value |\n|---|---|---|---:|")
    for what, covered, value, threshold in targets:
        if not covered:
            print(f"| {what} | not measured (no such sizes in this run) | | |")
            continue
        worst = min(covered, key=value)
        verdict = "met" if value(worst) >= threshold else "**NOT MET**"
        print(f"| {what} | {verdict} | {size_text(worst)} | {value(worst):.2f} |")


if __name__ == "__main__":
    main()
