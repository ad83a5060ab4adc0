# Helper functions shared by Strata's CMake files.
include_guard(GLOBAL)

find_package(Python3 REQUIRED COMPONENTS Interpreter)

set(STRATA_ROOT ${CMAKE_CURRENT_LIST_DIR}/..)
get_filename_component(STRATA_ROOT ${STRATA_ROOT} ABSOLUTE)
set(STRATA_GENERATED_DIR ${CMAKE_BINARY_DIR}/generated)

if(STRATA_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()

# STRATA_PGO (the top-level CMakeLists.txt). Results do not depend on it: only the compiler's choices do.
if(NOT STRATA_PGO STREQUAL "OFF")
  if(NOT STRATA_PGO MATCHES "^(GENERATE|USE)$")
    message(FATAL_ERROR "STRATA_PGO is '${STRATA_PGO}': use OFF, GENERATE or USE (scripts/build-pgo.sh runs both steps)")
  endif()
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    message(FATAL_ERROR "STRATA_PGO needs GCC (its -fprofile-generate/-fprofile-use profile format); the compiler is ${CMAKE_CXX_COMPILER_ID}")
  endif()
  if(STRATA_SANITIZE OR STRATA_FUZZ)
    message(FATAL_ERROR "STRATA_PGO is for speed: it does not go with STRATA_SANITIZE or STRATA_FUZZ")
  endif()
  if(STRATA_PGO STREQUAL "GENERATE")
    # The FST writer runs in a thread of its own: atomic counters keep its profile whole.
    set(strata_pgo_flags -fprofile-generate=${STRATA_PGO_DIR} -fprofile-update=prefer-atomic)
    add_link_options(-fprofile-generate=${STRATA_PGO_DIR})
  else()
    file(GLOB_RECURSE strata_pgo_profile "${STRATA_PGO_DIR}/*.gcda")
    if(NOT strata_pgo_profile)
      message(FATAL_ERROR "STRATA_PGO=USE: no profile in ${STRATA_PGO_DIR} (build with STRATA_PGO=GENERATE and "
                          "run the training workloads first: scripts/build-pgo.sh does both)")
    endif()
    # Code the training did not run is optimized as without a profile (-fprofile-partial-training); a profile
    # older than the sources is a warning (it costs speed, never a result): scripts/build-pgo.sh makes a new one.
    set(strata_pgo_flags -fprofile-use=${STRATA_PGO_DIR} -fprofile-partial-training -Wno-missing-profile
                         -Wno-error=coverage-mismatch)
  endif()
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${strata_pgo_flags}>")
  if(CMAKE_INTERPROCEDURAL_OPTIMIZATION)
    # GCC 12 diagnoses again at link time, after inlining across files, and reports false string-bound
    # overflows in libstdc++'s std::string and Verilator's fstapi.c (none is reached: the default build, without LTO,
    # reports none of them).
    add_link_options(-Wno-stringop-overflow -Wno-stringop-overread)
  endif()
  message(STATUS "STRATA_PGO=${STRATA_PGO}, profile in ${STRATA_PGO_DIR}")
endif()

# Emits tpu_regmap_pkg.sv, strata/regmap.h and strata_memory.ld (the firmware's SMEM region) from
# rtl/regmap.json; defines target strata_regmap.
function(strata_generate_regmap)
  set(json ${STRATA_ROOT}/rtl/regmap.json)
  set(gen ${STRATA_ROOT}/scripts/gen_regmap.py)
  set(fresh ${CMAKE_BINARY_DIR}/CMakeFiles/regmap)
  file(MAKE_DIRECTORY ${STRATA_GENERATED_DIR}/strata ${STRATA_GENERATED_DIR}/rtl ${fresh})
  execute_process(
    COMMAND ${Python3_EXECUTABLE} ${gen} ${json} --sv ${fresh}/tpu_regmap_pkg.sv --header ${fresh}/regmap.h
            --ld ${fresh}/strata_memory.ld
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gen_regmap.py failed on ${json}")
  endif()
  # Copied only when they changed: a new timestamp on every configure would re-Verilate every chip size and
  # recompile everything that includes regmap.h.
  file(COPY_FILE ${fresh}/tpu_regmap_pkg.sv ${STRATA_GENERATED_DIR}/rtl/tpu_regmap_pkg.sv ONLY_IF_DIFFERENT)
  file(COPY_FILE ${fresh}/regmap.h ${STRATA_GENERATED_DIR}/strata/regmap.h ONLY_IF_DIFFERENT)
  file(COPY_FILE ${fresh}/strata_memory.ld ${STRATA_GENERATED_DIR}/strata_memory.ld ONLY_IF_DIFFERENT)
  set_property(DIRECTORY ${CMAKE_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${json} ${gen})
  if(NOT TARGET strata_regmap)
    add_library(strata_regmap INTERFACE)
    target_include_directories(strata_regmap INTERFACE ${STRATA_GENERATED_DIR})
  endif()
endfunction()

# Where the rv32 build of firmware/ goes (apps/<app>/<app>.elf): known before that build is added, because
# the host code's default image paths point into it (sim/firmware_image.cc, the sim backend).
set(STRATA_RV32_BINARY_DIR ${CMAKE_BINARY_DIR}/rv32)

# Cross-compiles firmware/ (and the ISA tests) for rv32im as a separate CMake build, so the
# host and the RISC-V toolchains never mix in one project.
function(strata_add_firmware_images)
  include(ExternalProject)
  ExternalProject_Add(firmware_rv32
    SOURCE_DIR ${STRATA_ROOT}/firmware
    BINARY_DIR ${STRATA_RV32_BINARY_DIR}
    CMAKE_ARGS
      -DCMAKE_TOOLCHAIN_FILE=${STRATA_ROOT}/cmake/riscv32-toolchain.cmake
      -DSTRATA_RISCV_PREFIX=${STRATA_RISCV_PREFIX}
      -DSTRATA_GENERATED_DIR=${STRATA_GENERATED_DIR}
      -DCMAKE_BUILD_TYPE=Release
      -DCMAKE_MAKE_PROGRAM=${CMAKE_MAKE_PROGRAM}
    BUILD_ALWAYS ON
    INSTALL_COMMAND ""
    USES_TERMINAL_BUILD ON)
endfunction()

# A command-line test that checks both the exit status and the output (a PASS_REGULAR_EXPRESSION alone
# would pass a program that crashes after printing its message):
#   strata_add_expect_test(NAME n STATUS 2 REGEX "msg" [SKIP_REGEX "why"] LABELS l... [TIMEOUT s] [CHECK_FILE f]
#                          COMMAND prog args...)
# LABELS name what it needs (cmake/StrataTesting.cmake), with any area labels.
set(STRATA_EXPECT_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/ExpectOutput.cmake)
function(strata_add_expect_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;STATUS;REGEX;SKIP_REGEX;TIMEOUT;CHECK_FILE" "LABELS;COMMAND")
  if(NOT arg_NAME OR "${arg_STATUS}" STREQUAL "" OR NOT arg_COMMAND)
    message(FATAL_ERROR "strata_add_expect_test: NAME, STATUS and COMMAND are required")
  endif()
  strata_check_test_needs(${arg_NAME} ${arg_LABELS})
  set(check)
  if(arg_CHECK_FILE)
    set(check "-DCHECK_FILE=${arg_CHECK_FILE}")
  endif()
  if(arg_SKIP_REGEX)
    list(APPEND check "-DSKIP_REGEX=${arg_SKIP_REGEX}")
  endif()
  add_test(NAME ${arg_NAME} COMMAND ${CMAKE_COMMAND} -DSTATUS=${arg_STATUS} "-DREGEX=${arg_REGEX}" ${check}
                                    -P ${STRATA_EXPECT_SCRIPT} -- ${arg_COMMAND})
  set_tests_properties(${arg_NAME} PROPERTIES LABELS "${arg_LABELS}")
  if(arg_TIMEOUT)
    set_tests_properties(${arg_NAME} PROPERTIES TIMEOUT ${arg_TIMEOUT})
  endif()
  if(arg_SKIP_REGEX)
    set_tests_properties(${arg_NAME} PROPERTIES SKIP_REGULAR_EXPRESSION "strata-expect: skipped")
  endif()
endfunction()
