include_guard(GLOBAL)
# What a test needs to run: every CTest test carries at least one of these labels (besides any area labels such
# as host, compare, gemm), and scripts choose tests by them, never by lists of names (README.md, Tests):
#   unit   host code only: registered in every configuration (the sanitizer one, STRATA_BUILD_SIM=OFF, too),
#          seconds each, deterministic; scripts/test-sanitizers.sh runs exactly these under ASan + UBSan
#   sim    the Verilated chip (STRATA_BUILD_SIM=ON) or the firmware images that run on it
#   perf   measures or limits time or memory (benchmark smoke runs, peak-RSS bounds, a 64 MiB address space):
#          meaningless under a sanitizer, which reserves terabytes of address space and doubles the memory
#   python the Python package (import strata) or third-party Python modules
#   build  configures, builds, installs or lints the tree itself (SDK install, PGO, clang-format)
#   cuda   a real NVIDIA GPU (skipped without one)
#   slurm  a running Slurm cluster (skipped without one; scripts/slurm-local.sh starts one)
#   fuzz   libFuzzer runs (STRATA_FUZZ=ON, clang); scripts/test-sanitizers.sh runs the targets behind them
#   slow   minutes, with any of the above
# `unit` means "needs nothing else", so a unit test carries no other of these labels. tests/check_test_labels.py
# (CTest build.test_labels) holds every registered test to this, the ones gtest_discover_tests finds included.
set(STRATA_TEST_NEEDS unit sim perf python build cuda slurm fuzz slow)

# strata_check_test_needs(WHAT LABELS...): stops the configure when LABELS name no need, or `unit` with another.
function(strata_check_test_needs what)
  set(needs "")
  foreach(label ${ARGN})
    if(label IN_LIST STRATA_TEST_NEEDS)
      list(APPEND needs ${label})
    endif()
  endforeach()
  list(LENGTH needs count)
  if(count EQUAL 0)
    message(FATAL_ERROR "${what}: its LABELS (${ARGN}) name none of what a test may need: ${STRATA_TEST_NEEDS} "
                        "(cmake/StrataTesting.cmake)")
  endif()
  if("unit" IN_LIST needs AND count GREATER 1)
    message(FATAL_ERROR "${what}: LABELS ${ARGN}: `unit` means it needs nothing else (cmake/StrataTesting.cmake)")
  endif()
endfunction()

# strata_discover_gtests(TARGET LABELS label... [gtest_discover_tests arguments]): the target's tests, labelled. The
# labels are set by a script CTest includes after the discovered list: gtest_discover_tests flattens a list in its
# PROPERTIES, so LABELS "a;b" there kept "a" and dropped the properties after it (CMake 3.25).
function(strata_discover_gtests target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "TEST_PREFIX;DISCOVERY_TIMEOUT" "LABELS;PROPERTIES")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "strata_discover_gtests(${target}): unexpected ${arg_UNPARSED_ARGUMENTS}")
  endif()
  strata_check_test_needs("strata_discover_gtests(${target})" ${arg_LABELS})
  set(args TEST_LIST strata_gtests_${target})
  foreach(key TEST_PREFIX DISCOVERY_TIMEOUT PROPERTIES)
    if(DEFINED arg_${key})
      list(APPEND args ${key} ${arg_${key}})
    endif()
  endforeach()
  gtest_discover_tests(${target} ${args})
  set(script "${CMAKE_CURRENT_BINARY_DIR}/${target}_labels.cmake")
  file(WRITE "${script}" "if(DEFINED strata_gtests_${target})  # undefined while ${target} is not built\n"
                       "  set_tests_properties(\${strata_gtests_${target}} PROPERTIES LABELS \"${arg_LABELS}\")\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${script}")
endfunction()

# strata_tests_here_need(NEED): every test add_test registered so far in this directory needs NEED (for the
# directories whose tests all run the model: tests/sim, tests/rtl, rtl, examples).
function(strata_tests_here_need need)
  if(NOT need IN_LIST STRATA_TEST_NEEDS)
    message(FATAL_ERROR "strata_tests_here_need: '${need}' is none of ${STRATA_TEST_NEEDS}")
  endif()
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(test ${tests})
    get_test_property(${test} LABELS labels)
    if(NOT labels OR NOT need IN_LIST labels)
      set_property(TEST ${test} APPEND PROPERTY LABELS ${need})
    endif()
  endforeach()
endfunction()
