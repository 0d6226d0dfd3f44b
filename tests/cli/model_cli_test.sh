#!/usr/bin/env bash
# arlab sim, fit and plot from the outside: the tables they print, the files they write, and
# bad input as one line with exit status 2.
# usage: model_cli_test.sh BUILD_DIR
set -u
build=$1
arlab=$build/arlab
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"

# --- arlab sim
if "$arlab" sim -a ring,rabenseifner -N 16 -b 1K -e 1M -f 32 --csv "$work/sim.csv" --json "$work/sim.json" >"$work/sim" &&
  [ "$(grep -c '^ *1048576 ' "$work/sim")" -eq 2 ] && grep -q "one non-blocking switch" "$work/sim" &&
  [ "$(grep -c '^ring,sim,16,' "$work/sim.csv")" -eq 6 ] && grep -q '"complete": true' "$work/sim.json"; then
  pass "sim: a table per algorithm, CSV and JSON"
else
  fail "sim: $(head -c 600 "$work/sim")"
fi
# The ring at 16 ranks, 1 MiB, 1 us and 25 GB/s, 20 GB/s reductions: 30 us + 1.875 x 1 MiB / 25 GB/s + 0.9375 x 1 MiB / 20 GB/s.
if awk '$1 == 1048576 { found = 1; if ($4 < 157.8 || $4 > 157.9) exit 1 } END { exit !found }' <(sed -n '/ring on 16/,/^$/p' "$work/sim"); then
  pass "sim: ring time as the alpha-beta-gamma arithmetic says (157.8 us)"
else
  fail "sim: ring 1 MiB row: $(grep '^ *1048576 ' "$work/sim" | head -1)"
fi
if "$arlab" sim -a ring -N 4096 -b 1M -e 1M --max-memory 256M >"$work/big" && grep -q "EXTRAPOLATED" "$work/big" &&
  grep -q "simulated at N = [0-9]* instead" "$work/big"; then
  pass "sim: a world over --max-memory is simulated smaller and the rest marked EXTRAPOLATED"
else
  fail "sim: extrapolation: $(head -c 400 "$work/big")"
fi
"$arlab" sim -a rabenseifner -N 64 -b 4M -e 4M --topology fat-tree --leaf-ports 8 --oversubscription 4 >"$work/ft" &&
  "$arlab" sim -a rabenseifner -N 64 -b 4M -e 4M >"$work/sw"
t_ft=$(awk '$1 == 4194304 { print $4 }' "$work/ft") t_sw=$(awk '$1 == 4194304 { print $4 }' "$work/sw")
if [ -n "$t_ft" ] && [ -n "$t_sw" ] && awk -v a="$t_ft" -v b="$t_sw" 'BEGIN { exit !(a > 1.5 * b) }'; then
  pass "sim: a 4:1 oversubscribed fat tree slows Rabenseifner's exchanges ($t_ft us vs $t_sw us)"
else
  fail "sim: fat tree $t_ft us vs switch $t_sw us"
fi
# explain --cost: closed form, schedule counts and arlab sim give one time where the closed form is exact.
for alg in ring rd rabenseifner; do
  line=$("$arlab" explain -a $alg -N 8 --count 4096 --cost | grep "^time ")
  if echo "$line" | awk '{ if ($2 != $3 || $2 != $6 || $2 <= 0) exit 1 }'; then
    pass "explain --cost: $alg at N = 8, closed form = schedule = sim ($(echo "$line" | awk '{print $2}') us)"
  else
    fail "explain --cost $alg: $line"
  fi
