#!/usr/bin/env python3
"""Plots of `arlab bench` results (matplotlib, Debian's python3-matplotlib).

    harness/plot.py busbw RESULTS.csv [MORE.csv ...] -o busbw.png
    harness/plot.py fit FIT.json -o latency.png          (written by `arlab fit --plot`)
    harness/plot.py versus VERSUS.json -o simulated.png   (written by `arlab plot`)

busbw: bus bandwidth against message size, one line per algorithm (out-of-place).
fit: measured times and the fitted model against size, and the smallest size's time against N
with straight lines in N and in log2 N (the latency term's scaling).
versus: measured time against the time `arlab sim` predicts with the fitted parameters.
Bad input gives one line on stderr and exit status 2.
"""
import argparse
import csv
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

REQUIRED = {"algorithm", "transport", "nranks", "size_bytes", "placement", "busbw_gbs", "time_us"}


def fail(message):
    print(f"plot.py: {message}", file=sys.stderr)
    sys.exit(2)


def read_rows(paths):
    rows = []
    for path in paths:
        try:
            with open(path, newline="") as f:
                reader = csv.DictReader(f)
                if not reader.fieldnames or not REQUIRED <= set(reader.fieldnames):
                    fail(f"{path}: not an arlab bench CSV (needs columns {', '.join(sorted(REQUIRED))})")
                for row in reader:
                    try:
                        row["size_bytes"] = int(row["size_bytes"])
                        row["busbw_gbs"] = float(row["busbw_gbs"])
                        row["nranks"] = int(row["nranks"])
                    except (ValueError, TypeError):
                        fail(f"{path}: line {reader.line_num}: a value is not a number (truncated file?)")
                    rows.append(row)
        except OSError as e:
            fail(f"{path}: {e.strerror}")
    if not rows:
        fail("no results in " + ", ".join(paths))
    return rows


def plot_busbw(rows, output):
    fig, ax = plt.subplots(figsize=(8, 5))
    series = {}
    # bench --roofline's bound (bound_us), drawn as the bus bandwidth it allows: one line per N.
    roofline = {}
    for r in rows:
        if r["placement"] != "out" or r["size_bytes"] == 0:
            continue
        key = f'{r["algorithm"]} ({r["transport"]}, N={r["nranks"]})'
        series.setdefault(key, []).append((r["size_bytes"], r["busbw_gbs"]))
        bound = float(r.get("bound_us") or 0)
        if bound > 0:
            n = r["nranks"]
            busbw = r["size_bytes"] / (bound * 1e3) * (2 * (n - 1) / n if n > 1 else 0)
            roofline.setdefault(f"roofline (N={n})", {})[r["size_bytes"]] = busbw
    for key, points in sorted(roofline.items()):
        sizes = sorted(points)
        ax.plot(sizes, [points[s] for s in sizes], color="black", linestyle="--", label=key)
    for key, points in sorted(series.items()):
        points.sort()
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=key)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("bus bandwidth (GB/s)")
    ax.set_title("all-reduce bus bandwidth, out of place")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    save(fig, output)


def save(fig, output):
    fig.tight_layout()
    # Written beside the target, then renamed: an interrupted run never leaves half a PNG.
    partial = output + ".partial.png"
    try:
        fig.savefig(partial, dpi=110)
        os.replace(partial, output)
    except OSError as e:
        fail(f"{output}: {e.strerror}")


def read_json(path, schema):
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    except ValueError:
        fail(f"{path}: not valid JSON (truncated file?)")
    if not isinstance(doc, dict) or doc.get("schema") != schema or not isinstance(doc.get("groups"), list):
        fail(f"{path}: not an {schema} file")
    return doc["groups"]


def fit_line(xs, ys):
    n = len(xs)
    sx, sy = sum(xs), sum(ys)
    sxx, sxy = sum(x * x for x in xs), sum(x * y for x, y in zip(xs, ys))
    b = (n * sxy - sx * sy) / (n * sxx - sx * sx) if n * sxx != sx * sx else 0.0
    return (sy - b * sx) / n, b


def plot_fit(groups, output):
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5))
    for g in groups:
        if not g.get("fitted") or not g.get("points"):
            continue
        label = f'{g["algorithm"]} ({g["transport"]})'
        largest = max(p["nranks"] for p in g["points"])
        points = sorted((p["bytes"], p["seconds"] * 1e6, p["predicted"] * 1e6) for p in g["points"] if p["nranks"] == largest)
        line = left.plot([p[0] for p in points], [p[2] for p in points], label=f"{label} N={largest}: fitted")[0]
        left.plot([p[0] for p in points], [p[1] for p in points], "o", color=line.get_color(), label=f"{label}: measured")
        series = g.get("latency") or []
        if len(series) >= 2:
            ns = [s["nranks"] for s in series]
            ts = [s["seconds"] * 1e6 for s in series]
            right.plot(ns, ts, "o", color=line.get_color(), label=f"{label}: measured")
            a, b = fit_line([n - 1 for n in ns], ts)
            right.plot(ns, [a + b * (n - 1) for n in ns], "-", color=line.get_color(), label=f"{label}: a + b (N-1)")
            a, b = fit_line([math.log2(n) for n in ns], ts)
            right.plot(ns, [a + b * math.log2(n) for n in ns], ":", color=line.get_color(), label=f"{label}: a + b log2 N")
    left.set_xscale("log", base=2)
    left.set_yscale("log")
    left.set_xlabel("message size (bytes)")
    left.set_ylabel("time (us)")
    left.set_title("measured and fitted (alpha rounds + beta bytes + gamma reduced)")
    right.set_xlabel("ranks N")
    right.set_ylabel("time at the smallest size (us)")
    right.set_title("the latency term against N")
    for ax in (left, right):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    save(fig, output)


def plot_versus(groups, output):
    fig, ax = plt.subplots(figsize=(7, 6))
    everything = []
    for g in groups:
        pts = [(p["measured"] * 1e6, p["simulated"] * 1e6) for p in g.get("points", []) if p["measured"] > 0 and p["simulated"] > 0]
        if not pts:
            continue
        everything += pts
        ax.plot([p[1] for p in pts], [p[0] for p in pts], "o", label=f'{g["algorithm"]} ({g["transport"]})')
    if not everything:
        fail("no points to compare")
    lo = min(min(p) for p in everything) / 1.5
    hi = max(max(p) for p in everything) * 1.5
    ax.plot([lo, hi], [lo, hi], "k-", linewidth=0.8, label="measured = simulated")
    ax.plot([lo, hi], [lo * 1.3, hi * 1.3], "k:", linewidth=0.8, label="+-30 %")
    ax.plot([lo, hi], [lo / 1.3, hi / 1.3], "k:", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("simulated with the fitted parameters (us)")
    ax.set_ylabel("measured (us)")
    ax.set_title("arlab sim against arlab bench")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    save(fig, output)


def check_output(path):
    directory = os.path.dirname(path) or "."
    if not os.path.isdir(directory):
        fail(f"-o {path}: directory {directory} does not exist")
    if not os.access(directory, os.W_OK):
        fail(f"-o {path}: cannot write in {directory}")
    if os.path.isdir(path):
        fail(f"-o {path}: is a directory")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=["busbw", "fit", "versus"])
    parser.add_argument("results", nargs="+")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    check_output(args.output)
    if args.kind == "busbw":
        plot_busbw(read_rows(args.results), args.output)
    elif args.kind == "fit":
        plot_fit(read_json(args.results[0], "arlab.fit.v1"), args.output)
    else:
        plot_versus(read_json(args.results[0], "arlab.versus.v1"), args.output)


if __name__ == "__main__":
    main()
