# What `cmake --install build --prefix P` puts where (docs/sdk.md):
#   include/strata/             the C and C++ API headers (self-contained: no build tree needed)
#   lib/libstrata.so.<major>    the driver with every backend of this build; lib/libstrata.so links to it
#   lib/cmake/Strata/           find_package(Strata) -> Strata::driver
#   lib/pkgconfig/strata.pc     pkg-config --cflags --libs strata
#   bin/                        strata-sim, strata-replay, strata-compare, strata-import, strata-mlp,
#                               strata-gtkwave-symbols (scripts/gtkwave_symbols.py)
#                               strata-waveform-screenshot (scripts/waveform-screenshot.sh)
#   share/strata/firmware/      the firmware images the sim backend and strata-sim load by default, found
#                               relative to the library or program (sim/firmware_image.h)
#   share/strata/gtkwave/       GTKWave save files for the core, the DMA and the matrix unit
#   share/doc/strata/           README.md and docs/
# The firmware SDK (strata_add_firmware) and the Python package add their own files (cmake/StrataFirmware.cmake,
# python/CMakeLists.txt).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(STRATA_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Strata)

# A wheel (STRATA_WHEEL, pyproject.toml) is a prefix of its own inside the package: strata/lib/libstrata.so.<major>
# (one file: a wheel cannot hold the symbolic links), strata/bin/ the tools and strata/share/strata/firmware/ the
# images, found relative to the library and the programs as in any prefix. No headers, CMake or pkg-config files.
if(STRATA_WHEEL)
  string(REGEX REPLACE "[.].*" "" api_major ${STRATA_API_VERSION})
  set_target_properties(strata_shared PROPERTIES VERSION ${api_major})
  install(TARGETS strata_shared LIBRARY DESTINATION strata/lib NAMELINK_SKIP COMPONENT wheel)
  set(tools_dir strata/bin)
  set(data_dir strata/share)
  set(component COMPONENT wheel)
else()
  install(TARGETS strata_shared EXPORT StrataTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT Development
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  # The public headers: the API and the two firmware headers it includes (status codes, GEMM flags).
  install(FILES ${STRATA_ROOT}/host/driver/include/strata/strata.h ${STRATA_ROOT}/host/driver/include/strata/strata.hpp
                ${STRATA_ROOT}/host/driver/include/strata/named_options.hpp
                ${STRATA_ROOT}/firmware/include/strata/status.h ${STRATA_ROOT}/firmware/include/strata/gemm.h
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/strata)
  set(tools_dir ${CMAKE_INSTALL_BINDIR})
  set(data_dir ${CMAKE_INSTALL_DATADIR})
  set(component)
endif()

foreach(tool strata-sim strata-replay strata-compare strata-import strata-mlp strata-fit strata-explain)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${tools_dir} ${component})
  endif()
endforeach()

if(STRATA_BUILD_FIRMWARE_IMAGES)
  file(GLOB app_dirs LIST_DIRECTORIES true ${STRATA_ROOT}/firmware/apps/*)
  foreach(dir ${app_dirs})
    if(IS_DIRECTORY ${dir})
      get_filename_component(app ${dir} NAME)
      install(FILES ${STRATA_RV32_BINARY_DIR}/apps/${app}/${app}.elf DESTINATION ${data_dir}/strata/firmware ${component})
    endif()
  endforeach()
endif()
if(STRATA_WHEEL)
  return()
endif()

file(GLOB gtkw_files ${STRATA_ROOT}/rtl/*.gtkw)
install(FILES ${gtkw_files} DESTINATION ${CMAKE_INSTALL_DATADIR}/strata/gtkwave)
# The core's view with function names and decoded instructions (docs/waveforms.md).
install(PROGRAMS ${STRATA_ROOT}/scripts/gtkwave_symbols.py DESTINATION ${CMAKE_INSTALL_BINDIR}
        RENAME strata-gtkwave-symbols)
# A GTKWave view rendered to PNG without a display, failing loudly on a blank one (docs/waveforms.md).
install(PROGRAMS ${STRATA_ROOT}/scripts/waveform-screenshot.sh DESTINATION ${CMAKE_INSTALL_BINDIR}
        RENAME strata-waveform-screenshot)
install(FILES ${STRATA_ROOT}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${STRATA_ROOT}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The CMake package: the exported target, its version (the C API's; a program built for 1.x works with any
# 1.y >= x) and the config that loads them.
install(EXPORT StrataTargets NAMESPACE Strata:: FILE StrataTargets.cmake DESTINATION ${STRATA_INSTALL_CMAKEDIR})
string(REPLACE "_" "-" STRATA_INSTALLED_BACKENDS "${STRATA_DRIVER_BACKENDS}")  # gpu_emu -> gpu-emu, as strata_open
configure_package_config_file(${STRATA_ROOT}/cmake/StrataConfig.cmake.in ${CMAKE_BINARY_DIR}/StrataConfig.cmake
                              INSTALL_DESTINATION ${STRATA_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/StrataConfigVersion.cmake VERSION ${STRATA_API_VERSION}
                                 COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/StrataConfig.cmake ${CMAKE_BINARY_DIR}/StrataConfigVersion.cmake
        DESTINATION ${STRATA_INSTALL_CMAKEDIR})

# pkg-config files are relocatable: the prefix is found from the .pc file's own place.
file(RELATIVE_PATH pc_to_prefix ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})

# The static option: libstrata.a, one archive with the driver, every backend and what they are made of
# (cmake/StrataStaticArchive.cmake), as the imported target Strata::driver_static and strata-static.pc
# (option STRATA_INSTALL_STATIC, declared in the top CMakeLists.txt).
if(STRATA_INSTALL_STATIC)
  include(StrataStaticArchive)
  find_package(ZLIB REQUIRED)  # imported in the subfolders that use them; seen here too, to walk them
  find_package(nlohmann_json 3 REQUIRED)
  strata_static_archive(strata_driver ${CMAKE_BINARY_DIR}/sdk/libstrata.a static_deps)
  install(FILES ${CMAKE_BINARY_DIR}/sdk/libstrata.a DESTINATION ${CMAKE_INSTALL_LIBDIR})
  # The prefix is known only when installing: firmware_dir.cc names its firmware folder for programs linked
  # statically (sim/firmware_image.cc), written by the install itself.
  install(CODE "set(STRATA_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR})")
  install(SCRIPT ${STRATA_ROOT}/cmake/StrataWriteFirmwareDir.cmake)
  file(RELATIVE_PATH cmake_to_prefix ${CMAKE_INSTALL_PREFIX}/${STRATA_INSTALL_CMAKEDIR} ${CMAKE_INSTALL_PREFIX})
  configure_file(${STRATA_ROOT}/cmake/StrataStaticTargets.cmake.in ${CMAKE_BINARY_DIR}/StrataStaticTargets.cmake @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/StrataStaticTargets.cmake DESTINATION ${STRATA_INSTALL_CMAKEDIR})
  set(static_libs "")
  foreach(dep ${static_deps})
    if(dep MATCHES "^[-/]")
      string(APPEND static_libs " ${dep}")
    else()
      string(APPEND static_libs " -l${dep}")
    endif()
  endforeach()
  configure_file(${STRATA_ROOT}/cmake/strata-static.pc.in ${CMAKE_BINARY_DIR}/strata-static.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/strata-static.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()

# pkg-config
configure_file(${STRATA_ROOT}/cmake/strata.pc.in ${CMAKE_BINARY_DIR}/strata.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/strata.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
