# strata_add_firmware: builds a program of one's own for Strata's RISC-V control core (docs/firmware.md) exactly
# as the in-tree images are built: the same flags (StrataFirmwareFlags.cmake, read by the in-tree toolchain file
# too), start-up code, linker script, rv32 libgcc, generated headers and firmware libraries.
#
#   strata_add_firmware(NAME SOURCES src... [LIBS lib...] [INCLUDE_DIRECTORIES dir...] [DEFINITIONS def...])
#
# Builds ${CMAKE_CURRENT_BINARY_DIR}/NAME.elf, with NAME.map and a disassembly NAME.lst, as target NAME (part of
# `all`); the target's property STRATA_FIRMWARE_ELF is the ELF's path. SOURCES: C++ (.cc .cpp .cxx), C (.c),
# assembly (.S .s), relative to the current source directory; headers are skipped. LIBS: more rv32 archives
# (paths), linked before the SDK's. DEFINITIONS: NAME or NAME=VALUE.
# Every image links libstrata_fw_base.a whole (crt0: stack, .bss, constructors, main, then exit through tohost;
# the trap entry; arch, console, DMA, mem*) and, as needed, the matrix-unit driver, the GEMM kernel and the HBM
# allocator. Include paths are the in-tree ones: "arch/arch.h", "drivers/console.h", "strata/regmap.h"...
#
# The cross compiler runs from custom commands, so any project can call this, `project(x LANGUAGES NONE)`
# included, and its host compilers never mix with it. Installed in <prefix>/<libdir>/cmake/Strata beside
# StrataConfig.cmake (find_package(Strata) includes it); the SDK it uses is <prefix>/share/strata/firmware-sdk.
# Variables read: STRATA_RISCV_PREFIX (default riscv64-unknown-elf-), STRATA_FIRMWARE_SDK_DIR (default: found
# from this file's place).
include_guard(GLOBAL)
if(CMAKE_VERSION VERSION_LESS 3.20)
  message(FATAL_ERROR "strata_add_firmware needs CMake 3.20 or newer (this is ${CMAKE_VERSION})")
endif()

cmake_policy(PUSH)
cmake_policy(SET CMP0116 NEW)  # the compilers' depfiles are used as written (absolute paths)

