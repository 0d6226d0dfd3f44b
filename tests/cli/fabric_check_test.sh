#!/usr/bin/env bash
# jobs/fabric-check: the parts that exist here (Ethernet MTU, arlab's loopback bandwidth, the
# SKIP paths, the NCCL / UCX environment), and the RDMA logic on a copied sysfs tree with a
# healthy port, a port that is down, error counters above 0.01 %, and two nodes whose firmware
# differs. Never a PASS for an RDMA item on a machine without RDMA.
# usage: fabric_check_test.sh BUILD_DIR
set -u
build=$1
check=$(cd "$(dirname "$0")/../.." && pwd)/jobs/fabric-check
source "$(dirname "$0")/lib.sh"
unset $(env | grep -oE '^(NCCL|UCX)_[A-Z_]*') 2>/dev/null

# This machine: no RDMA device, so every RDMA item is SKIP with a reason; exit 0.
if env -u SLURM_JOB_ID "$check" --arlab "$build/arlab" >"$work/here"; then
  pass "fabric-check here: exit 0"
else
  fail "fabric-check here: exit $?: $(cat "$work/here")"
fi
if [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
  for item in rdma-port counters firmware perftest; do
    grep -qE "^[^ ]+ +$item +SKIP +no RDMA device" "$work/here" && pass "$item: SKIP, no RDMA device" || fail "$item: $(grep " $item" "$work/here")"
  done
  ! grep -qE " (rdma-port|counters|firmware|perftest)[^ ]* +PASS" "$work/here" && pass "no RDMA item passes without RDMA" || fail "a false PASS"
fi
grep -qE " mtu [a-z0-9]+ +PASS +[0-9]+ \(IP interface" "$work/here" && pass "Ethernet MTU reported" || fail "mtu: $(grep mtu "$work/here")"
# PASS or WARN: the bandwidth ratio depends on how busy this machine is; the results must be checked.
grep -qE " loopback +(PASS +ring over shm, N = 2, 16 MiB: busbw [0-9.]+ GB/s \(MPI_Allreduce [0-9.]+ GB/s\)|WARN +ring over shm, N = 2, 16 MiB: busbw [0-9.]+ GB/s, below 70 % of MPI_Allreduce's [0-9.]+ GB/s); results checked, none wrong" "$work/here" &&
  pass "loopback: arlab's own bandwidth, results checked" || fail "loopback: $(grep loopback "$work/here")"

# The environment: names that do not exist here fail; plain settings are listed.
NCCL_SOCKET_IFNAME=nosuch9 ARLAB_SOCKET_IFNAME=nosuch8 NCCL_IB_HCA=mlx5_7 UCX_NET_DEVICES=mlx5_7:1 NCCL_DEBUG=INFO \
  "$check" --local --no-loopback >"$work/env"
status=$?
[ $status -eq 1 ] && grep -qE " env NCCL_SOCKET_IFNAME +FAIL +nosuch9: no interface nosuch9" "$work/env" &&
  grep -qE " env NCCL_IB_HCA +FAIL +mlx5_7: no RDMA device mlx5_7" "$work/env" && grep -qE " env UCX_NET_DEVICES +FAIL" "$work/env" &&
  grep -qE " env NCCL_DEBUG +PASS +INFO" "$work/env" && grep -qE " env ARLAB_SOCKET_IFNAME +FAIL +nosuch8: no interface nosuch8" "$work/env" &&
  pass "env: missing interface and devices FAIL (exit 1), NCCL_DEBUG listed" || fail "env (exit $status): $(grep env "$work/env")"

# A copied sysfs with one InfiniBand HCA.
make_sysfs() {  # DIR STATE RCV_ERRORS FW
  local d=$1/class/infiniband/mlx5_0 p
  p=$d/ports/1
  mkdir -p "$p/counters" "$1/class/net/ib0" "$1/class/net/lo"
  echo "$4" >"$d/fw_ver"
  echo "MT4123" >"$d/hca_type"
  echo "$2" >"$p/state"
  echo "200 Gb/sec (4X HDR)" >"$p/rate"
  echo "InfiniBand" >"$p/link_layer"
  echo "$3" >"$p/counters/port_rcv_errors"
  echo 0 >"$p/counters/symbol_error"
  echo 600000 >"$p/counters/port_rcv_packets"
  echo 400000 >"$p/counters/port_xmit_packets"
  echo 0 >"$p/counters/port_xmit_wait"
  echo 2044 >"$1/class/net/ib0/mtu"
  echo up >"$1/class/net/ib0/operstate"
}
make_sysfs "$work/healthy" "4: ACTIVE" 5 "20.31.1014"
FABRIC_CHECK_SYSFS=$work/healthy NCCL_IB_HCA=mlx5_0 "$check" --local --no-loopback >"$work/healthy.out"
status=$?
[ $status -eq 0 ] && grep -qE " rdma-port mlx5_0/1 +PASS +4: ACTIVE, 200 Gb/sec \(4X HDR\), InfiniBand" "$work/healthy.out" &&
  grep -qE " counters mlx5_0/1 +PASS +error packets 0.0005 % of 1000000" "$work/healthy.out" &&
  grep -qE " firmware mlx5_0 +PASS +20.31.1014" "$work/healthy.out" && grep -qE " env NCCL_IB_HCA +PASS" "$work/healthy.out" &&
  grep -qE " perftest +SKIP" "$work/healthy.out" && grep -qE " mtu mlx5_0/1 +SKIP" "$work/healthy.out" &&
  pass "a healthy HDR port passes; perftest and IB MTU say why they are skipped" || fail "healthy (exit $status): $(cat "$work/healthy.out")"
make_sysfs "$work/sick" "1: DOWN" 500 "20.31.1014"
FABRIC_CHECK_SYSFS=$work/sick "$check" --local --no-loopback >"$work/sick.out"
status=$?
[ $status -eq 1 ] && grep -qE " rdma-port mlx5_0/1 +FAIL +state 1: DOWN \(not ACTIVE\)" "$work/sick.out" &&
  grep -qE " counters mlx5_0/1 +FAIL +error packets 0.0500 % of 1000000 \(above 0.01 %\)" "$work/sick.out" &&
  pass "a port that is down and 0.05 % error packets FAIL (exit 1)" || fail "sick (exit $status): $(cat "$work/sick.out")"

# Two nodes' rows merged: firmware that differs fails.
make_sysfs "$work/other" "4: ACTIVE" 0 "22.36.1010"
FABRIC_CHECK_SYSFS=$work/healthy "$check" --local --raw --no-loopback | sed 's/^[^\t]*/n1/' >"$work/n1.rows"
FABRIC_CHECK_SYSFS=$work/other "$check" --local --raw --no-loopback | sed 's/^[^\t]*/n2/' >"$work/n2.rows"
"$check" --merge "$work/n1.rows" "$work/n2.rows" >"$work/merged"
status=$?
[ $status -eq 1 ] && grep -qE "^all +firmware mlx5_0 across nodes +FAIL +versions differ: n1=20.31.1014 n2=22.36.1010" "$work/merged" &&
  grep -qE "^all +mtu ib0 across nodes +PASS" "$work/merged" &&
  pass "across nodes: differing firmware FAILs, one MTU passes" || fail "merge (exit $status): $(cat "$work/merged")"
"$check" --bogus >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q "unknown option '--bogus'" "$work/err" && pass "bad option: one line, exit 2" || fail "bad option: $(cat "$work/err")"

finish fabric-check
