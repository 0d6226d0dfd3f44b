#!/usr/bin/env bash
# No silent hangs, nothing lost (issue: reliability). For each transport that runs here
# (mpi, shm, ucx) a 3-rank sweep is disturbed once it is timing:
#  - rank 1 stops (SIGSTOP): the others must report what they wait for (which step, which
#    peer) and end the job non-zero within --timeout + 10 s;
#  - rank 1 is killed (SIGKILL): the job must end non-zero within --timeout + 10 s, the others
#    saying where they were (also when UCX aborts on the dead peer's memory), no backtrace.
# Then SIGTERM to every rank (what scancel does) must keep the CSV and JSON written so far
# valid and end the run within seconds, and ranks given different arguments must stop with
# one line naming the argument and the ranks. After all of it nothing new may be left in
# /dev/shm (the test runs alone, RUN_SERIAL, so every new name is this test's), except Open
# MPI's own vader_segment files, which an aborted Open MPI job sometimes leaves: reported.
# usage: reliability_test.sh BUILD_DIR
set -u
arlab=$1/arlab
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 UCX_TLS=self,sm
timeout_s=3
passed=0 failed=0
work=$(mktemp -d)
trap 'pkill -CONT -f "seed 4242424242" 2>/dev/null; rm -rf "$work"' EXIT
pass() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; }

shm_names() { ls /dev/shm 2>/dev/null | sort; }
# The pid of world rank R of the running test job (Open MPI puts the rank in each process's environment).
rank_pid() {
  local p
  for p in $(pgrep -f "seed 4242424242"); do
    tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1" && { echo "$p"; return; }
  done
}
# start_sweep TRANSPORT OUT [ARGS...]: a long 3-rank sweep in the background; returns once it is timing.
start_sweep() {
  local transport=$1 out=$2
  shift 2
  timeout 120 mpirun -x UCX_TLS --oversubscribe -np 3 "$arlab" bench --seed 4242424242 -t "$transport" -a ring \
    -b 64K -e 64K -n 100000000 -w 0 -c 0 --timeout $timeout_s "$@" >"$out" 2>&1 &
  job=$!
  for _ in $(seq 120); do grep -q "algorithm: ring" "$out" && break; sleep 0.5; done
  sleep 0.5
}
seconds_since() { printf "%.1f" "$(echo "$(date +%s.%N) - $1" | bc)"; }

before=$(shm_names)
for transport in mpi shm ucx; do
  start_sweep "$transport" "$work/stop"
  victim=$(rank_pid 1)
  kill -STOP "$victim"
  t0=$(date +%s.%N)
  wait $job
  status=$?
  took=$(seconds_since "$t0")
  kill -CONT "$victim" 2>/dev/null
  if [ "$status" -ne 0 ] && [ "$status" -ne 124 ] && [ "$(echo "$took < $timeout_s + 10" | bc)" = 1 ] &&
    grep -Eq "^arlab: rank [02] on .*: no progress for [0-9]+ s.* during ring on $transport, 64K" "$work/stop"; then
    pass "-t $transport: a stopped rank: the job ends (exit $status) in $took s, naming what it waits for"
  else
    fail "-t $transport: a stopped rank: exit $status after $took s: $(grep -v '^#' "$work/stop" | head -5)"
  fi
  if [ "$transport" = mpi ] && ! grep -Eq "waits for (a message from rank 1|rank 1 to take a message)" "$work/stop"; then
    fail "-t mpi: the report does not name the peer: $(grep '^arlab:' "$work/stop" | head -2)"
  fi

  start_sweep "$transport" "$work/kill"
  kill -9 "$(rank_pid 1)"
  t0=$(date +%s.%N)
  wait $job
  status=$?
  took=$(seconds_since "$t0")
  # The launcher ends the others (SIGTERM): each says what it was doing; or their watchdog does.
  if [ "$status" -ne 0 ] && [ "$status" -ne 124 ] && [ "$(echo "$took < $timeout_s + 10" | bc)" = 1 ] &&
    grep -Eq "^arlab: rank [02] on .*(terminated \(SIGTERM\)|no progress for [0-9]+ s|aborted \(SIGABRT, raised inside a library).* during ring on $transport, 64K" "$work/kill" &&
    ! grep -q "backtrace" "$work/kill"; then
    pass "-t $transport: a rank killed with SIGKILL: the job ends (exit $status) in $took s, the others say where they were"
  else
    fail "-t $transport: SIGKILL: exit $status after $took s: $(grep -v '^#' "$work/kill" | head -5)"
  fi
done
pgrep -f "seed 4242424242" >/dev/null && fail "ranks still running: $(pgrep -af 'seed 4242424242')"

# SIGTERM to every rank mid-sweep (scancel): quick end, files valid, rows so far kept.
timeout 120 mpirun --oversubscribe -np 2 "$arlab" bench --seed 4242424242 -a ring,rd -b 8 -e 64M -f 2 -n 200 -w 1 -c 1 \
  --csv "$work/r.csv" --json "$work/r.json" >"$work/term" 2>&1 &
job=$!
for _ in $(seq 120); do [ "$(cat "$work/r.csv" 2>/dev/null | grep -c '^ring,')" -ge 6 ] && break; sleep 0.5; done
pkill -TERM -f "^$arlab bench --seed 4242424242"  # the ranks, as scancel signals every task
t0=$(date +%s.%N)
wait $job
status=$?
took=$(seconds_since "$t0")
if [ "$status" -ne 0 ] && [ "$(echo "$took < 5" | bc)" = 1 ] &&
  python3 -c "
import csv, json, sys
d = json.load(open('$work/r.json'))
rows = list(csv.DictReader(open('$work/r.csv')))
sys.exit(0 if d['complete'] is False and len(d['results']) >= 6 and len(rows) >= 6 and all(r['busbw_gbs'] for r in rows) else 1)" &&
  ! ls "$work"/*.tmp >/dev/null 2>&1 && grep -q "terminated (SIGTERM) during ring on mpi" "$work/term"; then
  pass "SIGTERM: ends in $took s, CSV and JSON valid with the rows so far, JSON marked incomplete"
else
  fail "SIGTERM: exit $status after $took s: $(tail -3 "$work/term"); $(ls "$work")"
fi

# Ranks started with different arguments (a broken launcher line): one line, exit 2, no hang.
timeout 60 mpirun -np 1 "$arlab" bench -a ring -e 1M : -np 2 "$arlab" bench -a ring -e 2M >"$work/out" 2>"$work/err"
status=$?
if [ "$status" -eq 2 ] && [ "$(grep -c '^arlab bench:' "$work/err")" -eq 1 ] &&
  grep -q "ranks disagree on -e: rank 0 has 1048576, rank(s) 1 (2097152), 2 (2097152) differ" "$work/err"; then
  pass "different -e on two ranks: one line naming the argument and the ranks, exit 2"
else
  fail "different arguments: exit $status: $(head -3 "$work/err")"
fi

sleep 1  # the launcher's clean-up of the ended jobs
new=$(comm -13 <(echo "$before") <(shm_names))
left=$(echo "$new" | grep -v '^vader_segment\.' | tr '\n' ' ')
if [ -z "${left// /}" ]; then
  pass "nothing of arlab's or UCX's left in /dev/shm"
else
  fail "left in /dev/shm: $left"
fi
vader=$(echo "$new" | grep -c '^vader_segment\.' || true)
[ "$vader" -eq 0 ] || echo "note: Open MPI left $vader vader_segment file(s) of its aborted jobs in /dev/shm (its own, not arlab's)"

echo "reliability: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
