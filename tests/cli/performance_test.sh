#!/usr/bin/env bash
# The performance tools from the outside: bench --roofline and -r (interleaved medians), the
# one-step and two-step paths through shared slots (-a oneshot, twoshot), buffers in symmetric
# memory (--symmetric), and bench/compare.sh. Times are never asserted
# (these machines are noisy); what is asserted is that every number is there and sane.
# usage: performance_test.sh BUILD_DIR
set -u
build=$1
arlab=$build/arlab
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
source "$(dirname "$0")/lib.sh"
mpi=(timeout 300 mpirun -q --oversubscribe -np 2)

expect_usage_error "--link-rate without --roofline" "--link-rate 1Gb/s: only with --roofline" "$arlab" bench --link-rate 1Gb/s
expect_usage_error "--link-rate not a rate" "--link-rate: '12Q' is not a bandwidth" "$arlab" bench --roofline --link-rate 12Q
expect_usage_error "no repeats" "-r: at least 1 repeat (got 0)" "$arlab" bench -r 0
expect_usage_error "oneshot on a transport without it" "-a oneshot: 8 bytes is over -t mpi's limit of 0 bytes (it has no one-step path; use -t shm)" \
  "$arlab" bench -a oneshot -t mpi -e 8
expect_usage_error "oneshot above its slot" "-a oneshot: 1048576 bytes is over -t shm's limit of 524288 bytes" \
  "${mpi[@]}" "$arlab" bench -a oneshot -t shm -b 1M -e 1M
expect_usage_error "twoshot on a transport without it" "-a twoshot: 8 bytes is over -t mpi's limit of 0 bytes (it has no two-step path; use -t shm)" \
  "$arlab" bench -a twoshot -t mpi -e 8

# twoshot over its 2 MiB slot goes through it in 1 MiB pieces, the last one short (3,000,004
# bytes, and 9,000,012): every result checked (-c 1) in and out of place, at an unaligned
# offset; auto takes it.
if "${mpi[@]}" "$arlab" bench -a twoshot,auto -t shm -b 3000004 -e 9000012 -f 3 -n 2 -w 1 -c 1 --offset 3 \
    >"$work/pieces" 2>&1 &&
  [ "$(awk '/^ +[0-9]/ && $9 == 0 && $13 == 0 { ok++ } END { print ok + 0 }' "$work/pieces")" -eq 4 ] &&
  grep -qE "^ +9000012 .* <- twoshot$" "$work/pieces"; then
  pass "bench: twoshot over its slot in pieces, every result right, auto picks it"
else
  fail "bench: twoshot in pieces: $(tail -8 "$work/pieces")"
fi

# --symmetric: input and output in memory every rank maps; twoshot then reads the peers'
# buffers directly, at any size (here 8 MiB, twice the slots' limit), checked (-c 1) in and out
# of place, with an unaligned offset; auto takes it above 256 B folded.
expect_usage_error "--symmetric on a transport without it" \
  "--symmetric: transport 'mpi' has no symmetric memory (use -t shm, every rank on one node)" \
  "${mpi[@]}" "$arlab" bench --symmetric -t mpi -e 8
if "${mpi[@]}" "$arlab" bench --symmetric -a twoshot,auto,mpi -t shm -b 8 -e 8M -f 16 -n 2 -w 1 -c 1 --offset 3 \
    >"$work/symmetric" 2>&1 &&
  [ "$(awk '/^ +[0-9]/ && $9 == 0 && $13 == 0 { ok++ } END { print ok + 0 }' "$work/symmetric")" -eq 18 ] &&
  grep -qE "^ +8388608 .* <- twoshot$" "$work/symmetric" &&
  grep -qE "^ +8 .* <- oneshot$" "$work/symmetric" &&
  [ "$(grep -cE '<- twoshot$' "$work/symmetric")" -eq 10 ]; then
  pass "bench --symmetric: twoshot at 8 MiB, every result right, auto picks it"
else
  fail "bench --symmetric: $(tail -12 "$work/symmetric")"
fi

