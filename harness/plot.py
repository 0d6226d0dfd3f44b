#!/usr/bin/env python3
"""Plots of `arlab bench` results (matplotlib, Debian's python3-matplotlib).

    harness/plot.py busbw RESULTS.csv [MORE.csv ...] -o busbw.png

busbw: bus bandwidth against message size, one line per algorithm (out-of-place).
Bad input gives one line on stderr and exit status 2.
"""
import argparse
import csv
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
    for r in rows:
        if r["placement"] != "out" or r["size_bytes"] == 0:
            continue
        key = f'{r["algorithm"]} ({r["transport"]}, N={r["nranks"]})'
        series.setdefault(key, []).append((r["size_bytes"], r["busbw_gbs"]))
    for key, points in sorted(series.items()):
        points.sort()
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=key)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("bus bandwidth (GB/s)")
    ax.set_title("all-reduce bus bandwidth, out of place")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    # Written beside the target, then renamed: an interrupted run never leaves half a PNG.
    partial = output + ".partial.png"
    try:
        fig.savefig(partial, dpi=110)
        os.replace(partial, output)
    except OSError as e:
        fail(f"{output}: {e.strerror}")


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
    parser.add_argument("kind", choices=["busbw"])
    parser.add_argument("results", nargs="+")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    check_output(args.output)
    plot_busbw(read_rows(args.results), args.output)


if __name__ == "__main__":
    main()