function(strata_add_firmware name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;LIBS;INCLUDE_DIRECTORIES;DEFINITIONS")
  set(me "strata_add_firmware(${name})")
  if(NOT name OR name MATCHES "^(SOURCES|LIBS|INCLUDE_DIRECTORIES|DEFINITIONS)$")
    message(FATAL_ERROR "strata_add_firmware: the first argument is the program's name: strata_add_firmware(NAME SOURCES src...)")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${me}: unknown arguments '${arg_UNPARSED_ARGUMENTS}' (it takes SOURCES, LIBS, INCLUDE_DIRECTORIES, DEFINITIONS)")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "${me}: no SOURCES given: strata_add_firmware(${name} SOURCES main.cc)")
  endif()
  if(TARGET ${name})
    message(FATAL_ERROR "${me}: a target named '${name}' already exists")
  endif()

  include(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/StrataFirmwareFlags.cmake)  # STRATA_FW_*: the in-tree flags

  # The SDK: <prefix>/share/strata/firmware-sdk, this file being in <prefix>/lib/cmake/Strata (or a deeper libdir).
  set(sdk "${STRATA_FIRMWARE_SDK_DIR}")
  if(NOT sdk)
    set(dir "${CMAKE_CURRENT_FUNCTION_LIST_DIR}")
    foreach(up RANGE 1 4)
      get_filename_component(dir "${dir}" DIRECTORY)
      if(EXISTS "${dir}/share/strata/firmware-sdk/ld/link.ld")
        set(sdk "${dir}/share/strata/firmware-sdk")
        break()
      endif()
    endforeach()
  endif()
  set(base "${sdk}/lib/libstrata_fw_base.a")
  if(NOT sdk OR NOT EXISTS "${sdk}/ld/link.ld" OR NOT EXISTS "${base}")
    message(FATAL_ERROR "${me}: no firmware SDK (share/strata/firmware-sdk) in the Strata installation at "
                        "${CMAKE_CURRENT_FUNCTION_LIST_DIR}; install a Strata built with STRATA_BUILD_FIRMWARE_IMAGES=ON, "
                        "or set STRATA_FIRMWARE_SDK_DIR")
  endif()

  # The cross toolchain, looked up once per prefix.
  string(MAKE_C_IDENTIFIER "${STRATA_RISCV_PREFIX}" id)
  foreach(tool gcc g++ nm objdump)
    string(MAKE_C_IDENTIFIER "${tool}" tool_id)
    find_program(STRATA_FW_${id}${tool_id} NAMES ${STRATA_RISCV_PREFIX}${tool}
                 DOC "RISC-V cross ${tool} for strata_add_firmware")
    if(NOT STRATA_FW_${id}${tool_id})
      message(FATAL_ERROR "${me}: the RISC-V cross toolchain is not installed: ${STRATA_RISCV_PREFIX}${tool} not "
                          "found. Install the package gcc-riscv64-unknown-elf (Debian/Ubuntu: apt-get install "
                          "gcc-riscv64-unknown-elf binutils-riscv64-unknown-elf), or set STRATA_RISCV_PREFIX to your "
                          "toolchain's prefix.")
    endif()
    set(${tool_id} "${STRATA_FW_${id}${tool_id}}")
  endforeach()
  strata_firmware_libgcc(${gcc} libgcc)
  if(NOT libgcc)
    message(FATAL_ERROR "${me}: ${gcc} has no rv32im/ilp32 libgcc multilib (${STRATA_FW_LIBGCC_FLAGS} "
                        "-print-libgcc-file-name); Debian's gcc-riscv64-unknown-elf has one")
  endif()

  set(includes)
  foreach(dir IN LISTS arg_INCLUDE_DIRECTORIES)
    get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND includes "-I${dir}")
  endforeach()
  list(APPEND includes "-I${sdk}/include")
  list(TRANSFORM arg_DEFINITIONS PREPEND "-D" OUTPUT_VARIABLE defines)

  # Compile: the in-tree command line (lang flags, optimization, warnings, standard) with the SDK's headers.
  set(objdir "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${name}.rv32")
  set(objs)
  foreach(src IN LISTS arg_SOURCES)
    get_filename_component(abs "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(ext "${abs}" LAST_EXT)
    if(ext MATCHES "^\\.(cc|cpp|cxx|c\\+\\+|C)$")
      set(compile ${g__} ${STRATA_FW_CXX_FLAGS} ${STRATA_FW_OPT_FLAGS} ${STRATA_FW_WARNINGS}
                  -std=gnu++${STRATA_FW_CXX_STANDARD})
    elseif(ext STREQUAL ".c")
      set(compile ${gcc} ${STRATA_FW_C_FLAGS} ${STRATA_FW_OPT_FLAGS} ${STRATA_FW_WARNINGS})
    elseif(ext MATCHES "^\\.[sS]$")
      set(compile ${gcc} ${STRATA_FW_ASM_FLAGS} ${STRATA_FW_OPT_FLAGS} ${STRATA_FW_WARNINGS})
    elseif(ext MATCHES "^\\.(h|hh|hpp|hxx|inc)$")
      continue()
    elseif(src MATCHES "^[A-Z][A-Z_]*$")  # cmake_parse_arguments left it in SOURCES
      message(FATAL_ERROR "${me}: unknown keyword ${src} (it takes SOURCES, LIBS, INCLUDE_DIRECTORIES, DEFINITIONS)")
    else()
      message(FATAL_ERROR "${me}: ${src}: not a C++ (.cc .cpp .cxx), C (.c) or assembly (.S .s) source")
    endif()
    if(NOT EXISTS "${abs}")
      message(FATAL_ERROR "${me}: source ${src} not found (looked for ${abs})")
    endif()
    file(RELATIVE_PATH rel "${CMAKE_CURRENT_SOURCE_DIR}" "${abs}")
    string(REPLACE "../" "__/" rel "${rel}")
    set(obj "${objdir}/${rel}.o")
    get_filename_component(obj_dir "${obj}" DIRECTORY)
    file(MAKE_DIRECTORY "${obj_dir}")
    add_custom_command(OUTPUT "${obj}"
      COMMAND ${compile} ${defines} ${includes} -MD -MT "${obj}" -MF "${obj}.d" -o "${obj}" -c "${abs}"
      DEPENDS "${abs}" DEPFILE "${obj}.d"
      COMMENT "Building rv32 object ${rel}.o (${name})" VERBATIM COMMAND_EXPAND_LISTS)
    list(APPEND objs "${obj}")
  endforeach()
  if(NOT objs)
    message(FATAL_ERROR "${me}: SOURCES has no C, C++ or assembly file")
  endif()

  # Link: the in-tree order (user archives; the start-up library whole, so _start and the trap entry stay; the
  # other SDK libraries; libgcc), then the in-tree checks (no undefined symbol) and listing.
  set(elf "${CMAKE_CURRENT_BINARY_DIR}/${name}.elf")
  set(sdk_libs "${sdk}/lib/libstrata_fw_gemm.a" "${sdk}/lib/libstrata_fw_mxu.a" "${sdk}/lib/libstrata_fw_alloc.a")
  set(lib_files)
  foreach(lib IN LISTS arg_LIBS)
    if(IS_ABSOLUTE "${lib}")
      list(APPEND lib_files "${lib}")
    endif()
  endforeach()
  add_custom_command(OUTPUT "${elf}" "${CMAKE_CURRENT_BINARY_DIR}/${name}.map"
    BYPRODUCTS "${CMAKE_CURRENT_BINARY_DIR}/${name}.lst"
    COMMAND ${g__} ${STRATA_FW_CXX_FLAGS} ${STRATA_FW_OPT_FLAGS} ${STRATA_FW_LINK_FLAGS} -L${sdk}/ld
            -T${sdk}/ld/link.ld -Wl,-Map=${CMAKE_CURRENT_BINARY_DIR}/${name}.map ${objs} -o "${elf}" ${arg_LIBS}
            -Wl,--whole-archive "${base}" -Wl,--no-whole-archive ${sdk_libs} "${libgcc}"
    COMMAND ${CMAKE_COMMAND} -DNM=${nm} -DELF=${elf} -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/CheckFreestanding.cmake
    COMMAND ${objdump} -d "${elf}" > "${CMAKE_CURRENT_BINARY_DIR}/${name}.lst"
    DEPENDS ${objs} ${lib_files} "${base}" ${sdk_libs} "${sdk}/ld/link.ld" "${sdk}/ld/strata_memory.ld"
    COMMENT "Linking rv32 firmware ${name}.elf" VERBATIM COMMAND_EXPAND_LISTS)
  add_custom_target(${name} ALL DEPENDS "${elf}")
  set_target_properties(${name} PROPERTIES STRATA_FIRMWARE_ELF "${elf}")
endfunction()

cmake_policy(POP)
