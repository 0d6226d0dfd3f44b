#!/usr/bin/env bash
# arlab bench and explain from the outside: bad input gives one line and exit status 2
# (under mpirun too, without hanging), a wrong result gives a non-zero exit, and a plain
# run outside any launcher works as N = 1.
# usage: bench_cli_test.sh BUILD_DIR
set -u
build=$1
arlab=$build/arlab
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
source "$(dirname "$0")/lib.sh"

expect_usage_error "-b larger than -e" "-b 1M is larger than -e 8" "$arlab" bench -b 1M -e 8
expect_usage_error "size that is not a number" "-e: '12Q' is not a size" "$arlab" bench -e 12Q
expect_usage_error "unknown algorithm" "-a: unknown algorithm 'foo' (accepted: ring" "$arlab" bench -a ring,foo
expect_usage_error "algorithm listed twice" "-a: 'ring' is listed twice" "$arlab" bench -a ring,hier,ring
expect_usage_error "empty algorithm list" "-a: the algorithm list is empty" "$arlab" bench -a ,
expect_usage_error "unknown datatype" "-d: unknown datatype 'float128' (accepted: int8" "$arlab" bench -d float128
expect_usage_error "unknown op" "-o: unknown reduction 'xor' (accepted: sum, prod, min, max, avg)" "$arlab" bench -o xor
expect_usage_error "unknown transport" "-t: unknown transport 'gloo' (accepted: mpi" "$arlab" bench -t gloo
expect_usage_error "-t tcp on an interface that does not exist" \
  "-t tcp: ARLAB_SOCKET_IFNAME=nosuch0 matches no IPv4 interface that is up (up: lo 127.0.0.1" \
  env ARLAB_SOCKET_IFNAME=nosuch0 "$arlab" bench -t tcp -e 8
expect_usage_error "-t tcp on a missing interface under mpirun -np 2" "-t tcp: ARLAB_SOCKET_IFNAME=nosuch0 matches no" \
  mpirun -q --oversubscribe -np 2 -x ARLAB_SOCKET_IFNAME=nosuch0 "$arlab" bench -t tcp -e 8
