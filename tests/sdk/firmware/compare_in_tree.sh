#!/usr/bin/env bash
# sdk.firmware.same_as_in_tree: the in-tree apps that link only the start-up library, built out of tree with
# the installed strata_add_firmware, have the in-tree images' loadable bytes exactly: the same flags, start-up
# code, linker script and libgcc (one definition, cmake/StrataFirmwareFlags.cmake).
# usage: compare_in_tree.sh PREFIX STRATA_ROOT RV32_BINARY_DIR WORK RISCV_PREFIX GENERATOR   (exit 77: skipped)
set -u
prefix=$1 root=$2 rv32=$3 work=$4 riscv=$5 generator=$6
apps="hello dmatest libtest doorbell"
if ! command -v "${riscv}gcc" > /dev/null; then
  echo "skipped: no RISC-V cross compiler ${riscv}gcc (package gcc-riscv64-unknown-elf)"
  exit 77
fi
rm -rf "$work"
set -e
cmake -S "$root/tests/sdk/firmware/same_as_in_tree" -B "$work" -G "$generator" -DCMAKE_PREFIX_PATH="$prefix" \
  -DSTRATA_RISCV_PREFIX="$riscv" -DSTRATA_SOURCE_DIR="$root" "-DAPPS=${apps// /;}"
cmake --build "$work"
for app in $apps; do
  "${riscv}objcopy" -O binary "$work/$app.elf" "$work/$app.sdk.bin"
  "${riscv}objcopy" -O binary "$rv32/apps/$app/$app.elf" "$work/$app.tree.bin"
  if ! cmp "$work/$app.sdk.bin" "$work/$app.tree.bin"; then
    echo "FAIL: $app.elf from strata_add_firmware differs from the in-tree $rv32/apps/$app/$app.elf"
    exit 1
  fi
  echo "$app: identical ($(stat -c %s "$work/$app.sdk.bin") bytes)"
done
