# Shared by the CLI test scripts (sourced): counters, a scratch directory $work removed on exit
# (scripts with more to clean up set their own EXIT trap and remove $work there), and the check
# that bad input gives one line on stderr and exit status 2.
passed=0 failed=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

pass() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; }
skip() { echo "skip $1"; }  # a check that cannot run here, with the reason; not counted as passed

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

# finish NAME: the summary line, and the exit status.
finish() {
  echo "$1: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
