# python.install: cmake --install into a fresh prefix, then import strata from there (not from the build tree) and
# use it: the package, its modules and (with the shared driver) libstrata.so must all come from the prefix.
# -DBUILD_DIR= -DPREFIX= -DPYTHON= -DSHARED=ON|OFF [-DCHECK_RUNPATH=tests/check_runpath.py]
file(REMOVE_RECURSE ${PREFIX})
set(components python)
if(SHARED)
  list(APPEND components Unspecified)  # libstrata.so and the firmware images (cmake/StrataInstall.cmake)
endif()
foreach(component ${components})
  execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX} --component ${component}
                  RESULT_VARIABLE rc OUTPUT_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cmake --install --component ${component} failed (${rc})")
  endif()
endforeach()
set(ENV{PYTHONPATH} ${PREFIX}/lib/python3/dist-packages)
set(check [=[
import os, sys
import numpy as np
import strata
prefix = os.path.realpath(sys.argv[1])
for module in (strata, strata._strata):
    assert os.path.realpath(module.__file__).startswith(prefix), module.__file__
with open("/proc/self/maps") as f:
    libs = {line.split()[-1] for line in f if "libstrata.so" in line}
assert all(os.path.realpath(lib).startswith(prefix) for lib in libs), libs
with strata.open("gpu-emu", total_bytes=64 << 20, context_bytes=0) as dev:
    a = np.arange(12, dtype=np.int8).reshape(3, 4)
    assert (dev.gemm(a, a.T.copy()) == a.astype(np.int64) @ a.T.astype(np.int64)).all()
if "sim" in strata.backends():  # the runtime image found beside the installed library (or the build's)
    with strata.open("sim", hbm_capacity_bytes=8 << 20) as dev:
        assert (dev.gemm(a, a.T.copy()) == a.astype(np.int64) @ a.T.astype(np.int64)).all()
print("import strata from", os.path.dirname(strata.__file__), "backends", strata.backends(),
      "libstrata.so" if libs else "static driver")
]=])
execute_process(COMMAND ${PYTHON} -c "${check}" ${PREFIX} WORKING_DIRECTORY ${PREFIX} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the installed package failed (${rc})")
endif()

# The installed modules and libstrata.so find their libraries only in absolute folders or $ORIGIN (never an empty
# or relative RUNPATH entry, which is the importer's current directory).
if(CHECK_RUNPATH)
  execute_process(COMMAND ${PYTHON} ${CHECK_RUNPATH} ${PREFIX} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the installed tree has a library search path that is not absolute (${rc})")
  endif()
endif()
