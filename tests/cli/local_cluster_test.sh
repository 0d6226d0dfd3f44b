#!/usr/bin/env bash
# jobs/local-cluster end to end: a real 4-node Slurm cluster in network namespaces with links
# capped at 1 Gbit/s; srun reaches every node under its own hostname; arlab bench runs across
# nodes with srun --mpi=pmix and from an sbatch script, results checked; then `down` leaves no
# daemons, namespaces, links, routes or /dev/shm files behind, also when a check fails.
# usage: local_cluster_test.sh BUILD_DIR
set -u
build=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
cluster=$root/jobs/local-cluster
source "$root/tests/cli/lib.sh"
export ARLAB_CLUSTER_DIR=$work/cluster

if [ "$(id -u)" != 0 ]; then
  echo "skip: jobs/local-cluster needs root (network namespaces, veth pairs, tc)"
  exit 77
fi
if ! ip netns add arlab-probe 2>/dev/null; then
  echo "skip: this machine cannot create network namespaces"
  exit 77
fi
ip netns del arlab-probe
for tool in slurmctld slurmd munged srun sbatch; do
  command -v $tool >/dev/null || { echo "skip: $tool not installed (./lab installs slurm-wlm and munge)"; exit 77; }
done
shm_before=$(ls /dev/shm | sort)
cleanup() {
  "$cluster" down >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

# Bad input is one line, before anything is created.
if ! "$cluster" up --mtu 12 >"$work/up" 2>&1 && grep -q "^local-cluster: --mtu: 576 to 65535 bytes (got 12)$" "$work/up" &&
  ! ip netns list | grep -q "^arlab-"; then
  pass "up --mtu 12: refused, nothing created"
else
  fail "up --mtu 12: $(cat "$work/up")"
fi
# Jumbo frames on the node links, as an HPC Ethernet or RoCE fabric runs them.
if "$cluster" up --nodes 4 --cpus-per-node 2 --rate 1gbit --mtu 9000 >"$work/up" 2>&1; then
  pass "up: 4 nodes in $(grep -o 'up in .*' "$work/up")"
else
  fail "up: $(cat "$work/up")"
  echo "local cluster: $passed passed, $failed failed"
  exit 1
fi
eval "$("$cluster" env)"
ip -n arlab-n1 link show eth0 | grep -q " mtu 9000 " && pass "n1's link: MTU 9000" || fail "n1's link: $(ip -n arlab-n1 link show eth0)"
[ "$(sinfo -h -N -t idle -o %N | sort -u | tr '\n' ' ')" = "n1 n2 n3 n4 " ] && pass "sinfo: n1..n4 idle" || fail "sinfo: $(sinfo -N)"
[ "$(timeout 60 srun -N 4 hostname | sort | tr '\n' ' ')" = "n1 n2 n3 n4 " ] && pass "srun -N 4 hostname: n1 n2 n3 n4" || fail "srun hostname"

# The namespaces are machine-wide: a second directory (another user, another test) can neither
# bring up a second cluster nor take this one down.
if ! "$cluster" up --dir "$work/other" >"$work/up2" 2>&1 &&
  grep -q "^local-cluster: a cluster is already up in $(cd "$ARLAB_CLUSTER_DIR" && pwd -P) " "$work/up2" &&
  ! "$cluster" down --dir "$work/other" >"$work/down2" 2>&1 && grep -q "left up" "$work/down2" &&
  [ "$(timeout 60 srun -N 4 hostname | sort | tr '\n' ' ')" = "n1 n2 n3 n4 " ]; then
  pass "up and down from another --dir: refused, this cluster still up"
else
  fail "another --dir: up said '$(cat "$work/up2")', down said '$(cat "$work/down2")'; nodes: $(sinfo -h -N -o %N 2>&1 | tr '\n' ' ')"
fi

# Four ranks on two nodes through PMIx, every result checked; hier sees two nodes of two.
if timeout 300 srun -N 2 -n 4 --mpi=pmix "$build/arlab" bench -a ring,hier,mpi -b 8 -e 1M -f 32 -n 3 -w 1 -c 1 \
  --json "$work/srun.json" >"$work/srun.out" 2>&1 &&
  /usr/bin/python3 - "$work/srun.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
m = doc["metadata"]
assert doc["complete"], "incomplete"
assert m["nranks"] == 4 and m["nnodes"] == 2 and sorted(set(m["hosts"])) == ["n1", "n2"], m["hosts"]
assert m["ranks_per_node"] == 2, m["ranks_per_node"]
# Two ranks per Slurm node, but both nodes are namespaces of this machine: its cores serve four.
assert m["cores"].startswith("4 rank(s) on this machine's"), m["cores"]
assert m["slurm_job_id"], "no SLURM_JOB_ID"
assert all(r["wrong"] == 0 for r in doc["results"]), "wrong results"
assert {r["algorithm"] for r in doc["results"]} == {"ring", "hier", "mpi"}
PY
then
  pass "srun --mpi=pmix -N 2 -n 4 arlab bench: hosts n1 and n2, 2 ranks per node (4 on this machine's cores), every result right"
else
  fail "srun bench: $(tail -5 "$work/srun.out")"
fi

# The 1 Gbit/s cap is in force: one rank per node cannot move more than the link carries,
# over Open MPI's TCP and over UCX (whose shared-memory transports would reach across the
# namespaces if the cluster's env did not keep UCX to TCP).
for transport in mpi ucx tcp; do
  if timeout 300 srun -N 2 -n 2 --mpi=pmix "$build/arlab" bench -a ring -t $transport -b 16M -e 16M -n 3 -w 1 -c 0 >"$work/cap.out" 2>&1; then
    busbw=$(awk '$1 == 16777216 { print $8 }' "$work/cap.out")
    awk -v b="$busbw" 'BEGIN { exit !(b > 0 && b <= 0.125 * 1.05) }' && pass "links capped (-t $transport): busbw $busbw GB/s at 16 MiB, at most 1 Gbit/s" ||
      fail "-t $transport: busbw $busbw GB/s exceeds the 1 Gbit/s cap"
  else
    fail "cap run -t $transport: $(tail -3 "$work/cap.out")"
  fi
done

# -t tcp across nodes: each rank listens on its node's link (the env's ARLAB_SOCKET_IFNAME),
# 4 ranks on 2 nodes, every algorithm's result checked.
if timeout 300 srun -N 2 -n 4 --mpi=pmix "$build/arlab" bench -a ring,rd,tree,hier -t tcp -b 8 -e 1M -f 32 -n 2 -w 1 -c 1 \
  --json "$work/tcp.json" >"$work/tcp.out" 2>&1 && grep -q "^# device host, sockets on 10\.77\.0\." "$work/tcp.out" &&
  /usr/bin/python3 -c "
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc['complete'] and doc['metadata']['nnodes'] == 2
assert doc['metadata']['environment'].get('ARLAB_SOCKET_IFNAME') == 'eth0', doc['metadata']['environment']
assert len(doc['results']) == 4 * 4 * 2 and all(r['wrong'] == 0 for r in doc['results'])
" "$work/tcp.json"; then
  pass "srun -N 2 -n 4 arlab bench -t tcp: sockets on the nodes' links, ring/rd/tree/hier results right"
else
  fail "-t tcp across nodes: $(grep -E 'sockets|error' "$work/tcp.out" | head -3; tail -3 "$work/tcp.out")"
fi

# A batch job, as users submit them.
cat >"$work/job.sh" <<JOB
#!/bin/bash
#SBATCH -N 2
#SBATCH --ntasks-per-node=1
#SBATCH -o $work/job.out
srun --mpi=pmix $build/arlab bench -a ring -b 8 -e 4K -f 8 -n 2 -w 1 -c 1 --csv $work/job.csv
JOB
job=$(sbatch --parsable "$work/job.sh")
for _ in $(seq 1 300); do
  [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
  sleep 0.2
done
if grep -q "Out of bounds values : 0 OK" "$work/job.out" 2>/dev/null && [ "$(grep -c ',out,' "$work/job.csv")" -eq 4 ]; then
  pass "sbatch job $job: srun inside the allocation, results checked, CSV written"
else
  fail "sbatch job $job: $(tail -3 "$work/job.out" 2>/dev/null)"
fi

"$cluster" down >"$work/down" 2>&1
sleep 0.3
left=""
pgrep -f "slurm.conf" >/dev/null && left+="daemons "
ip netns list | grep -q "^arlab-" && left+="namespaces "
ip link show arlab-root >/dev/null 2>&1 && left+="links "
ip route | grep -q "unreachable 10.77.0.0/16" && left+="routes "
[ "$(ls /dev/shm | sort)" = "$shm_before" ] || left+="/dev/shm:$(comm -13 <(echo "$shm_before") <(ls /dev/shm | sort) | tr '\n' ' ')"
[ -z "$left" ] && pass "down: no daemons, namespaces, links, routes or /dev/shm files left" || fail "down left: $left"

finish "local cluster"
