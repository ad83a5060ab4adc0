# strata_static_archive(TARGET OUTPUT VAR_LINK): one static archive (OUTPUT) holding TARGET and every static
# library it links, transitively, merged with `ar -M` at build time, so that a program outside the build links
# one file instead of a dozen in the right order. VAR_LINK receives what the archive still needs from the
# system (imported targets such as Threads::Threads, and -l flags or library paths), for the installed
# Strata::driver_static (cmake/StrataInstall.cmake): library files by absolute path and -l/-pthread flags.
function(_strata_archive_walk tgt)
  get_property(seen GLOBAL PROPERTY _strata_archive_seen)
  if(tgt IN_LIST seen)
    return()
  endif()
  set_property(GLOBAL APPEND PROPERTY _strata_archive_seen ${tgt})
  get_target_property(imported ${tgt} IMPORTED)
  get_target_property(type ${tgt} TYPE)
  if(imported AND NOT type STREQUAL "INTERFACE_LIBRARY")  # a library file of the system: linked by its path
    get_target_property(location ${tgt} IMPORTED_LOCATION)
    if(NOT location)
      get_target_property(configs ${tgt} IMPORTED_CONFIGURATIONS)
      list(GET configs 0 config)
      get_target_property(location ${tgt} IMPORTED_LOCATION_${config})
    endif()
    if(NOT location)
      message(FATAL_ERROR "strata_static_archive: no file for the imported library ${tgt}")
    endif()
    set_property(GLOBAL APPEND PROPERTY _strata_archive_system ${location})
  endif()
  if(type STREQUAL "STATIC_LIBRARY" AND NOT imported)  # one of ours: merged into the archive
    set_property(GLOBAL APPEND PROPERTY _strata_archive_libs ${tgt})
  endif()
  set(deps "")
  if(NOT type STREQUAL "INTERFACE_LIBRARY")
    get_target_property(own ${tgt} LINK_LIBRARIES)
    if(own)
      list(APPEND deps ${own})
    endif()
  endif()
  get_target_property(iface ${tgt} INTERFACE_LINK_LIBRARIES)
  if(iface)
    list(APPEND deps ${iface})
  endif()
  foreach(dep ${deps})
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" dep "${dep}")
    if(TARGET ${dep})
      _strata_archive_walk(${dep})
    elseif(NOT dep MATCHES "^\\$<" AND NOT dep STREQUAL "")
      set_property(GLOBAL APPEND PROPERTY _strata_archive_system ${dep})  # -lz, pthread, /usr/lib/.../libz.so
    endif()
  endforeach()
endfunction()

function(strata_static_archive target output var_link)
  set_property(GLOBAL PROPERTY _strata_archive_seen "")
  set_property(GLOBAL PROPERTY _strata_archive_libs "")
  set_property(GLOBAL PROPERTY _strata_archive_system "")
  _strata_archive_walk(${target})
  get_property(libs GLOBAL PROPERTY _strata_archive_libs)
  get_property(system GLOBAL PROPERTY _strata_archive_system)
  list(REMOVE_DUPLICATES system)
  set(script "create ${output}\n")
  foreach(lib ${libs})
    string(APPEND script "addlib $<TARGET_FILE:${lib}>\n")
  endforeach()
  string(APPEND script "save\nend\n")
  file(GENERATE OUTPUT ${output}.mri CONTENT "${script}")
  add_custom_command(OUTPUT ${output}
                     COMMAND ${CMAKE_COMMAND} -E rm -f ${output}
                     COMMAND ${CMAKE_COMMAND} -DAR=${CMAKE_AR} -DSCRIPT=${output}.mri
                             -P ${STRATA_ROOT}/cmake/StrataArMri.cmake
                     DEPENDS ${libs} ${output}.mri ${STRATA_ROOT}/cmake/StrataArMri.cmake
                     COMMENT "Merging ${target} and the static libraries it links into ${output}" VERBATIM)
  add_custom_target(${target}_archive ALL DEPENDS ${output})
  set(${var_link} ${system} PARENT_SCOPE)
endfunction()
