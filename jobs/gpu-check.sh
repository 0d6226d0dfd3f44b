#!/usr/bin/env bash
# The GPU checks, for a machine with NVIDIA GPUs (CUDA toolkit; MPI for the multi-GPU check).
# One PASS / FAIL / SKIP line per check, then a summary; exit 1 if any check failed.
#
#   jobs/gpu-check.sh                 configure and build build-gpu/ for this machine's GPUs, then check
#   jobs/gpu-check.sh --bin DIR       use binaries built elsewhere (arlab, arlab_cuda_tests,
#                                     cuda_reducer_bandwidth in DIR), e.g. on a GPU node without a compiler
#
# Checks:
#   cuda-reducers   every datatype x operation of the CUDA reducers (and avg's division and the
#                   result-check kernel) against the CPU reducers, bit for bit
#   bandwidth       each datatype's reduce kernel reaches >= 70% of cudaMemcpy device-to-device
#                   bandwidth, counting the bytes each moves (both measured in the same run)
#   bench-1gpu      arlab bench --device cuda -t nccl -a ring,tree,nccl at N = 1, results checked
#   bench-ngpu      with G >= 2 GPUs: mpirun -np G arlab bench --device cuda -a ring,nccl -t nccl -c 1
#   bad-input       --device cuda with -t mpi (not CUDA-aware) exits 2 with one line
# Environment: MPIRUN (default mpirun), BENCH_MAX (largest size, default 64M).
set -uo pipefail
cd "$(dirname "$0")/.."

BIN=""
if [ "${1:-}" = "--bin" ]; then BIN=$2; fi
MPIRUN=${MPIRUN:-mpirun}
BENCH_MAX=${BENCH_MAX:-64M}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
passed=0 failed=0 skipped=0
LOG=${GPU_CHECK_LOG:-gpu-check.log}
: >"$LOG"

result() {  # result NAME STATUS DETAIL
  printf '%-5s %-14s %s\n' "$2" "$1" "$3"
  case $2 in PASS) passed=$((passed + 1)) ;; FAIL) failed=$((failed + 1)) ;; *) skipped=$((skipped + 1)) ;; esac
}

gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
echo "gpu-check: $gpus GPU(s): $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
if [ "$gpus" -lt 1 ]; then
  echo "gpu-check: no NVIDIA GPU visible (nvidia-smi -L lists none); nothing to check" >&2
  exit 2
fi

if [ -z "$BIN" ]; then
  BIN=build-gpu
  if ! { cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=native -DARLAB_WITH_CUDA=ON &&
         cmake --build build-gpu -j "$(nproc)"; } >>"$LOG" 2>&1; then
    result build FAIL "configure or build failed (see $LOG)"
    echo "gpu-check: $passed passed, $failed failed, $skipped skipped"
    exit 1
  fi
  cp build-gpu/tests/arlab_cuda_tests build-gpu/bench/cuda_reducer_bandwidth build-gpu/ 2>/dev/null
fi

if out=$(timeout 180 "$BIN/arlab_cuda_tests" 2>&1); then
  result cuda-reducers PASS "$(echo "$out" | grep -E '^\[  PASSED' | head -1)"
else
  result cuda-reducers FAIL "$(echo "$out" | grep -E 'FAILED|Failure|first difference' | head -3 | tr '\n' ' ')"
fi
echo "$out" >>"$LOG"

if out=$(timeout 120 "$BIN/cuda_reducer_bandwidth" 256M --min-ratio 0.7 2>&1); then
  result bandwidth PASS "every datatype >= 0.7 x cudaMemcpy"
else
  result bandwidth FAIL "$(echo "$out" | grep -c BELOW) datatype(s) below 0.7 x cudaMemcpy"
fi
echo "$out"
echo "$out" >>"$LOG"

if [ ! -x "$BIN/arlab" ]; then
  result bench-1gpu SKIP "no $BIN/arlab (built without MPI?)"
elif out=$(timeout 180 "$BIN/arlab" bench --device cuda -t nccl -a ring,tree,nccl -b 8 -e "$BENCH_MAX" -f 8 -n 5 -w 2 -c 1 2>&1); then
  result bench-1gpu PASS "N = 1, ring / tree on -t nccl and ncclAllReduce, every result checked"
  echo "$out"
else
  result bench-1gpu FAIL "$(echo "$out" | tail -3 | tr '\n' ' ')"
fi
echo "$out" >>"$LOG"

if [ "$gpus" -lt 2 ]; then
  result bench-ngpu SKIP "one GPU: NCCL needs a GPU per rank (it refuses two ranks on one device)"
elif ! command -v "$MPIRUN" >/dev/null; then
  result bench-ngpu SKIP "no $MPIRUN on this machine"
elif out=$(timeout 240 "$MPIRUN" -np "$gpus" "$BIN/arlab" bench --device cuda -a ring,nccl -t nccl -b 8 -e "$BENCH_MAX" -f 4 -c 1 2>&1); then
  result bench-ngpu PASS "N = $gpus, ring on -t nccl and ncclAllReduce, every result checked"
  echo "$out"
else
  result bench-ngpu FAIL "$(echo "$out" | tail -3 | tr '\n' ' ')"
fi
echo "$out" >>"$LOG"

if [ -x "$BIN/arlab" ]; then
  out=$(timeout 60 "$BIN/arlab" bench --device cuda -t mpi -a ring -e 1K 2>&1)
  status=$?
  if [ "$status" -eq 2 ] && [ "$(echo "$out" | wc -l)" -eq 1 ]; then
    result bad-input PASS "$out"
  else
    result bad-input FAIL "exit $status: $(echo "$out" | head -2 | tr '\n' ' ')"
  fi
fi

echo "gpu-check: $passed passed, $failed failed, $skipped skipped (log: $LOG)"
[ "$failed" -eq 0 ]