done
expect_usage_error "sim: unknown algorithm" "-a: unknown algorithm 'auto' (accepted: ring" "$arlab" sim -a auto
expect_usage_error "sim: algorithm listed twice" "-a: 'ring' is listed twice" "$arlab" sim -a ring,ring
expect_usage_error "sim: unknown topology" "--topology: 'torus' (accepted: switch, fat-tree)" "$arlab" sim --topology torus
expect_usage_error "sim: no ranks" "-N: between 1 and 16777216 ranks (got 0)" "$arlab" sim -N 0
expect_usage_error "sim: unknown fabric" "--fabric: unknown fabric 'token-ring'" "$arlab" sim --fabric token-ring
expect_usage_error "sim: oversubscription below 1" "--oversubscription: at least 1" "$arlab" sim --topology fat-tree --oversubscription 0.5
expect_usage_error "sim: unwritable CSV" "--csv /nonexistent/x.csv: directory /nonexistent does not exist" "$arlab" sim --csv /nonexistent/x.csv
expect_usage_error "sim: unknown datatype" "-d: unknown datatype 'float128' (accepted: int8" "$arlab" sim -d float128
"$arlab" sim -N 1 -b 64 -e 64 | grep -q "ring on 1 ranks" && pass "sim: N = 1" || fail "sim -N 1"
expect_usage_error "sim: -b above -e" "-b 1M is larger than -e 8" "$arlab" sim -b 1M -e 8

echo '{"schema": "arlab.tuning.v1"}' >"$work/other.json"

# --- arlab fit on simulated sweeps: the parameters the simulation used come back.
for n in 4 8 16; do
  "$arlab" sim -a ring,rd,rabenseifner -N $n -b 8 -e 1M -f 8 --csv "$work/sim$n.csv" >/dev/null || fail "sim N=$n for fit"
done
if "$arlab" fit "$work"/sim{4,8,16}.csv >"$work/fit" &&
  grep -A3 "^sim, rabenseifner,rd,ring together" "$work/fit" | grep -q "alpha = 1.00 us" &&
  grep -A3 "^sim, rabenseifner,rd,ring together" "$work/fit" | grep -q "beta  = 0.04 ns/B" &&
  grep -A4 "^sim, rabenseifner,rd,ring together" "$work/fit" | grep -q "gamma = 0.05 ns/B" &&
  grep -A9 "^ring on sim" "$work/fit" | grep -q -- "-> linear in N fits better" &&
  grep -A9 "^rd on sim" "$work/fit" | grep -q -- "-> logarithmic in N fits better"; then
  pass "fit: alpha 1 us, beta 1/25 GB/s, gamma 1/20 GB/s recovered; ring's latency linear in N, rd's logarithmic"
else
  fail "fit on simulated data: $(head -c 1500 "$work/fit")"
fi
# fit --json feeds arlab sim and arlab model (--from-fit FILE[:ENTRY]).
if "$arlab" fit "$work"/sim{4,8,16}.csv --json "$work/params.json" >/dev/null &&
  "$arlab" sim -a ring -N 16 -b 1M -e 1M --from-fit "$work/params.json" --fabric eth-25g >"$work/refit" &&
  grep -q "fitted sim ($work/params.json): alpha 1.00 us, 2[45]\.[0-9]* GB/s" "$work/refit" &&
  awk '$1 == 1048576 { found = 1; if ($4 < 157.7 || $4 > 157.9) exit 1 } END { exit !found }' "$work/refit" &&
  "$arlab" model --gpus 16 --tflops 312 --flops 1.5e15 --bytes 0.8e9 --from-fit "$work/params.json:ring/sim" | grep -q "fabric fitted ring/sim"; then
  pass "fit --json: sim and model take the fabric from it (the ring at 16 ranks again 157.8 us)"
else
  fail "fit --json / --from-fit: $(head -c 600 "$work/refit")"
fi
expect_usage_error "sim: --from-fit entry missing" "no entry 'nope' (entries: sim, rabenseifner/sim, rd/sim, ring/sim)" \
  "$arlab" sim --from-fit "$work/params.json:nope"
expect_usage_error "model: --from-fit another file" "not written by arlab fit --json" \
  "$arlab" model --gpus 16 --tflops 312 --flops 1.5e15 --bytes 0.8e9 --from-fit "$work/other.json"
head -4 "$work/sim4.csv" >"$work/few.csv"
if "$arlab" fit "$work/few.csv" >"$work/few" && grep -q "too few points to fit 2 parameters ([0-9]*; at least 4 needed): no numbers" "$work/few" &&
  ! grep -q "alpha =" "$work/few"; then
  pass "fit: too few points say so instead of printing numbers"