# Streaming stores into the outputs (ARLAB_SHM_OUTPUT_STORES; by default only out of place and
# past half the last-level cache, sizes too large for a test): forced on, twoshot through the
# slots and on symmetric memory, at 2 ranks (the one fold streams its piece into the output)
# and 3 (folds build the block in the output, the peers' blocks stream in), odd sizes up to
# 3,000,004 bytes (pieces, the last one short) at an unaligned offset: every result checked (-c 1)
# in and out of place. Then a bad value: one line naming the variable, a failed run.
for ranks in 2 3; do
  for buffers in "" --symmetric; do
    name="ARLAB_SHM_OUTPUT_STORES=streaming, $ranks ranks${buffers:+, $buffers}"
    if timeout 300 mpirun -q --oversubscribe -np "$ranks" -x ARLAB_SHM_OUTPUT_STORES=streaming \
        "$arlab" bench -a twoshot -t shm $buffers -b 4 -e 3000004 -f 9 -n 2 -w 1 -c 1 --offset 3 >"$work/streamed" 2>&1 &&
      [ "$(awk '/^ +[0-9]/ { rows++; if ($9 == 0 && $13 == 0) ok++ } END { print rows + 0, ok + 0 }' "$work/streamed")" = "7 7" ]; then
      pass "bench: twoshot with $name, every result right"
    else
      fail "bench: twoshot with $name: $(tail -8 "$work/streamed")"
    fi
  done
done
timeout 60 mpirun -q -np 2 -x ARLAB_SHM_OUTPUT_STORES=always "$arlab" bench -a twoshot -t shm -e 1M >"$work/out" 2>&1
status=$?
if [ "$status" -ne 0 ] && grep -q "ARLAB_SHM_OUTPUT_STORES='always': expected auto, cached or streaming" "$work/out"; then
  pass "a bad ARLAB_SHM_OUTPUT_STORES: says which values it takes, exit $status"
else
  fail "a bad ARLAB_SHM_OUTPUT_STORES: exit $status, $(tail -4 "$work/out")"
fi

# Where /dev/shm has too little room for the two-step slots (containers often give it 64 MiB),
# twoshot says so and auto runs without it, instead of the job dying of SIGBUS on a page the
# tmpfs cannot hold. Here: a private mount namespace whose /dev/shm holds 16 MiB (two ranks'
# segments need about 10 MiB with the slots, and twice that must be free).
if unshare -m true 2>/dev/null; then
  if unshare -m bash -c "mount -t tmpfs -o size=16m tmpfs /dev/shm &&
      { ${mpi[*]} $arlab bench -a twoshot -t shm -b 1M -e 1M >$work/small-shm 2>&1; [ \$? -eq 2 ]; } &&
      ${mpi[*]} $arlab bench -a auto -t shm -b 1M -e 1M -c 1 -n 2 -w 1 >>$work/small-shm 2>&1 &&
      { ${mpi[*]} $arlab bench --symmetric -a twoshot -t shm -b 8M -e 8M >>$work/small-shm 2>&1; [ \$? -eq 2 ]; }" &&
    grep -q "arlab bench: -a twoshot: 1048576 bytes is over -t shm's limit of 0 bytes (too little room in /dev/shm for its slots)" "$work/small-shm" &&
    grep -q "arlab bench: --symmetric: symmetric memory: posix_fallocate(/arlab.*, 8388608 bytes) on rank [01] failed: No space left on device (/dev/shm is too small" "$work/small-shm" &&
    grep -qE "^ +1048576 .* 0 +<- " "$work/small-shm"; then
    pass "a small /dev/shm: twoshot and --symmetric say why they are unavailable, auto runs without the slots"
  else
    fail "a small /dev/shm: $(tail -5 "$work/small-shm")"
  fi
else
  skip "a small /dev/shm: unshare -m is not permitted here (needs root and mount namespaces)"
fi

# --roofline and -r 3: the header says how, every row has a bound, and the bound grows with
# the size; auto takes the one-step path for small messages; results are checked (-c 1).
if "${mpi[@]}" "$arlab" bench -a auto,mpi -t shm --roofline -r 3 -b 8 -e 1M -f 32 -n 2 -w 1 \
    --csv "$work/r.csv" --json "$work/r.json" >"$work/out" 2>&1 &&
  grep -q "^# roofline: memory = (N+1)/3N x reduce(n) + (N-1)/2N x copy(n), N = 2" "$work/out" &&
  grep -q "the median of 3 runs with the algorithms interleaved" "$work/out" &&
  grep -qE "^# cpu: [^ ]" "$work/out" &&
  grep -qE "^ +8 .* <- oneshot$" "$work/out" &&
  [ "$(tail -n +2 "$work/r.csv" | wc -l)" -eq 16 ] &&
  awk -F, 'NR > 1 && !($15 > 0) { exit 1 }' "$work/r.csv" &&
  awk -F, 'NR > 1 && $5 == 8 { small = $15 } NR > 1 && $5 == 262144 { big = $15 } END { exit !(big > 100 * small) }' "$work/r.csv" &&
  /usr/bin/python3 -c "import json,sys; d=json.load(open('$work/r.json')); m=d['metadata']; sys.exit(0 if m['repeats']==3 and m['roofline'].startswith('# roofline') and m['cpu']=='$(grep -m1 "^# cpu: " "$work/out" | cut -c8-)' and all(r['bound_us']>0 for r in d['results']) else 1)"; then
  pass "bench --roofline -r 3: header (the cpu too), a bound on every row, oneshot for 8 B"