if [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
  expect_usage_error "-t ibverbs without an RDMA device" "-t ibverbs: no RDMA device on this machine" "$arlab" bench -t ibverbs
  expect_usage_error "-t ibverbs without an RDMA device under mpirun -np 2" "-t ibverbs: no RDMA device" \
    mpirun -q --oversubscribe -np 2 "$arlab" bench -t ibverbs -e 1K
else
  echo "skip: this machine has RDMA devices (jobs/ib-check.sh runs -t ibverbs on them)"
fi
expect_usage_error "zero factor" "-f: the step factor must be" "$arlab" bench -f 0
expect_usage_error "negative factor" "-f: the step factor must be" "$arlab" bench -f -2
expect_usage_error "zero iterations" "-n: at least 1 iteration" "$arlab" bench -n 0
expect_usage_error "check flag value" "-c: 0 or 1" "$arlab" bench -c 7
expect_usage_error "flag without value" "--maxbytes: 1 required" "$arlab" bench -e
expect_usage_error "unknown flag" "--frobnicate" "$arlab" bench --frobnicate
expect_usage_error "offset too large" "--offset: 0 to 4095 bytes (got 5000)" "$arlab" bench --offset 5000
expect_usage_error "GPU offset not element-aligned" "--offset 3: GPU kernels need element-aligned buffers (a multiple of 4 for float32)" \
  "$arlab" bench --device cuda --offset 3
expect_usage_error "results directory missing" "--csv /nonexistent/r.csv: directory /nonexistent does not exist" \
  "$arlab" bench --csv /nonexistent/r.csv
expect_usage_error "results path is a directory" "--json $work: is a directory" "$arlab" bench --json "$work"
expect_usage_error "sizes beyond memory" "-e 1T: each rank needs 6144.0 GiB of host memory" "$arlab" bench -b 1T -e 1T
expect_usage_error "sizes beyond memory under mpirun -np 2" "-e 1T: each rank needs" \
  mpirun -q --oversubscribe -np 2 "$arlab" bench -b 1T -e 1T
expect_usage_error "a world hier cannot serve" "--intra ring needs nodes of equal size" \
  mpirun -q --oversubscribe -np 3 "$arlab" bench -a hier --ranks-per-node 2 --intra ring -e 1K
expect_usage_error "negative timeout" "--timeout: seconds, 0 or more" "$arlab" bench --timeout -1
expect_usage_error "timeout that is not a number" "--timeout" "$arlab" bench --timeout soon
expect_usage_error "ARLAB_TIMEOUT that is not a number" "ARLAB_TIMEOUT: 'soon' is not a number of seconds" env ARLAB_TIMEOUT=soon "$arlab" bench
expect_usage_error "unknown command" "unknown command" "$arlab" frobnicate
expect_usage_error "explain unknown algorithm" "-a: unknown algorithm 'foo'" "$arlab" explain -a foo
expect_usage_error "explain bad N" "-N: between 1 and 65536" "$arlab" explain -N 0
# Under mpirun: every rank rejects the same input, only rank 0 prints, nothing hangs
# (-q: mpirun's own notice about the non-zero exit is not arlab's to print).
expect_usage_error "bad input under mpirun -np 3" "-e: '12Q' is not a size" \
  mpirun -q --oversubscribe -np 3 "$arlab" bench -e 12Q
# Input only one rank rejects (its own environment): rank 0 names that rank, all exit 2.
cat >"$work/rank1-bad-timeout.sh" <<EOF
#!/bin/sh
[ "\$OMPI_COMM_WORLD_RANK" = 1 ] && export ARLAB_TIMEOUT=soon
exec "$arlab" bench -e 1K -a ring
EOF
chmod +x "$work/rank1-bad-timeout.sh"
expect_usage_error "bad input on rank 1 only under mpirun -np 3" "rank 1: ARLAB_TIMEOUT: 'soon' is not a number" \
  mpirun -q --oversubscribe -np 3 "$work/rank1-bad-timeout.sh"

# GPU flags. Without a GPU (CI): one line and exit 2, on every rank, never a hang.
expect_usage_error "unknown device" "--device: unknown device 'tpu' (accepted: host, cuda)" "$arlab" bench --device tpu
if grep -q "define ARLAB_WITH_NCCL 1" "$build/generated/arlab_config.h"; then
  expect_usage_error "-t nccl on host memory" "NCCL moves GPU memory; use --device cuda" "$arlab" bench -t nccl --device host
else
  expect_usage_error "-t nccl in a build without NCCL" "-t nccl: not built" "$arlab" bench -t nccl
fi
if nvidia-smi -L >/dev/null 2>&1; then
  echo "skip GPU-absent checks: this machine has a GPU (jobs/gpu-check.sh checks the GPU path)"
else
  expect_usage_error "--device cuda without a GPU" "--device cuda: " "$arlab" bench --device cuda -e 1K
  expect_usage_error "-a nccl without a GPU" "--device cuda: " "$arlab" bench -a ring,nccl -e 1K
  expect_usage_error "--device cuda without a GPU under mpirun -np 3" "--device cuda: " \
    mpirun -q --oversubscribe -np 3 "$arlab" bench --device cuda -e 1K
fi

expect_usage_error "--lockstep on a one-sided transport" "--lockstep: -t shm is one-sided" \
  mpirun -q --oversubscribe -np 2 "$arlab" bench -t shm --lockstep -e 1K

# N = 1 outside any launcher.
if timeout 120 "$arlab" bench -a ring,mpi -b 8 -e 64K -f 8 -n 2 -w 1 >"$work/out" 2>&1 &&
  grep -q "1 rank(s)" "$work/out" && grep -q "Out of bounds values : 0 OK" "$work/out"; then
  pass "N = 1 without mpirun"
else
  fail "N = 1 without mpirun: $(tail -5 "$work/out")"
fi

# A correct run exits 0 and writes CSV and JSON that hold every row.
if timeout 300 mpirun --oversubscribe -np 3 "$arlab" bench -a ring,mpi -b 8 -e 1M -f 16 -n 2 -w 1 -c 1 \
  --csv "$work/r.csv" --json "$work/r.json" >"$work/out" 2>&1 &&
  [ "$(grep -c '^ring,' "$work/r.csv")" -eq 10 ] && [ "$(grep -c '^mpi,' "$work/r.csv")" -eq 10 ] &&
  python3 -c "import json,sys; d=json.load(open('$work/r.json')); sys.exit(0 if d['complete'] and len(d['results'])==20 and d['metadata']['nranks']==3 else 1)"; then
  pass "3 ranks: exit 0, CSV and JSON complete"
else
  fail "3 ranks: CSV / JSON: $(tail -5 "$work/out")"
fi

# --offset 3: input and output off alignment, every element still right (int8 and float64).
if timeout 300 mpirun --oversubscribe -np 3 "$arlab" bench -a ring,rabenseifner,dbtree,mpi --offset 3 -d float64 \
  -b 8 -e 256K -f 8 -n 2 -w 1 -c 1 >"$work/out" 2>&1 && [ "$(grep -c 'Out of bounds values : 0 OK' "$work/out")" -eq 4 ] &&
  timeout 300 mpirun --oversubscribe -np 3 "$arlab" bench -t shm -a ring,rd --offset 3 -d int8 -b 1 -e 64K -f 8 -n 2 -w 1 -c 1 \
    >"$work/out" 2>&1 && [ "$(grep -c 'Out of bounds values : 0 OK' "$work/out")" -eq 2 ]; then
  pass "--offset 3: unaligned buffers, every result right (mpi and shm)"
else
  fail "--offset 3: $(tail -5 "$work/out")"
fi

# --lockstep: the round-by-round lowering the NCCL transport uses, on MPI, checked.
if timeout 300 mpirun --oversubscribe -np 3 "$arlab" bench -a ring,dbtree,rabenseifner,hier --ranks-per-node 1 --lockstep \
  -b 8 -e 256K -f 8 -n 2 -w 1 -c 1 >"$work/out" 2>&1 && [ "$(grep -c 'Out of bounds values : 0 OK' "$work/out")" -eq 4 ]; then
  pass "3 ranks --lockstep: every result right"
else
  fail "3 ranks --lockstep: $(tail -5 "$work/out")"
fi

# -t shm: two jobs at once on one node do not meet, and nothing is left in /dev/shm, after
# a normal end or after a rank is killed.
# Other tests running at the same time (ctest -j) hold segments for the milliseconds between
# creating and unlinking them: only names present across two seconds count as left behind.
shm_names() { ls /dev/shm 2>/dev/null | grep '^arlab\.' | sort; }
shm_left() {
  local a b c
  a=$(shm_names); sleep 1; b=$(shm_names); sleep 1; c=$(shm_names)
  comm -12 <(echo "$a") <(echo "$b") | comm -12 - <(echo "$c") | grep -c . || true
}
before=$(shm_left)
timeout 300 mpirun --oversubscribe -np 3 "$arlab" bench -t shm -a ring,tree -b 8 -e 256K -f 8 -n 20 -w 2 -c 1 >"$work/a" 2>&1 &
job_a=$!
timeout 300 mpirun --oversubscribe -np 2 "$arlab" bench -t shm -a rabenseifner -b 8 -e 256K -f 8 -n 20 -w 2 -c 1 >"$work/b" 2>&1
status_b=$?
wait $job_a
status_a=$?
if [ "$status_a" -eq 0 ] && [ "$status_b" -eq 0 ] && [ "$(grep -c 'Out of bounds values : 0 OK' "$work/a")" -eq 2 ] &&
  grep -q 'Out of bounds values : 0 OK' "$work/b" && [ "$(shm_left)" -eq "$before" ]; then
  pass "-t shm: two concurrent jobs, results right, /dev/shm clean"
else
  fail "-t shm concurrent jobs: exits $status_a / $status_b, $(shm_left) arlab entries in /dev/shm: $(tail -3 "$work/a" "$work/b")"
fi
timeout 120 mpirun --oversubscribe -np 3 "$arlab" bench -t shm -a ring -b 64K -e 64K -n 1000000 -w 0 -c 0 >"$work/k" 2>&1 &
job_k=$!
# Kill a rank once the job is timing (the table header is out), so the kill lands in a run.
for _ in $(seq 120); do grep -q "algorithm: ring" "$work/k" && break; sleep 0.5; done
pkill -9 -f -n "arlab bench -t shm -a ring -b 64K" || true
wait $job_k
if [ "$(shm_left)" -eq "$before" ]; then
  pass "-t shm: a rank killed with SIGKILL leaves nothing in /dev/shm"
else
  fail "-t shm: $(shm_left) arlab entries left in /dev/shm after a rank was killed"
fi

# A wrong value (fault injection) is counted and makes the exit status non-zero.
timeout 300 mpirun --oversubscribe -np 3 "$arlab" bench -a ring -b 1K -e 4K -f 2 -n 1 -w 0 -c 1 --inject-corruption \
  >"$work/out" 2>&1
status=$?
if [ "$status" -ne 0 ] && grep -q "Out of bounds values : 6 FAILED" "$work/out"; then
  pass "corrupted result: non-zero exit ($status) and #wrong counted"
else
  fail "corrupted result: exit $status: $(grep -E 'Out of bounds|^ +[0-9]' "$work/out" | head -5)"
fi

# arlab tune measures and saves; -a auto reads the file and says what it picked per size.
if timeout 300 mpirun --oversubscribe -np 2 "$arlab" tune -o "$work/tuning.json" >"$work/out" 2>&1 &&
  python3 -c "import json,sys; d=json.load(open('$work/tuning.json')); sys.exit(0 if d['alpha_s']>0 and d['beta_s_per_byte']>0 and d['gamma_s_per_byte']>0 else 1)" &&
  timeout 300 mpirun --oversubscribe -np 2 "$arlab" bench -a auto -b 8 -e 4M -f 64 -n 2 -w 1 --tuning "$work/tuning.json" \
    --csv "$work/auto.csv" >"$work/out" 2>&1 &&
  grep -q "auto chooses with alpha" "$work/out" && [ "$(grep -c '<- ' "$work/out")" -eq 4 ] &&
  [ "$(cut -d, -f14 "$work/auto.csv" | grep -cE '^(ring|rd|rabenseifner|tree)$')" -eq 8 ]; then
  pass "tune, then auto shows its choice per size"
else
  fail "tune / auto: $(tail -5 "$work/out")"
fi
# The file keeps every algorithm's measured times; at the sizes tune timed, auto runs the
# fastest of them there (on the transport and world shape they were taken on, and only there).
if timeout 300 mpirun --oversubscribe -np 2 "$arlab" bench -a auto -b 8 -e 16M -f 8 -n 2 -w 1 -c 0 \
    --tuning "$work/tuning.json" >"$work/out" 2>&1 &&
  grep -q "auto picks by the times measured there" "$work/out" &&
  python3 - "$work/tuning.json" "$work/out" <<'EOF'
import json, re, sys
m = json.load(open(sys.argv[1]))["measured"]
assert m["transport"] == "mpi" and m["nranks"] == 2 and len(m["sizes"]) == 8, m
picked = dict(re.findall(r"^\s+(\d+)\s.*<- (\S+)$", open(sys.argv[2]).read(), re.M))
assert len(picked) == 8, picked
for i, size in enumerate(m["sizes"]):
    fastest = min(m["seconds"], key=lambda a: m["seconds"][a][i])
    assert picked[str(int(size))] == fastest, (size, picked[str(int(size))], fastest)
EOF
then
  pass "auto runs the fastest measured algorithm at each size tune timed"
else
  fail "auto by measured times: $(tail -5 "$work/out")"
fi
# A one-sided transport has no ping-pong: tune measures its latency by recursive doubling.
# On -t shm it times the shared-memory paths too (oneshot up to its slot, twoshot at every
# size), and auto runs the measured fastest of all of them: at 8 B and at 16 MiB.
if timeout 300 mpirun --oversubscribe -np 2 "$arlab" tune -t shm -o "$work/tuning-shm.json" >"$work/out" 2>&1 &&
  grep -q "one-way latency (rd, per round)" "$work/out" &&
  timeout 300 mpirun --oversubscribe -np 2 "$arlab" bench -t shm -a auto -b 8 -e 16M -f 2097152 -n 2 -w 1 -c 1 \
    --tuning "$work/tuning-shm.json" >"$work/out" 2>&1 &&
  grep -q "auto picks by the times measured there" "$work/out" &&
  picks=$(python3 -c "
import json; m = json.load(open('$work/tuning-shm.json'))['measured']; assert m['transport'] == 'shm'
s, n = m['seconds'], len(m['sizes']); assert 'twoshot' in s and 0 < len(s['oneshot']) < n
print(min(s, key=lambda a: s[a][0]), min((a for a in s if len(s[a]) == n), key=lambda a: s[a][-1]))") &&
  grep -qE "^ +8 .* 0 +<- ${picks% *}\$" "$work/out" &&
  grep -qE "^ +16777216 .* 0 +<- ${picks#* }\$" "$work/out"; then
  pass "tune -t shm (one-sided; oneshot timed up to its slot, twoshot at every size), then auto runs the measured fastest at 8 B and 16 MiB"
else
  fail "tune -t shm / auto: $(tail -5 "$work/out")"
fi
if timeout 300 mpirun --oversubscribe -np 3 "$arlab" bench -a auto -b 8 -e 8 -n 2 -w 1 --tuning "$work/tuning.json" \
    >"$work/out" 2>&1 &&
  grep -q "its measured times not used (measured on -t mpi at N = 2, 2 per node; this run is -t mpi at N = 3" "$work/out"; then
  pass "measured times of another world shape are not used, and the header says why"
else
  fail "measured times at another N: $(grep auto "$work/out" | head -3)"
fi
echo '{"schema": "arlab.tuning.v1", "alpha_s": "fast"}' >"$work/bad-tuning.json"
expect_usage_error "malformed tuning file" "bad-tuning.json: unreadable tuning file" \
  "$arlab" bench -a auto -e 8 --tuning "$work/bad-tuning.json"
expect_usage_error "tune on one rank" "needs at least 2 ranks" "$arlab" tune -o "$work/t.json"
expect_usage_error "tune: unknown transport under mpirun -np 2" "-t: unknown transport 'gloo'" \
  mpirun -q --oversubscribe -np 2 "$arlab" tune -t gloo -o "$work/t.json"

# arlab model: the seed's example checked; bad input one line.
if "$arlab" model --seed-example >"$work/model" 2>&1 && grep -q "T_compute = 0.300 s" "$work/model" &&
  grep -q "1.5e15/(16\*312e12) = 0.3 ms" "$work/model" && grep -q "^- T_compute units: .* not 0.3 ms" "$work/model" &&
  grep -q "^- HDR bandwidth: HDR InfiniBand is 200 Gb/s (bits) per port = 25 GB/s, not 200 GB/s" "$work/model" &&
  grep -q "^- latency rounds: a ring all-reduce has 2(N-1) = 30 message rounds, not N-1 = 15" "$work/model" &&
  grep -q "^- data volume: a ring all-reduce sends 2(N-1)/N x D = 1.50 GB" "$work/model"; then
  pass "model --seed-example: T_compute 0.30 s and each discrepancy"
else
  fail "model --seed-example: $(head -12 "$work/model")"
fi
expect_usage_error "model: unknown fabric" "--fabric: unknown fabric 'token-ring' (accepted: ib-hdr" \
  "$arlab" model --gpus 16 --tflops 312 --flops 1.5e15 --bytes 0.8e9 --fabric token-ring
expect_usage_error "model: missing input" "--tflops is required" "$arlab" model --gpus 16
expect_usage_error "model: bad latency" "--extra-latency: '20' is not a duration" \
  "$arlab" model --gpus 16 --tflops 312 --flops 1.5e15 --bytes 0.8e9 --extra-latency 20

# plot.py: truncated and wrong-schema results, missing inputs, unwritable outputs.
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  plot=(/usr/bin/python3 "$(dirname "$0")/../../harness/plot.py" busbw)
  head -3 "$work/r.csv" >"$work/trunc.csv" && printf 'ring,mpi,3,1,10' >>"$work/trunc.csv"
  expect_usage_error "plot: truncated CSV" "trunc.csv: line 4: a value is not a number (truncated file?)" "${plot[@]}" "$work/trunc.csv" -o "$work/p.png"
  expect_usage_error "plot: JSON given as CSV" "r.json: not an arlab bench CSV" "${plot[@]}" "$work/r.json" -o "$work/p.png"
  expect_usage_error "plot: missing input" "nope.csv: No such file or directory" "${plot[@]}" "$work/nope.csv" -o "$work/p.png"
  expect_usage_error "plot: missing output directory" "-o /nonexistent/p.png: directory /nonexistent does not exist" \
    "${plot[@]}" "$work/r.csv" -o /nonexistent/p.png
  if "${plot[@]}" "$work/r.csv" -o "$work/p.png" && [ -s "$work/p.png" ] && ! ls "$work"/*.partial.png >/dev/null 2>&1; then
    pass "plot: a PNG from a good CSV"
  else
    fail "plot: no PNG from a good CSV"
  fi
  [ -e "$work/p.png" ] && [ "$(ls "$work"/p.png* | wc -l)" -eq 1 ] || fail "plot: a failed run left a file behind"
else
  echo "skip plot.py checks: /usr/bin/python3 with matplotlib not found"
fi

# The header names the commit the binary was built from, read at build time (cmake/git_commit.cmake),
# with -dirty while tracked files differ from it: results never name a commit they did not run.
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
if commit=$(git -C "$source_dir" rev-parse --short=12 HEAD 2>/dev/null); then
  git -C "$source_dir" diff --quiet HEAD -- || commit="$commit-dirty"
  header=$("$arlab" bench -a ring -t shm -b 8 -e 8 -n 1 -w 0 2>&1 | head -1)
  case "$header" in
    *"($commit)"*) pass "the header names the built commit ($commit)" ;;
    *) fail "the header names the built commit: expected ($commit) in: $header" ;;
  esac
else
  skip "the header's commit: $source_dir is not a git checkout"
fi

finish "bench CLI"
