#!/usr/bin/env bash
# sdk.firmware.example: examples/firmware-sdk built out of tree against the installed prefix with
# find_package(Strata) + strata_add_firmware, run on strata-sim with a waveform; passes when the program does.
# usage: run_example.sh PREFIX SOURCE WORK STRATA_SIM RISCV_PREFIX GENERATOR   (exit 77: skipped)
set -u
prefix=$1 source=$2 work=$3 sim=$4 riscv=$5 generator=$6
if ! command -v "${riscv}gcc" > /dev/null; then
  echo "skipped: no RISC-V cross compiler ${riscv}gcc (package gcc-riscv64-unknown-elf)"
  exit 77
fi
rm -rf "$work"
set -ex
cmake -S "$source" -B "$work" -G "$generator" -DCMAKE_PREFIX_PATH="$prefix" -DSTRATA_RISCV_PREFIX="$riscv"
cmake --build "$work"
test -s "$work/matmul.lst" -a -s "$work/matmul.map"
rc=0
out=$("$sim" --trace "$work/matmul.fst" --trace-end 60000 "$work/matmul.elf" 2>&1) || rc=$?
set +x
echo "$out"
[[ $rc -eq 0 ]] || { echo "FAIL: strata-sim exited $rc"; exit 1; }
grep -q "^PASS: all [0-9]* elements match" <<< "$out" || { echo "FAIL: no PASS line"; exit 1; }
test -s "$work/matmul.fst" || { echo "FAIL: no waveform"; exit 1; }
echo "sdk.firmware.example: ok"
