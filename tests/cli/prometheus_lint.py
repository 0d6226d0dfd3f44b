#!/usr/bin/env python3
"""A strict checker of the Prometheus text exposition format (0.0.4), for the tests where
promtool (Debian's prometheus package) is not installed.

    prometheus_lint.py FILE.prom

Checks: every line ends in a newline; comments are '# HELP name text', '# TYPE name type' or
free text; metric and label names match the format's patterns; label values are quoted with
only \\\\, \\" and \\n escaped; values parse as floats (NaN, +Inf, -Inf allowed); an optional
integer timestamp; HELP and TYPE at most once per family and TYPE before the family's first
sample; a family's samples are contiguous; no series appears twice; no label twice in one
sample; no label name starting with __. Prints one line and exits 2 at the first violation,
prints the number of series and exits 0 otherwise.
"""
import re
import sys

METRIC = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
TYPES = {"counter", "gauge", "histogram", "summary", "untyped"}
FLOAT = re.compile(r"[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?|[-+]?Inf|NaN")


def fail(line_number, message):
    print(f"prometheus_lint: line {line_number}: {message}", file=sys.stderr)
    sys.exit(2)


def family_of(name, types):
    # histogram / summary samples belong to the family without their suffix
    for suffix in ("_bucket", "_count", "_sum"):
        if name.endswith(suffix) and types.get(name[: -len(suffix)]) in ("histogram", "summary"):
            return name[: -len(suffix)]
    return name


def parse_labels(text, i, n):
    """Parses '{a="x",b="y"}' starting at text[i] == '{'; returns (labels, index after '}')."""
    labels = []
    i += 1
    while True:
        if i < len(text) and text[i] == "}":
            return labels, i + 1
        m = LABEL.match(text, i)
        if not m:
            fail(n, f"bad label name at column {i + 1}")
        name = m.group(0)
        if name.startswith("__"):
            fail(n, f"label name {name} starts with __ (reserved)")
        i = m.end()
        if text[i : i + 2] != '="':
            fail(n, f'label {name}: expected =" at column {i + 1}')
        i += 2
        value = []
        while True:
            if i >= len(text):
                fail(n, f"label {name}: unterminated value")
            c = text[i]
            if c == "\\":
                if i + 1 >= len(text) or text[i + 1] not in '\\"n':
                    fail(n, f"label {name}: bad escape at column {i + 1}")
                value.append(text[i : i + 2])
                i += 2
            elif c == '"':
                i += 1
                break
            elif c == "\n":
                fail(n, f"label {name}: raw newline in value")
            else:
                value.append(c)
                i += 1
        labels.append((name, "".join(value)))
        if i < len(text) and text[i] == ",":
            i += 1
        elif i < len(text) and text[i] == "}":
            continue
        else:
            fail(n, f"expected , or }} after label {name} at column {i + 1}")


def main():
    if len(sys.argv) != 2:
        print("usage: prometheus_lint.py FILE.prom", file=sys.stderr)
        sys.exit(2)
    try:
        data = open(sys.argv[1], encoding="utf-8").read()
    except (OSError, UnicodeDecodeError) as e:
        print(f"prometheus_lint: {sys.argv[1]}: {e}", file=sys.stderr)
        sys.exit(2)
    if data and not data.endswith("\n"):
        fail(data.count("\n") + 1, "the last line does not end in a newline")
    types, helps, series, finished = {}, set(), set(), set()
    current = None
    for n, line in enumerate(data.split("\n")[:-1], start=1):
        if not line.strip():
            continue
        if line.startswith("#"):
            parts = line.split(" ", 3)
            if len(parts) >= 3 and parts[1] in ("HELP", "TYPE"):
                name = parts[2]
                if not METRIC.fullmatch(name):
                    fail(n, f"bad metric name {name!r} in {parts[1]}")
                if parts[1] == "HELP":
                    if name in helps:
                        fail(n, f"second HELP for {name}")
                    helps.add(name)
                else:
                    if name in types:
                        fail(n, f"second TYPE for {name}")
                    if len(parts) != 4 or parts[3] not in TYPES:
                        fail(n, f"TYPE {name}: type must be one of {', '.join(sorted(TYPES))}")
                    if any(family_of(s[0], types) == name for s in series):
                        fail(n, f"TYPE {name} after its first sample")
                    types[name] = parts[3]
            continue
        m = METRIC.match(line)
        if not m:
            fail(n, "a sample must start with a metric name")
        name = m.group(0)
        i = m.end()
        labels = []
        if i < len(line) and line[i] == "{":
            labels, i = parse_labels(line, i, n)
        names = [k for k, _ in labels]
        if len(names) != len(set(names)):
            fail(n, f"{name}: a label appears twice")
        rest = line[i:]
        if not rest.startswith(" "):
            fail(n, f"{name}: expected a space before the value")
        fields = rest.split()
        if len(fields) not in (1, 2):
            fail(n, f"{name}: expected a value and an optional timestamp")
        if not FLOAT.fullmatch(fields[0]):
            fail(n, f"{name}: value {fields[0]!r} is not a float")
        if len(fields) == 2 and not re.fullmatch(r"-?\d+", fields[1]):
            fail(n, f"{name}: timestamp {fields[1]!r} is not an integer")
        family = family_of(name, types)
        if family != current:
            if family in finished:
                fail(n, f"samples of {family} are not contiguous")
            if current is not None:
                finished.add(current)
            current = family
        key = (name, tuple(sorted(labels)))
        if key in series:
            fail(n, f"{name}{{{','.join(f'{k}={v}' for k, v in sorted(labels))}}} appears twice")
        series.add(key)
    print(f"prometheus_lint: {sys.argv[1]}: {len(series)} series, {len(types)} families, valid")


if __name__ == "__main__":
    main()
