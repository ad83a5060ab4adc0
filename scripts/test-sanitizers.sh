#!/usr/bin/env bash
# Runs the allocator's, the runtime decoder's, the GPU policies' and the driver core's unit tests under AddressSanitizer + UndefinedBehaviorSanitizer
# (build/asan) and their libFuzzer targets for a bounded time each (build/fuzz, clang). Usage: scripts/test-sanitizers.sh [FUZZ_SECONDS]
# Environment: JOBS (default 2), BUILD_ROOT (default <repo>/build), CTEST_REGEX (default: the allocator).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build_root="${BUILD_ROOT:-$root/build}"
jobs="${JOBS:-2}"
fuzz_seconds="${1:-30}"
regex="${CTEST_REGEX:-AllocatorConformance|Compaction|RandomOps|TraceReplay|MalformedTrace|Capacity|strata_replay|RuntimeDecoder|^gpu\.|^host\.core\.|^host\.gpu_emu\.}"

echo "== ASan+UBSan unit tests ($build_root/asan)" >&2
cmake -S "$root" -B "$build_root/asan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSTRATA_BUILD_SIM=OFF -DSTRATA_BUILD_FIRMWARE_IMAGES=OFF -DSTRATA_SANITIZE=ON >&2
cmake --build "$build_root/asan" -j "$jobs" --target alloc_test strata-replay runtime_decoder_test gpu_test driver_core_test gpu_emu_test >&2
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$build_root/asan" -R "$regex" --output-on-failure -j "$jobs"

echo "== libFuzzer targets for ${fuzz_seconds}s each ($build_root/fuzz)" >&2
CC=clang CXX=clang++ cmake -S "$root" -B "$build_root/fuzz" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSTRATA_BUILD_SIM=OFF -DSTRATA_BUILD_FIRMWARE_IMAGES=OFF -DSTRATA_FUZZ=ON >&2
cmake --build "$build_root/fuzz" -j "$jobs" --target alloc_fuzz runtime_decoder_fuzz >&2
for fuzzer in alloc_fuzz runtime_decoder_fuzz; do
  corpus="$build_root/fuzz/${fuzzer}_corpus"
  mkdir -p "$corpus"
  echo "== $fuzzer" >&2
  "$build_root/fuzz/tests/firmware/fuzz/$fuzzer" -max_total_time="$fuzz_seconds" -max_len=4096 \
    -print_final_stats=1 "$corpus"
done
echo "test-sanitizers: OK" >&2
