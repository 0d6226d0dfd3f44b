#!/usr/bin/env bash
# arlab bench --trace: a Chrome trace (Perfetto) with a process per rank, each schedule step of
# one extra call per algorithm and size as a slice inside its call, and one slice per call for
# what has no schedule (MPI_Allreduce, the slot paths).
# usage: trace_test.sh BUILD_DIR
set -u
build=$1
arlab=$build/arlab
here=$(cd "$(dirname "$0")" && pwd)
PYTHON=/usr/bin/python3; [ -x "$PYTHON" ] || PYTHON=python3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
source "$here/lib.sh"

if timeout 120 mpirun -q --oversubscribe -np 2 "$arlab" bench -a ring,auto,mpi -t shm -b 1K -e 64K -f 64 -n 2 -w 1 -c 1 \
    --trace "$work/t.json" >/dev/null; then
  pass "bench --trace under mpirun -np 2"
else
  fail "bench --trace did not run"
fi
# The schedule's own step count for rank 0 of ring at N = 2, 1 KiB of float32.
steps=$("$arlab" explain -a ring -N 2 --rank 0 --count 256 | sed -n 's/^rank 0: \([0-9]*\) steps.*/\1/p')
[ -n "$steps" ] && [ "$steps" -ge 2 ] && pass "explain: ring N = 2 has $steps steps per rank" || fail "explain step count '$steps'"

# Every check on the file, one line each: "ok ..." or "FAIL ...".
"$PYTHON" - "$work/t.json" "$steps" >"$work/checks" 2>&1 <<'PY'
import collections, json, sys
path, steps = sys.argv[1], int(sys.argv[2])
def check(ok, what): print(("ok " if ok else "FAIL ") + what)
try:
    events = json.load(open(path))["traceEvents"]
except Exception as e:
    check(False, f"the trace is JSON with traceEvents: {e}"); sys.exit()
check(True, "the trace is JSON with traceEvents")
names = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
check(sorted(names) == [0, 1] and all(names[r].startswith(f"rank {r} (") for r in names), f"a process per rank: {names}")
calls = [e for e in events if e["ph"] == "X" and e.get("cat") == "call"]
spans = [e for e in events if e["ph"] == "X" and e.get("cat") == "step"]
labels = sorted({c["name"] for c in calls})
check(len(labels) == 6 and all(sum(c["name"] == l for c in calls) == 2 for l in labels),
      f"3 algorithms x 2 sizes, each call on both ranks: {labels}")
by_call = collections.defaultdict(list)
for s in spans: by_call[(s["pid"], s["args"]["call"])].append(s)
ring = [v for (pid, l), v in by_call.items() if l.startswith("ring ")]
check(len(ring) == 4 and all(len(v) == steps for v in ring), f"ring: {steps} step slices per rank per call: {[len(v) for v in ring]}")
check(all(v[i]["name"].startswith(f"step {i}: ") for v in ring for i in range(len(v))), "ring's slices named step 0, 1, ... with their ops")
mpi = [v for (pid, l), v in by_call.items() if l.startswith("mpi ")]
check(len(mpi) == 4 and all(len(v) == 1 and "no schedule steps" in v[0]["name"] for v in mpi), "mpi: one slice per call")
check(all(s["dur"] >= 0 for s in spans), "no negative durations")
inside = lambda s, c: c["ts"] - 1e-6 <= s["ts"] and s["ts"] + s["dur"] <= c["ts"] + c["dur"] + 1e-6
check(all(any(c["pid"] == s["pid"] and c["name"] == s["args"]["call"] and inside(s, c) for c in calls) for s in spans),
      "every step slice lies within its call")
ordered = sorted(calls, key=lambda c: (c["pid"], c["ts"]))
check(all(a["ts"] + a["dur"] <= b["ts"] for a, b in zip(ordered, ordered[1:]) if a["pid"] == b["pid"]), "calls do not overlap")
PY
while read -r verdict what; do
  [ "$verdict" = ok ] && pass "$what" || fail "$what"
done <"$work/checks"
[ -s "$work/checks" ] || fail "the checker printed nothing"

expect_usage_error "an unwritable --trace path is one line, exit 2" "--trace /nonexistent/x.json: directory /nonexistent does not exist" \
  "$arlab" bench --trace /nonexistent/x.json

finish trace
