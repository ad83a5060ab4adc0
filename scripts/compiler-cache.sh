# Sourced by scripts/build.sh, test.sh and test-sanitizers.sh (which set $root): compile through ccache when it is
# installed (scripts/setup.sh installs it). Exported, so that every CMake build these scripts and the tests start
# uses it: the default build, the sanitizer and fuzz builds, and the wheel that test python.wheel builds. A rebuild
# of an unchanged tree, a second checkout or the same sources in another build directory then compile from the cache.
# The cycle counts do not depend on it (the same compiler, the same flags). Read by CMake when it configures a
# build directory for the first time. STRATA_CCACHE=0 turns it off; a launcher the caller set is kept.
if [ "${STRATA_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null 2>&1; then
  : "${CMAKE_C_COMPILER_LAUNCHER:=ccache}" "${CMAKE_CXX_COMPILER_LAUNCHER:=ccache}"
  # Paths under the checkout hash as relative ones, so that two checkouts share the cache.
  : "${CCACHE_BASEDIR:=$root}"
  export CMAKE_C_COMPILER_LAUNCHER CMAKE_CXX_COMPILER_LAUNCHER CCACHE_BASEDIR
fi