else
  fail "bench --roofline -r 3: $(tail -8 "$work/out")"
fi
# The results reader takes the new column (fit then finds only auto and mpi, nothing to fit;
# a header it did not know would be "not an arlab bench CSV"), and files from before it.
if ! "$arlab" fit "$work/r.csv" >"$work/fit" 2>&1 && grep -q "no rows to fit in $work/r.csv" "$work/fit"; then
  pass "the results reader takes a CSV with bound_us"
else
  fail "fit on a CSV with bound_us: $(tail -3 "$work/fit")"
fi
reference=$source_dir/results/reference/debian12-2core/fit-mpi-N2-8
if head -1 "$reference/N2.csv" | grep -qv bound_us && "$arlab" fit "$reference"/N{2,3,4}.csv >"$work/fit" 2>&1 &&
  grep -q "R^2" "$work/fit"; then
  pass "the results reader takes CSVs from before bound_us"
else
  fail "fit on CSVs without bound_us: $(tail -3 "$work/fit")"
fi

# bench/compare.sh: the side-by-side table, a verdict per target, the plot, the command.
compare=("$source_dir/bench/compare.sh")
expect_usage_error "compare.sh: unknown option" "compare.sh: unknown option '--fast'" "${compare[@]}" --fast
expect_usage_error "compare.sh: bad rank count" "compare.sh: -n two: a positive number of ranks" "${compare[@]}" -n two
if "${compare[@]}" -n 2 -b 8 -e 64K -r 2 -o "$work/cmp" -- -n 2 -w 1 >"$work/cmp.out" 2>&1 &&
  [ "$(grep -c '^| [0-9]' "$work/cmp/compare.md")" -eq 14 ] &&
  grep -q "^| latency <= 1.0x mpi's, 8 B to 1 KiB | \(met\|\*\*NOT MET\*\*\) |" "$work/cmp/compare.md" &&
  grep -q "^| at least 70 % of the roofline at 16 MiB and 64 MiB | not measured" "$work/cmp/compare.md" &&
  grep -q "bench -a auto,mpi -t shm -b 8 -e 64K -f 2 -r 2 --roofline" "$work/cmp/command.txt" &&
  grep -q "^export MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=4294967296" "$work/cmp/command.txt" &&
  grep -q "mpirun -np 2 -x MALLOC_MMAP_THRESHOLD_ -x MALLOC_TRIM_THRESHOLD_ .*bench -a auto,mpi" "$work/cmp/command.txt" &&
  grep -q "^# algorithm: auto" "$work/cmp/table.txt" &&
  { [ -s "$work/cmp/busbw.png" ] || ! /usr/bin/python3 -c "import matplotlib" 2>/dev/null; }; then
  pass "compare.sh: side-by-side table, targets, plot"
else
  fail "compare.sh: $(tail -8 "$work/cmp.out")"
fi
# --tune: arlab tune on the same launcher and transport first, and auto picks by its times;
# --malloc-as-is: glibc's malloc settings are left alone.
if "${compare[@]}" -n 2 -t mpi -b 8 -e 4K -r 1 --tune --malloc-as-is -o "$work/cmp-tuned" -- -n 2 -w 1 >"$work/cmp.out" 2>&1 &&
  ! grep -q MALLOC "$work/cmp-tuned/command.txt" &&
  grep -q "tune -t mpi -o $work/cmp-tuned/tuning.json" "$work/cmp-tuned/command.txt" &&
  grep -q -- "--tuning $work/cmp-tuned/tuning.json" "$work/cmp-tuned/command.txt" &&
  grep -q '"measured"' "$work/cmp-tuned/tuning.json" &&
  grep -q "auto picks by the times measured there" "$work/cmp-tuned/table.txt"; then
  pass "compare.sh --tune --malloc-as-is: tunes first, then auto picks by the measured times"
else
  fail "compare.sh --tune --malloc-as-is: $(tail -8 "$work/cmp.out")"
fi
grep -v ',mpi,' "$work/r.csv" >"$work/no-mpi.csv"
expect_usage_error "compare.py without the baseline" "no rows for 'mpi'" /usr/bin/python3 "$source_dir/bench/compare.py" "$work/no-mpi.csv"

finish "performance CLI"
