#!/usr/bin/env bash
# arlab bench --prometheus: the file node_exporter's textfile collector reads, checked against
# the text exposition format by promtool where Debian's prometheus package is installed and
# always by tests/cli/prometheus_lint.py (which is itself shown to reject broken files).
# usage: prometheus_test.sh BUILD_DIR
set -u
build=$1
arlab=$build/arlab
here=$(cd "$(dirname "$0")" && pwd)
PYTHON=/usr/bin/python3; [ -x "$PYTHON" ] || PYTHON=python3
lint=("$PYTHON" "$here/prometheus_lint.py")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
source "$here/lib.sh"

if timeout 120 mpirun -q --oversubscribe -np 2 "$arlab" bench -a ring,rd -b 8 -e 4K -f 8 -c 1 --prometheus "$work/arlab.prom" >/dev/null; then
  pass "bench --prometheus under mpirun -np 2"
else
  fail "bench --prometheus did not run"
fi
if out=$("${lint[@]}" "$work/arlab.prom" 2>&1); then
  pass "the file is valid text exposition format ($out)"
else
  fail "lint: $out"
fi
# 2 algorithms x 4 sizes x 2 placements per family, 4 families, plus run_info and run_complete.
series=$(grep -c '^arlab_' "$work/arlab.prom")
[ "$series" -eq 66 ] && pass "66 series" || fail "$series series, not 66"
grep -q '^arlab_allreduce_time_seconds{algorithm="rd",transport="mpi",size_bytes="4096",nranks="2",nnodes="1",type="float32",redop="sum",placement="in",host="[^"]*"} [0-9.e+-]*$' "$work/arlab.prom" &&
  pass "labels: algorithm, transport, size_bytes, nranks, nnodes, type, redop, placement, host" || fail "labels: $(grep -m1 rd "$work/arlab.prom")"
grep -q '^arlab_allreduce_wrong_elements{.*} 0$' "$work/arlab.prom" && grep -q '^arlab_run_complete 1$' "$work/arlab.prom" &&
  pass "wrong elements 0 (checked) and run complete" || fail "wrong / complete: $(grep -E 'wrong|complete' "$work/arlab.prom" | head -3)"
if command -v promtool >/dev/null; then
  promtool check metrics <"$work/arlab.prom" && pass "promtool check metrics" || fail "promtool check metrics"
else
  echo "skip promtool: not installed (Debian's prometheus package); prometheus_lint.py checked the file"
fi

# The checker rejects what the format forbids.
good='# HELP arlab_x help
# TYPE arlab_x gauge
arlab_x{a="1"} 1
'
expect_rejected() {
  local name=$1 content=$2 fragment=$3
  printf '%s' "$content" >"$work/bad.prom"
  if ! "${lint[@]}" "$work/bad.prom" 2>"$work/err" >/dev/null && grep -qF -- "$fragment" "$work/err"; then
    pass "lint rejects $name"
  else
    fail "lint accepted $name: $(cat "$work/err")"
  fi
}
printf '%s' "$good" >"$work/good.prom"
"${lint[@]}" "$work/good.prom" >/dev/null && pass "lint accepts a minimal good file" || fail "lint rejects a good file"
expect_rejected "a duplicate series" "$good"'arlab_x{a="1"} 2
' "appears twice"
expect_rejected "TYPE after a sample" 'arlab_x 1
# TYPE arlab_x gauge
' "TYPE arlab_x after its first sample"
expect_rejected "a bad escape" "$good"'arlab_x{a="\q"} 1
' "bad escape"
expect_rejected "interleaved families" "$good"'arlab_y 1
arlab_x{a="2"} 1
' "samples of arlab_x are not contiguous"
expect_rejected "a value that is not a float" "$good"'arlab_x{a="3"} fast
' "is not a float"
expect_rejected "a missing final newline" 'arlab_x 1' "does not end in a newline"
expect_rejected "an unknown type" '# TYPE arlab_x meter
' "type must be one of"

timeout 30 "$arlab" bench --prometheus /nonexistent/x.prom >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q -- "--prometheus /nonexistent/x.prom: directory /nonexistent does not exist" "$work/err" &&
  pass "an unwritable --prometheus path is one line, exit 2" || fail "unwritable path: $(cat "$work/err")"

finish prometheus
