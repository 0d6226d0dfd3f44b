#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (AddressSanitizer + UndefinedBehaviorSanitizer) and
# runs each for a bounded time: first every saved regression input (tests/fuzz/regressions/<target>/,
# inputs that once crashed), then new inputs. A crash fails the test and its input is kept in
# BUILD_DIR/fuzz/: copy it into regressions/<target>/ with the fix.
# usage: fuzz.sh BUILD_DIR SECONDS_PER_TARGET
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$1/fuzz
seconds=${2:-30}
CLANG=${CLANG:-clang++}
command -v "$CLANG" >/dev/null || { echo "SKIP: $CLANG not found (Debian: apt-get install clang libclang-rt-14-dev)"; exit 77; }
mkdir -p "$out"
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -I"$src" -I"$1/generated")
# The generators and the checker (no reducers: nothing here moves data).
algorithms=()
for f in "$src"/algorithms/*.cpp; do [ "$(basename "$f")" = reducers.cpp ] || algorithms+=("$f"); done

build() {  # target, sources...
  local target=$1
  shift
  [ "$out/$target" -nt "$src/tests/fuzz/$target.cpp" ] && [ -z "$(find "$src/algorithms" "$src/harness" -newer "$out/$target" -name '*.[ch]*' | head -1)" ] && return
  echo "fuzz: building $target"
  "$CLANG" "${flags[@]}" -o "$out/$target" "$src/tests/fuzz/$target.cpp" "$@"
}
build fuzz_schedules "${algorithms[@]}"
build fuzz_sizes "$src/harness/sizes.cpp"

status=0
for target in fuzz_schedules fuzz_sizes; do
  regressions=$src/tests/fuzz/regressions/${target#fuzz_}
  corpus=$out/corpus-$target
  mkdir -p "$corpus"
  if [ -n "$(ls -A "$regressions" 2>/dev/null)" ]; then
    "$out/$target" "$regressions"/* >"$out/$target.regressions.log" 2>&1 ||
      { echo "FAIL $target: a saved regression input fails again"; tail -20 "$out/$target.regressions.log"; status=1; continue; }
  fi
  if "$out/$target" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -artifact_prefix="$out/$target-" \
    "$corpus" >"$out/$target.log" 2>&1; then
    echo "ok   $target: $(grep -o 'Done [0-9]* runs' "$out/$target.log" || echo 'ran') in $seconds s, no finding"
  else
    echo "FAIL $target: finding kept in $out/ (copy it into $regressions/ with the fix)"
    grep -v '^#' "$out/$target.log" | tail -25
    status=1
  fi
done
exit $status
