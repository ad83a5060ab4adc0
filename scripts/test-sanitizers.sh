#!/usr/bin/env bash
# Builds everything the sanitizer configuration has (STRATA_BUILD_SIM=OFF: the host code, build/asan) under
# AddressSanitizer + UndefinedBehaviorSanitizer and runs the tests labelled `unit` (cmake/StrataTesting.cmake: host code
# only, seconds each; build.test_labels shows the selection holds compare.* and workload.*), then every libFuzzer
# target (build/fuzz, clang; the list CMake writes, tests/fuzz) for a bounded time each, each starting from a scratch
# copy of its committed seed corpus (tests/fuzz/corpus/<target>; the repository is never written).
# Usage: scripts/test-sanitizers.sh [FUZZ_SECONDS] (default 12: about a minute for the targets, JOBS at a time).
# Environment: JOBS (default 2), BUILD_ROOT (default <repo>/build).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build_root="${BUILD_ROOT:-$root/build}"
jobs="${JOBS:-2}"
fuzz_seconds="${1:-12}"
. "$root/scripts/compiler-cache.sh"

echo "== ASan+UBSan unit tests ($build_root/asan)" >&2
cmake -S "$root" -B "$build_root/asan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSTRATA_BUILD_SIM=OFF -DSTRATA_BUILD_FIRMWARE_IMAGES=OFF -DSTRATA_SANITIZE=ON >&2
cmake --build "$build_root/asan" -j "$jobs" >&2
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$build_root/asan" -L '^unit$' --output-on-failure -j "$jobs"

echo "== libFuzzer targets for ${fuzz_seconds}s each ($build_root/fuzz)" >&2
CC=clang CXX=clang++ cmake -S "$root" -B "$build_root/fuzz" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSTRATA_BUILD_SIM=OFF -DSTRATA_BUILD_FIRMWARE_IMAGES=OFF -DSTRATA_FUZZ=ON >&2
# The targets tests/fuzz/CMakeLists.txt registers, one "NAME PATH" file each (strata_add_fuzzer), built alone.
declare -A fuzzer_path=()
shopt -s nullglob
for list in "$build_root/fuzz/fuzzers"/*.txt; do
  read -r name path <"$list"
  fuzzer_path[$name]=$path
done
if [ "${#fuzzer_path[@]}" = 0 ]; then
  echo "test-sanitizers: $build_root/fuzz/fuzzers lists no fuzz target" >&2
  exit 1
fi
mapfile -t fuzzers < <(printf '%s\n' "${!fuzzer_path[@]}" | sort)
cmake --build "$build_root/fuzz" -j "$jobs" --target "${fuzzers[@]}" >&2
# JOBS fuzzers at a time (each is one process on one core); each one's output goes to its log, printed when it ends.
run_fuzzer() {
  local fuzzer="$1" corpus="$build_root/fuzz/corpus/$1" log="$build_root/fuzz/$1.log"  # scratch: the seeds plus what this run finds
  rm -rf "$corpus"
  mkdir -p "$corpus"
  cp "$root/tests/fuzz/corpus/$fuzzer"/* "$corpus"/
  local seeds
  seeds=$(ls "$corpus" | wc -l)
  if "${fuzzer_path[$fuzzer]}" -max_total_time="$fuzz_seconds" -print_final_stats=1 \
    -artifact_prefix="$build_root/fuzz/$fuzzer-" "$corpus" >"$log" 2>&1; then
    echo "== $fuzzer (${fuzz_seconds}s from $seeds seeds): OK; final stats:" >&2
    grep '^stat::' "$log" >&2 || true
  else
    echo "== $fuzzer (${fuzz_seconds}s from $seeds seeds): FAILED; its output ($log):" >&2
    cat "$log" >&2
    return 1
  fi
}
failed=0
running=0
for fuzzer in "${fuzzers[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
  run_fuzzer "$fuzzer" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
if [ "$failed" != 0 ]; then
  echo "test-sanitizers: a fuzzer failed (its crash input is under $build_root/fuzz/)" >&2
  exit 1
fi
echo "test-sanitizers: OK" >&2
