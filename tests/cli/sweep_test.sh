#!/usr/bin/env bash
# jobs/sweep end to end on a 4-node local cluster (jobs/local-cluster): a sweep over 1, 2 and 4
# nodes of 2 ranks, its report (every point, every result right, hier across several hosts),
# --watch; bad input (an unknown partition, more nodes than the cluster has: Slurm's message,
# exit 1, nothing left submitted); a point cancelled mid-run marked in the report and completed
# by --resume. The cluster goes down at the end, also when a check fails.
# usage: sweep_test.sh BUILD_DIR
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cluster=$root/jobs/local-cluster sweep=$root/jobs/sweep
source "$root/tests/cli/lib.sh"
source "$root/jobs/sweep-lib.sh"  # latest_jobs
export ARLAB_CLUSTER_DIR=$work/cluster

command -v slurmctld >/dev/null || { echo "skip: slurm-wlm not installed"; exit 77; }
ids=()
wait_for() {  # FILE SECONDS
  local deadline=$((SECONDS + $2))
  until [ -s "$1" ]; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.5
  done
}

# Without namespaces (not root, or ARLAB_TEST_NO_NETNS=1 to try this path here): the multi-node
# sweep is skipped, and a one-node sweep on `jobs/local-cluster up --single` runs instead.
if [ "${ARLAB_TEST_NO_NETNS:-0}" = 1 ] || [ "$(id -u)" != 0 ] || ! ip netns add arlab-probe 2>/dev/null; then
  echo "skip: the 4-node sweep needs root and network namespaces; trying a single-node local cluster instead"
  trap '"$cluster" down >/dev/null 2>&1; rm -rf "$root/results/"*/"single-$$" "$work"; rmdir "$root/results/arlab" 2>/dev/null' EXIT
  "$cluster" up --single --cpus-per-node 2 >"$work/up" 2>&1 || { echo "FAIL up --single: $(cat "$work/up")"; exit 1; }
  eval "$("$cluster" env)"
  "$sweep" --nodes 1 --ntasks-per-node 2 --algos ring,mpi -b 8 -e 4K -f 8 -n 3 -w 1 --name "single-$$" >"$work/submit" 2>&1
  report=$(ls "$root"/results/*/"single-$$"/report.md 2>/dev/null | head -1)
  [ -n "$report" ] || report=$(dirname "$(ls -d "$root"/results/*/"single-$$" | head -1)")/single-$$/report.md
  if wait_for "$report" 120 && grep -qE '^\| N2 \| [0-9]+ \| 1 \| COMPLETED \| .* \| 8 \| 0 \|$' "$report"; then
    pass "single-node local cluster: a one-node sweep completed, results right"
  else
    fail "single-node sweep: $(cat "$work/submit") $(grep '^| N' "$report" 2>/dev/null)"
  fi
  "$cluster" down >/dev/null 2>&1
  finish "sweep (single node)"
  exit
