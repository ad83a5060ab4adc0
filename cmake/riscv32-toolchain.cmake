# Toolchain file: Debian's riscv64-unknown-elf GCC targeting bare-metal rv32im (ilp32).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)
if(NOT STRATA_RISCV_PREFIX)
  set(STRATA_RISCV_PREFIX riscv64-unknown-elf-)
endif()
set(CMAKE_C_COMPILER ${STRATA_RISCV_PREFIX}gcc)
set(CMAKE_CXX_COMPILER ${STRATA_RISCV_PREFIX}g++)
set(CMAKE_ASM_COMPILER ${STRATA_RISCV_PREFIX}gcc)
set(CMAKE_OBJCOPY ${STRATA_RISCV_PREFIX}objcopy)
set(CMAKE_OBJDUMP ${STRATA_RISCV_PREFIX}objdump)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(STRATA_RV32_FLAGS "-march=rv32im_zicsr_zifencei -mabi=ilp32 -ffreestanding -fno-builtin -nostdlib -ffunction-sections -fdata-sections -fno-tree-loop-distribute-patterns -Wno-format")
set(CMAKE_C_FLAGS_INIT "${STRATA_RV32_FLAGS}")
set(CMAKE_CXX_FLAGS_INIT "${STRATA_RV32_FLAGS} -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-use-cxa-atexit")
set(CMAKE_ASM_FLAGS_INIT "-march=rv32im_zicsr_zifencei -mabi=ilp32")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-nostdlib -nostartfiles -Wl,--no-warn-rwx-segments -Wl,--gc-sections -Wl,--no-undefined")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)

# libgcc (64-bit division and shifts on rv32): the multilib matches plain rv32im, not the
# _zicsr_zifencei spelling newer binutils need for CSR instructions, so name it explicitly.
execute_process(COMMAND ${STRATA_RISCV_PREFIX}gcc -march=rv32im -mabi=ilp32 -print-libgcc-file-name
                OUTPUT_VARIABLE STRATA_RV32_LIBGCC OUTPUT_STRIP_TRAILING_WHITESPACE)
