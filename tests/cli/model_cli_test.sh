#!/usr/bin/env bash
# arlab sim, fit and plot from the outside: the tables they print, the files they write, and
# bad input as one line with exit status 2.
# usage: model_cli_test.sh BUILD_DIR
set -u
build=$1
arlab=$build/arlab
here=$(cd "$(dirname "$0")" && pwd)
passed=0 failed=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

pass() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; }

# expect_usage_error NAME EXPECTED_FRAGMENT COMMAND...: exit 2, stderr one line containing the fragment.
expect_usage_error() {
  local name=$1 fragment=$2
  shift 2
  timeout 60 "$@" >"$work/out" 2>"$work/err"
  local status=$?
  local lines
  lines=$(grep -c . "$work/err")
  if [ "$status" -eq 2 ] && [ "$lines" -eq 1 ] && grep -qF -- "$fragment" "$work/err"; then
    pass "$name"
  else
    fail "$name (exit $status, $lines stderr lines: $(head -c 300 "$work/err"))"
  fi
}

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
expect_usage_error "sim: unknown algorithm" "-a: unknown algorithm 'auto' (accepted: ring" "$arlab" sim -a auto
expect_usage_error "sim: unknown topology" "--topology: 'torus' (accepted: switch, fat-tree)" "$arlab" sim --topology torus
expect_usage_error "sim: no ranks" "-N: between 1 and 16777216 ranks (got 0)" "$arlab" sim -N 0
expect_usage_error "sim: unknown fabric" "--fabric: unknown fabric 'token-ring'" "$arlab" sim --fabric token-ring
expect_usage_error "sim: oversubscription below 1" "--oversubscription: at least 1" "$arlab" sim --topology fat-tree --oversubscription 0.5
expect_usage_error "sim: unwritable CSV" "--csv /nonexistent/x.csv: directory /nonexistent does not exist" "$arlab" sim --csv /nonexistent/x.csv
expect_usage_error "sim: -b above -e" "-b 1M is larger than -e 8" "$arlab" sim -b 1M -e 8

echo "model CLI: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
