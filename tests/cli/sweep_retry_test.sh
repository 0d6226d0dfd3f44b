#!/usr/bin/env bash
# jobs/allreduce-sweep.sbatch's retry of a launch that fails at start-up (ARLAB_RETRIES,
# jobs/sweep --retries), outside Slurm (ARLAB_LAUNCHER=mpirun, one rank): the binary is a
# wrapper that fails its first launches before any row, as a rank that dies in MPI_Init does,
# then runs arlab. Checks what is retried (a failure before the first row, also where an earlier
# job left rows), what never is (bad input, a failure after a row, ARLAB_RETRIES=0, more
# failures than retries), that each failed attempt's output is kept, and the report's list.
# usage: sweep_retry_test.sh BUILD_DIR
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: sweep_retry_test.sh BUILD_DIR}" && pwd)
source "$root/tests/cli/lib.sh"
command -v mpirun >/dev/null || { echo "skip: mpirun not installed"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset SLURM_NTASKS SLURM_JOB_ID

# The wrapper: launch k (counted in $work/launches) fails before arlab starts while k <= FAILS;
# with FAIL_AFTER=1 it runs arlab (rows written) and then exits 1.
cat >"$work/flaky-arlab" <<EOF
#!/usr/bin/env bash
k=\$((\$(cat "$work/launches" 2>/dev/null || echo 0) + 1))
echo \$k >"$work/launches"
if [ \$k -le \${FAILS:-0} ]; then
  echo "[n3:20899] Caught signal 11 (Segmentation fault: address not mapped to object at address (nil))" >&2
  exit 139
fi
"$build/arlab" "\$@" || exit
[ "\${FAIL_AFTER:-0}" = 1 ] && exit 1
exit 0
EOF
chmod +x "$work/flaky-arlab"

# point NAME [VAR=VALUE...]: run one point into $work/NAME/N1; its exit status in $work/NAME/rc.
point() {
  local name=$1
  shift
  rm -f "$work/launches"
  mkdir -p "$work/$name"
  env ARLAB_OUT="$work/$name" ARLAB_BIN="$work/flaky-arlab" ARLAB_LAUNCHER=mpirun ARLAB_ALGOS=ring \
    ARLAB_MIN=8 ARLAB_MAX=64 ARLAB_FACTOR=8 ARLAB_ITERS=2 ARLAB_WARMUP=1 "$@" \
    timeout 120 "$root/jobs/allreduce-sweep.sbatch" >/dev/null 2>&1
  echo $? >"$work/$name/rc"
}
rows() { grep -c ',out,' "$work/$1/N1/allreduce.csv" 2>/dev/null || echo 0; }

point once FAILS=1
d=$work/once/N1
if [ "$(cat "$work/once/rc")" = 0 ] && [ "$(cat "$d/status")" = done ] && [ "$(rows once)" -gt 0 ] &&
  grep -q "^retried: attempt 1 exited [1-9][0-9]* before its first row (.*Segmentation fault.*); its output: bench.attempt1.txt$" "$d/meta.txt" &&
  grep -q "Segmentation fault" "$d/bench.attempt1.txt" && grep -q "Out of bounds values : 0 OK" "$d/bench.txt" &&
  [ "$(cat "$work/launches")" = 2 ] && [ ! -e "$d/.attempt" ]; then
  pass "a launch that dies before its first row is launched again: done, the failed attempt's output kept, meta.txt says so"
else
  fail "retry once: rc $(cat "$work/once/rc"), status $(cat "$d/status"), $(rows once) rows, launches $(cat "$work/launches"); $(grep retried "$d/meta.txt")"
fi

point twice FAILS=2
d=$work/twice/N1
[ "$(cat "$work/twice/rc")" != 0 ] && grep -q "^failed (exit [1-9]" "$d/status" && [ "$(grep -c '^retried:' "$d/meta.txt")" = 1 ] &&
  [ -e "$d/bench.attempt1.txt" ] && [ "$(cat "$work/launches")" = 2 ] &&
  pass "more start-up failures than --retries: the point fails after one retry" ||
  fail "two failures, one retry: rc $(cat "$work/twice/rc"), status $(cat "$d/status"), launches $(cat "$work/launches")"

point never FAILS=1 ARLAB_RETRIES=0
d=$work/never/N1
[ "$(cat "$work/never/rc")" != 0 ] && grep -q "^failed" "$d/status" && ! grep -q '^retried:' "$d/meta.txt" && [ "$(cat "$work/launches")" = 1 ] &&
  pass "ARLAB_RETRIES=0: never launched again" || fail "retries 0: status $(cat "$d/status"), launches $(cat "$work/launches")"

point after FAIL_AFTER=1
d=$work/after/N1
[ "$(cat "$work/after/rc")" = 1 ] && [ "$(cat "$d/status")" = "failed (exit 1)" ] && [ "$(rows after)" -gt 0 ] && [ "$(cat "$work/launches")" = 1 ] &&
  pass "a failure after rows were written is not retried" || fail "failure after rows: status $(cat "$d/status"), launches $(cat "$work/launches")"

point bad ARLAB_EXTRA=--no-such-flag
d=$work/bad/N1
[ "$(cat "$work/bad/rc")" = 2 ] && [ "$(cat "$work/launches")" = 1 ] && ! grep -q '^retried:' "$d/meta.txt" &&
  pass "bad input (exit 2) is not retried" || fail "bad input: rc $(cat "$work/bad/rc"), launches $(cat "$work/launches")"

point bad-count ARLAB_RETRIES=x
[ "$(cat "$work/bad-count/rc")" = 2 ] && grep -q "ARLAB_RETRIES 'x': a count" "$work/bad-count/N1/status" && [ ! -e "$work/launches" ] &&
  pass "ARLAB_RETRIES=x: status says why, exit 2, nothing launched" || fail "ARLAB_RETRIES=x: $(cat "$work/bad-count/N1/status")"

# A resumed point: rows an earlier (cancelled) job left in the CSV do not count as this attempt's.
mkdir -p "$work/resumed/N1"
cp "$work/once/N1/allreduce.csv" "$work/resumed/N1/allreduce.csv"
touch -d '1 hour ago' "$work/resumed/N1/allreduce.csv"
point resumed FAILS=1
[ "$(cat "$work/resumed/rc")" = 0 ] && grep -q '^retried: attempt 1' "$work/resumed/N1/meta.txt" &&
  pass "a resumed point whose CSV holds an earlier job's rows is still retried" ||
  fail "resumed point: rc $(cat "$work/resumed/rc"), launches $(cat "$work/launches")"

# The report lists the retry.
echo "N1 1 1" >"$work/once/jobs.txt"
if [ -x "$root/build/arlab" ]; then
  env -u SLURM_CONF "$root/jobs/sweep-report" "$work/once" >/dev/null 2>&1
  grep -q "^Launched again after a start-up failure" "$work/once/report.md" &&
    grep -q "^- N1: attempt 1 exited [1-9][0-9]* before its first row" "$work/once/report.md" &&
    pass "report.md lists the point launched again" || fail "report: $(grep -A3 'Launched again' "$work/once/report.md" 2>/dev/null)"
else
  skip "report.md's list of retries: jobs/sweep-report needs build/arlab in the checkout"
fi
finish "sweep retry"
