#!/bin/bash
# The PMPI library's tests (ctest runs each mode): an ordinary MPI application (pmpi_app)
# with and without LD_PRELOAD=libarlab_mpi.so.
#   pmpi_test.sh served N APP LIB [VAR=VALUE...]  results equal PMPI_Allreduce's and the run
#       without the preload bit for bit; every call served by arlab; summary says so
#   pmpi_test.sh fallbacks N APP LIB             user op, derived type, MINLOC, MPI_SHORT and
#       MPI_Iallreduce go to the library, results unchanged, verbose and summary say why
#   pmpi_test.sh min-bytes N APP LIB             ARLAB_MIN_BYTES sends small calls to the library
#   pmpi_test.sh bad-settings N APP LIB          a bad ARLAB_* value, or ranks that differ: one line, exit 2
set -u
mode=$1 n=$2 app=$3 lib=$4
shift 4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpirun=(mpirun -q --oversubscribe)
fail() { echo "FAIL: $*"; exit 1; }
preload=(-x "LD_PRELOAD=$lib")
for setting in "$@"; do preload+=(-x "$setting"); done

case $mode in
served)
  "${mpirun[@]}" -np "$n" "$app" --expect-library --digest "$work/library" >"$work/out0" 2>&1 ||
    { cat "$work/out0"; fail "the application without the preload"; }
  "${mpirun[@]}" -np "$n" "${preload[@]}" "$app" --expect-served --digest "$work/arlab" >"$work/out1" 2>&1 ||
    { cat "$work/out1"; fail "with the preload ($*)"; }
  cat "$work/out1"
  cmp -s "$work/library" "$work/arlab" || { diff "$work/library" "$work/arlab" | head; fail "results differ with and without the preload"; }
  grep -q " 0 passed to the MPI library" "$work/out1" || fail "summary does not say every call was served"
  echo "PASS: $(wc -l <"$work/arlab") cases equal with and without the preload ($*)"
  ;;
fallbacks)
  "${mpirun[@]}" -np "$n" "${preload[@]}" -x ARLAB_VERBOSE=1 "$app" --expect-served --fallbacks >"$work/out" 2>&1 ||
    { cat "$work/out"; fail "fallback run"; }
  cat "$work/out"
  for reason in "user-defined operation" "derived datatype" "operation arlab does not reduce (MPI_MINLOC)" \
                "datatype arlab does not reduce (MPI_SHORT)" "non-blocking MPI_Iallreduce" "inter-communicator"; do
    grep -q "goes to the MPI library: $reason" "$work/out" || fail "verbose output does not name: $reason"
  done
  grep -q "0 served by arlab" "$work/out" || fail "summary counts a served call"
  for counted in "user-defined operation $n" "derived datatype $n" "non-blocking MPI_Iallreduce $n"; do
    grep -q "passed to the MPI library (.*$counted" "$work/out" || fail "summary does not count: $counted"
  done
  # A transport that cannot serve (no RDMA device here): every call goes to the library.
  if [ -n "${ARLAB_TEST_UNSERVABLE_TRANSPORT:-}" ]; then
    "${mpirun[@]}" -np "$n" "${preload[@]}" -x ARLAB_VERBOSE=1 -x "ARLAB_TRANSPORT=$ARLAB_TEST_UNSERVABLE_TRANSPORT" "$app" >"$work/out" 2>&1 ||
      { cat "$work/out"; fail "run with ARLAB_TRANSPORT=$ARLAB_TEST_UNSERVABLE_TRANSPORT"; }
    cat "$work/out"
    grep -q "goes to the MPI library: transport cannot serve the communicator (" "$work/out" || fail "no reason given for the transport"
    grep -q " 0 served by arlab" "$work/out" || fail "calls served on a transport that cannot serve"
  fi
  echo "PASS: every unsupported call went to the library, results unchanged"
  ;;
min-bytes)
  "${mpirun[@]}" -np "$n" "${preload[@]}" -x ARLAB_MIN_BYTES=1K "$app" >"$work/out" 2>&1 || { cat "$work/out"; fail "run"; }
  cat "$work/out"
  grep -Eq "[1-9][0-9]* served by arlab \(auto on mpi, from 1K\), [1-9][0-9]* passed to the MPI library \(below ARLAB_MIN_BYTES [0-9]+\)" "$work/out" ||
    fail "summary does not show small calls passed and large ones served"
  echo "PASS"
  ;;
bad-settings)
  "${mpirun[@]}" -np "$n" "${preload[@]}" -x ARLAB_ALGO=bogus "$app" >"$work/out" 2>&1
  rc=$?
  cat "$work/out"
  [ $rc -ne 0 ] || fail "ARLAB_ALGO=bogus: exit status 0"
  [ "$(grep -c '^arlab: ARLAB_ALGO=bogus: unknown algorithm; known: ring' "$work/out")" = 1 ] || fail "expected one line naming ARLAB_ALGO"
  "${mpirun[@]}" -np 1 -x "LD_PRELOAD=$lib" -x ARLAB_ALGO=ring "$app" : -np $((n - 1)) -x "LD_PRELOAD=$lib" -x ARLAB_ALGO=rd "$app" >"$work/out" 2>&1
  rc=$?
  cat "$work/out"
  [ $rc -ne 0 ] || fail "differing ARLAB_ALGO: exit status 0"
  [ "$(grep -c '^arlab: ARLAB_\* settings differ between ranks: rank 0 runs ring on mpi, rank 1 runs rd on mpi' "$work/out")" = 1 ] ||
    fail "expected one line naming the differing ranks"
  grep -q "pmpi_app:" "$work/out" && fail "the application ran"
  echo "PASS"
  ;;
*) fail "unknown mode $mode" ;;
esac
