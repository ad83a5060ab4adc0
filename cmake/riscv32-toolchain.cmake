# Toolchain file: Debian's riscv64-unknown-elf GCC targeting bare-metal rv32im (ilp32). The flags come from
# StrataFirmwareFlags.cmake, which the installed firmware SDK (strata_add_firmware) reads too.
include(${CMAKE_CURRENT_LIST_DIR}/StrataFirmwareFlags.cmake)

set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)
set(CMAKE_C_COMPILER ${STRATA_RISCV_PREFIX}gcc)
set(CMAKE_CXX_COMPILER ${STRATA_RISCV_PREFIX}g++)
set(CMAKE_ASM_COMPILER ${STRATA_RISCV_PREFIX}gcc)
set(CMAKE_OBJCOPY ${STRATA_RISCV_PREFIX}objcopy)
set(CMAKE_OBJDUMP ${STRATA_RISCV_PREFIX}objdump)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

list(JOIN STRATA_FW_C_FLAGS " " CMAKE_C_FLAGS_INIT)
list(JOIN STRATA_FW_CXX_FLAGS " " CMAKE_CXX_FLAGS_INIT)
list(JOIN STRATA_FW_ASM_FLAGS " " CMAKE_ASM_FLAGS_INIT)
list(JOIN STRATA_FW_LINK_FLAGS " " CMAKE_EXE_LINKER_FLAGS_INIT)
# The images are built as Release (cmake/StrataCommon.cmake); its flags are the SDK's optimization flags, set
# here before CMake's defaults could be (a cache entry that exists is not overwritten).
list(JOIN STRATA_FW_OPT_FLAGS " " strata_fw_opt)
foreach(lang C CXX ASM)
  set(CMAKE_${lang}_FLAGS_RELEASE "${strata_fw_opt}" CACHE STRING "Release flags of the rv32 firmware (StrataFirmwareFlags.cmake)")
endforeach()

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)

strata_firmware_libgcc(${STRATA_RISCV_PREFIX}gcc STRATA_RV32_LIBGCC)
