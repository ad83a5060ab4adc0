# sdk.install: a fresh `cmake --install BUILD --prefix PREFIX`, then the files a user needs are there.
# usage: cmake -DBUILD=<build dir> -DPREFIX=<prefix> -P install.cmake
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${PREFIX} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc}):\n${out}")
endif()
foreach(f include/strata/strata.h include/strata/strata.hpp include/strata/named_options.hpp include/strata/status.h
          include/strata/gemm.h lib/libstrata.so lib/cmake/Strata/StrataConfig.cmake
          lib/cmake/Strata/StrataConfigVersion.cmake lib/cmake/Strata/StrataTargets.cmake lib/pkgconfig/strata.pc
          share/doc/strata/README.md share/strata/gtkwave/tpu_core.gtkw bin/strata-gtkwave-symbols)
  if(NOT EXISTS ${PREFIX}/${f})
    message(FATAL_ERROR "the install has no ${f}")
  endif()
endforeach()
# The shared library's SONAME follows the API major (strata.h), and it exports the C API only.
file(GLOB sonames ${PREFIX}/lib/libstrata.so.[0-9])
list(LENGTH sonames n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "want one lib/libstrata.so.<major>, found: ${sonames}")
endif()
execute_process(COMMAND nm -D --defined-only ${PREFIX}/lib/libstrata.so OUTPUT_VARIABLE syms RESULT_VARIABLE rc)
string(REGEX MATCHALL "[TDBRV] [A-Za-z_][A-Za-z0-9_]*" exported "${syms}")
foreach(s ${exported})
  string(SUBSTRING "${s}" 2 -1 name)
  if(NOT name MATCHES "^strata_")
    message(FATAL_ERROR "libstrata.so exports ${name}: only the C API (strata_*) should be visible")
  endif()
endforeach()
if(NOT syms MATCHES " T strata_open\n")
  message(FATAL_ERROR "libstrata.so does not export strata_open:\n${syms}")
endif()
message(STATUS "installed to ${PREFIX}: ${sonames}")