else
  fail "fit with 3 points: $(cat "$work/few")"
fi
head -3 "$work/sim4.csv" >"$work/trunc.csv" && printf 'ring,sim,4,4,64,16,float32,sum,out,6.0' >>"$work/trunc.csv"
expect_usage_error "fit: truncated CSV" "trunc.csv: line 4: 10 fields, not 15 (truncated file?)" "$arlab" fit "$work/trunc.csv"
head -c 200 "$work/sim.json" >"$work/trunc.json"
expect_usage_error "fit: truncated JSON" "trunc.json: not valid JSON (truncated file?)" "$arlab" fit "$work/trunc.json"
expect_usage_error "fit: another schema" "other.json: not an arlab bench JSON (schema is not arlab.bench.v1)" "$arlab" fit "$work/other.json"
echo 'size,time' >"$work/other.csv"
expect_usage_error "fit: another CSV" "other.csv: not an arlab bench CSV" "$arlab" fit "$work/other.csv"
expect_usage_error "fit: missing file" "nope.csv: cannot read (No such file or directory)" "$arlab" fit "$work/nope.csv"
expect_usage_error "fit: bad placement" "--placement: 'both' (accepted: out, in)" "$arlab" fit "$work/sim4.csv" --placement both

# --- arlab plot: three PNGs; a missing directory is one line.
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  mkdir "$work/plots"
  if "$arlab" plot "$work"/sim{4,8,16}.csv -o "$work/plots" >"$work/plot" && [ -s "$work/plots/busbw.png" ] &&
    [ -s "$work/plots/latency.png" ] && [ -s "$work/plots/simulated.png" ] && [ "$(ls "$work/plots" | wc -l)" -eq 3 ]; then
    pass "plot: busbw.png, latency.png and simulated.png, nothing else left behind"
  else
    fail "plot: $(cat "$work/plot"; ls "$work/plots")"
  fi
  if "$arlab" fit "$work/sim8.csv" --plot "$work/fit.png" >/dev/null && [ -s "$work/fit.png" ] && [ ! -e "$work/fit.png.fit.json" ]; then
    pass "fit --plot: a PNG"
  else
    fail "fit --plot: no PNG"
  fi
  expect_usage_error "plot: missing directory" "-o /nonexistent: not a directory" "$arlab" plot "$work/sim4.csv" -o /nonexistent
else
  echo "skip plot checks: /usr/bin/python3 with matplotlib not found"
fi

# --- A sweep measured here (MPI transport, N = 2..8 oversubscribed on this machine's cores), fitted
# without N = 8, and N = 8 predicted by the simulator with the fitted parameters. Oversubscribed
# ranks wait for the scheduler, not the network, so the prediction may miss: the test checks the
# pipeline and prints by how much it missed (the README reports the numbers).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_op=^avx
measured_ok=1
for n in 2 3 4 5 6 7 8; do
  timeout 120 mpirun -q --oversubscribe -np $n "$arlab" bench -a ring,rd -t mpi -b 8 -e 64K -f 8 -n 10 -w 2 -c 0 \
    --csv "$work/measured$n.csv" >/dev/null 2>"$work/measured.err" || measured_ok=0
done
if [ $measured_ok -eq 1 ] && "$arlab" fit "$work"/measured{2,3,4,5,6,7,8}.csv --hold-out 8 >"$work/heldout" &&
  [ "$(grep -c "predicting N = 8 (not in the fit)" "$work/heldout")" -eq 2 ] &&
  [ "$(grep -c "held-out points within 30 %" "$work/heldout")" -eq 2 ]; then
  pass "fit --hold-out 8 on a measured MPI sweep N = 2..8: $(grep "held-out points within 30 %" "$work/heldout" | tr -s ' ' | tr '\n' ';')"
  sed -n '/predicting N = 8/,/held-out points/p' "$work/heldout"
else
  fail "measured sweep and hold-out: $(head -c 600 "$work/measured.err") $(head -c 800 "$work/heldout" 2>/dev/null)"
fi

finish "model CLI"