fi
ip netns del arlab-probe
cleanup() {
  "$cluster" down >/dev/null 2>&1
  for id in "${ids[@]}"; do rm -rf "$root/results/arlab/$id"; done
  rmdir "$root/results/arlab" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
"$cluster" up --nodes 4 --cpus-per-node 2 --rate 1gbit >"$work/up" 2>&1 || { echo "FAIL up: $(cat "$work/up")"; exit 1; }
eval "$("$cluster" env)"

id=e2e-$$
ids+=("$id")
dir=$root/results/arlab/$id
if "$sweep" --nodes 1,2,4 --ntasks-per-node 2 --algos ring,hier,mpi -b 8 -e 4K -f 8 -n 3 -w 1 --name "$id" >"$work/submit" 2>&1 &&
  wait_for "$dir/report.md" 240; then
  pass "sweep over 1, 2, 4 nodes submitted; the report job wrote report.md"
else
  fail "sweep: $(cat "$work/submit") $(cat "$dir/report.out" 2>/dev/null)"
fi
report=$dir/report.md
[ "$(grep -cE '^\| N(2|4|8) \| [0-9]+ \| [124] \| COMPLETED \| .* \| 12 \| 0 \|$' "$report")" -eq 3 ] && grep -q "Every point completed." "$report" &&
  pass "report: three points COMPLETED, 12 rows each, no wrong result" || fail "report points: $(grep '^| N' "$report")"
grep -q "^### hier" "$report" && grep -q "^hier on mpi: " "$report" && grep -q "plots/latency.png" "$report" &&
  pass "report: busbw tables, the fit and the plots" || fail "report sections: $(grep '^#' "$report" | tr '\n' ';')"
if /usr/bin/python3 - "$dir" <<'PY'
import json, sys
for point, nodes in (("N4", 2), ("N8", 4)):
    m = json.load(open(f"{sys.argv[1]}/{point}/allreduce.json"))["metadata"]
    assert m["nnodes"] == nodes and len(set(m["hosts"])) == nodes, (point, m["hosts"])
    assert "hier" in m["algorithms"]
PY
then pass "hier ran across 2 and 4 hosts"; else fail "hosts of the multi-node points"; fi
"$sweep" --watch "$id" >"$work/watch"
[ "$(grep -c COMPLETED "$work/watch")" -eq 4 ] && pass "--watch: three points and the report COMPLETED" || fail "watch: $(cat "$work/watch")"

# Bad input: Slurm's own message, exit 1, nothing left submitted or written.
"$sweep" --nodes 1 --partition nope --name bad-$$ >"$work/bad" 2>&1
status=$?
[ $status -eq 1 ] && grep -q "invalid partition specified: nope" "$work/bad" && [ ! -e "$root/results/arlab/bad-$$" ] &&
  pass "unknown partition: Slurm's message, exit 1, no sweep directory" || fail "unknown partition (exit $status): $(cat "$work/bad")"
"$sweep" --nodes 1,8 --ntasks-per-node 2 --name big-$$ >"$work/big" 2>&1
status=$?
# A cancelled job leaves the queue within a few seconds (COMPLETING first).
for _ in $(seq 1 50); do [ -z "$(squeue -h)" ] && break; sleep 0.2; done
[ $status -eq 1 ] && grep -q "sbatch for 8 nodes failed" "$work/big" && grep -q "cancelled" "$work/big" &&
  [ -z "$(squeue -h)" ] && pass "8 nodes of 4: the 1-node job already submitted is cancelled, exit 1" ||
  fail "too many nodes (exit $status): $(cat "$work/big"); queue: $(squeue -h)"

# A point cancelled mid-run: the report marks it; --resume completes it.
id=resume-$$
ids+=("$id")
dir=$root/results/arlab/$id
"$sweep" --nodes 4 --ntasks-per-node 2 --algos ring,hier,mpi -b 8 -e 64K -f 2 -n 30 -w 2 --name "$id" >"$work/r1" 2>&1
job=$(awk '$1 == "N8" { print $2 }' "$dir/jobs.txt")
deadline=$((SECONDS + 60))
until [ "$(cat "$dir/N8/status" 2>/dev/null)" = running ] || [ $SECONDS -ge $deadline ]; do sleep 0.2; done
sleep 1
scancel "$job"
if wait_for "$dir/report.md" 120 && grep -qE '^\| N8 \| [0-9]+ \| 4 \| CANCELLED' "$dir/report.md" && grep -q "1 point(s) failed or are missing" "$dir/report.md"; then
  pass "scancel mid-run: the report marks N8 CANCELLED"
else
  fail "cancelled point: $(grep '^| N8\|point(s)' "$dir/report.md" 2>/dev/null) status $(cat "$dir/N8/status" 2>/dev/null)"
fi
rm -f "$dir/report.md"
"$sweep" --resume "$id" >"$work/r2" 2>&1
job2=$(latest_jobs "$dir" | awk '$1 == "N8" { print $2 }')
if wait_for "$dir/report.md" 180 && grep -qE '^\| N8 \| [0-9]+ \| 4 \| COMPLETED \| .* \| 0 \|$' "$dir/report.md" && grep -q "Every point completed." "$dir/report.md"; then
  pass "--resume: N8 submitted again and completed"
else
  fail "resume: $(cat "$work/r2") $(grep '^| N8' "$dir/report.md" 2>/dev/null)
    N8 status: $(cat "$dir/N8/status" 2>/dev/null)
    jobs.txt: $(cat "$dir/jobs.txt" 2>/dev/null)
    slurm: $(scontrol -o show job "$job2" 2>&1 | grep -o 'JobState=[^ ]*\|Reason=[^ ]*\|ExitCode=[^ ]*\|StartTime=[^ ]*\|EndTime=[^ ]*' | tr '\n' ' ')
    N8.out: $(tail -c 1500 "$dir/N8.out" 2>/dev/null)
    report.out: $(tail -c 1500 "$dir/report.out" 2>/dev/null)
    bench.txt, its first 8 KB (the first error is near the top): $(head -c 8000 "$dir/N8/bench.txt" 2>/dev/null)
    Slurm's log lines on job $job2: $(grep -h "JobId=$job2 \|StepId=$job2\.\|\[$job2\.\|job $job2 \|job_id $job2 " "$ARLAB_CLUSTER_DIR"/log/slurm*.log 2>/dev/null | grep -i 'error\|fail\|kill\|timeout\|exit' | tail -20)"
fi

"$cluster" down >/dev/null 2>&1
ip netns list | grep -q "^arlab-" && fail "namespaces left after down" || pass "down: no namespaces left"
finish sweep
