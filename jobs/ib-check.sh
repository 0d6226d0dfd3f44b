#!/usr/bin/env bash
# First run of -t ibverbs on an InfiniBand or RoCE cluster, as one command. Inside an
# allocation of two or more nodes (salloc -N 2, or sbatch jobs/ib-check.sh):
#
#   jobs/ib-check.sh [--ib-dev mlx5_0] [--ib-port 1] [--gid-index 3] [--gpu]
#
#   1. the fabric itself: ibv_devinfo, then perftest's ib_write_bw and ib_write_lat between the
#      first two nodes (skipped, with a note, when perftest is not installed)
#   2. arlab bench -t ibverbs against -t ucx and the MPI library's MPI_Allreduce, one rank per
#      node, results checked (-c 1); with --gpu, --device cuda (GPUDirect RDMA registration)
# Prints one PASS / FAIL / SKIP line per check and writes results/local/ib-check-<time>/.
#SBATCH --job-name=arlab-ib-check
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --time=00:20:00
set -uo pipefail
cd "${SLURM_SUBMIT_DIR:-$(dirname "$0")/..}"

IB_FLAGS=() GPU=()
while [ $# -gt 0 ]; do
  case $1 in
    --ib-dev | --ib-port | --gid-index) IB_FLAGS+=("$1" "$2"); shift 2 ;;
    --gpu) GPU=(--device cuda); shift ;;
    *) echo "ib-check: unknown option $1" >&2; exit 2 ;;
  esac
done
out=results/local/ib-check-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
passed=0 failed=0 skipped=0
result() {
  printf '%-5s %-16s %s\n' "$2" "$1" "$3"
  case $2 in PASS) passed=$((passed + 1)) ;; FAIL) failed=$((failed + 1)) ;; *) skipped=$((skipped + 1)) ;; esac
}

nodes=($(scontrol show hostnames "${SLURM_JOB_NODELIST:-}" 2>/dev/null))
[ ${#nodes[@]} -ge 2 ] || { echo "ib-check: run inside an allocation of 2 or more nodes (salloc -N 2)" >&2; exit 2; }
launch=(srun --nodes=${#nodes[@]} --ntasks-per-node=1)

if ibv_devinfo >"$out/ibv_devinfo.txt" 2>&1 && grep -q PORT_ACTIVE "$out/ibv_devinfo.txt"; then
  result devinfo PASS "$(grep -m1 hca_id "$out/ibv_devinfo.txt" | xargs), an active port"
else
  result devinfo FAIL "no active RDMA port on $(hostname) (see $out/ibv_devinfo.txt)"
fi

dev=()
for ((i = 0; i < ${#IB_FLAGS[@]}; i += 2)); do [ "${IB_FLAGS[i]}" = --ib-dev ] && dev=(-d "${IB_FLAGS[i + 1]}"); done
for test in ib_write_bw ib_write_lat; do
  if ! command -v $test >/dev/null; then
    result $test SKIP "perftest is not installed here"
    continue
  fi
  srun --nodes=1 --ntasks=1 -w "${nodes[0]}" $test "${dev[@]}" >"$out/$test.server.txt" 2>&1 &
  sleep 2
  if srun --nodes=1 --ntasks=1 -w "${nodes[1]}" $test "${dev[@]}" "${nodes[0]}" >"$out/$test.txt" 2>&1; then
    result $test PASS "$(tail -2 "$out/$test.txt" | head -1 | xargs)"
  else
    result $test FAIL "see $out/$test.txt"
  fi
  wait
done

for transport in ibverbs ucx; do
  if "${launch[@]}" build/arlab bench -t $transport "${IB_FLAGS[@]}" "${GPU[@]}" -a ring,rabenseifner,tree,mpi \
      -b 8 -e 256M -f 4 -c 1 --csv "$out/$transport.csv" --json "$out/$transport.json" >"$out/$transport.txt" 2>&1; then
    result "bench -t $transport" PASS "$(grep -m1 '^# device' "$out/$transport.txt")"
  else
    result "bench -t $transport" FAIL "$(tail -2 "$out/$transport.txt" | tr '\n' ' ')"
  fi
done
echo "ib-check: $passed passed, $failed failed, $skipped skipped; results in $out/"
[ "$failed" -eq 0 ]
