# The control core's compiler and linker flags: the one definition that the in-tree rv32 build
# (riscv32-toolchain.cmake, firmware/CMakeLists.txt) and the installed firmware SDK (StrataFirmware.cmake,
# strata_add_firmware) both read, so a program built either way gets the same code and the same cycle counts.
# Only variables: safe to include more than once (toolchain files are read again by every try_compile).

if(NOT STRATA_RISCV_PREFIX)
  set(STRATA_RISCV_PREFIX riscv64-unknown-elf-)  # Debian/Ubuntu package gcc-riscv64-unknown-elf
endif()

# rv32im with the CSR and fence.i extensions spelled out (newer binutils need them for csrr/csrw).
set(STRATA_FW_ARCH_FLAGS -march=rv32im_zicsr_zifencei -mabi=ilp32)
# Freestanding: no C library, no start files, no heap; the compiler may not turn loops into memcpy calls.
set(STRATA_FW_C_FLAGS ${STRATA_FW_ARCH_FLAGS} -ffreestanding -fno-builtin -nostdlib -ffunction-sections
                      -fdata-sections -fno-tree-loop-distribute-patterns -Wno-format)
set(STRATA_FW_CXX_FLAGS ${STRATA_FW_C_FLAGS} -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-use-cxa-atexit)
set(STRATA_FW_CXX_STANDARD 20)  # as -std=gnu++20
set(STRATA_FW_ASM_FLAGS ${STRATA_FW_ARCH_FLAGS})
# The optimization level every image is built at: it sets the cycle counts the docs quote.
set(STRATA_FW_OPT_FLAGS -O3 -DNDEBUG)
set(STRATA_FW_WARNINGS -Wall -Wextra -Werror=return-type -Wno-unused-parameter)
set(STRATA_FW_LINK_FLAGS -nostdlib -nostartfiles -Wl,--no-warn-rwx-segments -Wl,--gc-sections -Wl,--no-undefined)
# libgcc (64-bit division and shifts on rv32): the multilib matches plain rv32im, not the _zicsr_zifencei
# spelling, so it is asked for by these flags (riscv64-unknown-elf-gcc alone would give the 64-bit one).
set(STRATA_FW_LIBGCC_FLAGS -march=rv32im -mabi=ilp32)

# Sets `out` to the path of the rv32 libgcc of the compiler `gcc`, or to "" when it has none.
function(strata_firmware_libgcc gcc out)
  execute_process(COMMAND ${gcc} ${STRATA_FW_LIBGCC_FLAGS} -print-libgcc-file-name
                  OUTPUT_VARIABLE libgcc OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_QUIET)
  if(NOT rc EQUAL 0 OR NOT IS_ABSOLUTE "${libgcc}" OR NOT EXISTS "${libgcc}")
    set(libgcc "")  # gcc prints the bare name "libgcc.a" when it has no such multilib
  endif()
  set(${out} "${libgcc}" PARENT_SCOPE)
endfunction()
