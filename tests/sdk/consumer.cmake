# Builds examples/sdk-consumer against an installed prefix, the way a user would, and runs it on each backend.
# usage: cmake -DMODE=cmake|static|pkg-config|relocated -DPREFIX=<prefix> -DSOURCE=<examples/sdk-consumer>
#              -DWORK=<scratch dir> -DCXX=<c++ compiler> "-DBACKENDS=gpu-emu;sim" -P consumer.cmake
#   cmake       find_package(Strata) -> Strata::driver (CMAKE_PREFIX_PATH=PREFIX)
#   static      the same with Strata::driver_static (libstrata.a)
#   pkg-config  c++ main.cc $(pkg-config --cflags --libs strata), run with LD_LIBRARY_PATH
#   relocated   the prefix copied elsewhere: the library finds the firmware beside itself, not in the build
#               tree and not in the old prefix (a broken runtime image in the copy makes the sim backend fail)
cmake_minimum_required(VERSION 3.25)  # IN_LIST

function(run_consumer exe lib_dir expect_rc expect_regex)
  foreach(backend ${BACKENDS})
    execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=STRATA_RUNTIME_FIRMWARE LD_LIBRARY_PATH=${lib_dir}
                            ${exe} ${backend}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL expect_rc OR NOT "${out}${err}" MATCHES "${expect_regex}")
      message(FATAL_ERROR "${exe} ${backend}: exit ${rc} (want ${expect_rc}), output does not match '${expect_regex}':\n${out}${err}")
    endif()
    message(STATUS "${backend}: ${out}${err}")
  endforeach()
endfunction()

function(build_with_pkg_config prefix out_exe)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${prefix}/lib/pkgconfig
                          pkg-config --cflags --libs strata
                  RESULT_VARIABLE rc OUTPUT_VARIABLE flags ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config --cflags --libs strata failed: ${err}")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  execute_process(COMMAND ${CXX} -std=c++17 ${SOURCE}/main.cc ${flags} -o ${out_exe}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${CXX} main.cc ${flags} failed:\n${out}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
if(MODE STREQUAL "cmake" OR MODE STREQUAL "static")
  set(static OFF)
  if(MODE STREQUAL "static")
    set(static ON)
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK} -G Ninja -DCMAKE_PREFIX_PATH=${PREFIX}
                          -DCMAKE_CXX_COMPILER=${CXX} -DSTRATA_CONSUMER_STATIC=${static}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "configuring the consumer against ${PREFIX} failed:\n${out}")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "building the consumer failed:\n${out}")
  endif()
  # No LD_LIBRARY_PATH needed: CMake gives the program the imported library's folder as its run path.
  run_consumer(${WORK}/strata-consumer "" 0 "strata-consumer: OK")
  if(static)
    # Linked statically, the program needs no libstrata.so ...
    execute_process(COMMAND readelf -d ${WORK}/strata-consumer OUTPUT_VARIABLE dynamic)
    if(dynamic MATCHES "libstrata")
      message(FATAL_ERROR "the static consumer still needs libstrata.so:\n${dynamic}")
    endif()
    # ... and it names the install's firmware folder (share/strata/sdk/firmware_dir.cc, linked in by
    # Strata::driver_static), which the sim backend tries before the build tree's.
    file(STRINGS ${WORK}/strata-consumer named REGEX "sdk-prefix/share/strata/firmware$")
    if(NOT named)
      message(FATAL_ERROR "the static consumer does not name ${PREFIX}/share/strata/firmware")
    endif()
  endif()
elseif(MODE STREQUAL "pkg-config")
  build_with_pkg_config(${PREFIX} ${WORK}/strata-consumer)
  run_consumer(${WORK}/strata-consumer ${PREFIX}/lib 0 "strata-consumer: OK")
elseif(MODE STREQUAL "relocated")
  set(moved ${WORK}/moved-prefix)
  file(COPY ${PREFIX}/ DESTINATION ${moved})
  build_with_pkg_config(${moved} ${WORK}/strata-consumer)
  run_consumer(${WORK}/strata-consumer ${moved}/lib 0 "strata-consumer: OK")
  if("sim" IN_LIST BACKENDS)
    # Break the moved prefix's runtime image: the library must fail on that file, naming it.
    file(WRITE ${moved}/share/strata/firmware/runtime.elf "not an ELF")
    set(BACKENDS sim)
    run_consumer(${WORK}/strata-consumer ${moved}/lib 1 "UNAVAILABLE.*moved-prefix/lib/../share/strata/firmware/runtime.elf")
  endif()
else()
  message(FATAL_ERROR "MODE must be cmake, static, pkg-config or relocated, not '${MODE}'")
endif()
