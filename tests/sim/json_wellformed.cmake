# sim.json_wellformed: strata-sim --json stays one well-formed JSON object when the ELF's and the waveform's
# paths hold quotes and a space (they were printed unescaped once), and gives the paths back.
# usage: cmake -DSIM=<strata-sim> -DELF=<hello.elf> -DWORK=<scratch dir> -P json_wellformed.cmake
file(REMOVE_RECURSE ${WORK})
set(dir "${WORK}/a \"quoted\" dir")  # (CMake turns a backslash in a path into a slash)
file(MAKE_DIRECTORY "${dir}")
file(COPY_FILE ${ELF} "${dir}/hello.elf")
execute_process(COMMAND ${SIM} --json --trace "${dir}/w.fst" --trace-end 200 "${dir}/hello.elf"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "strata-sim exit ${rc}:\n${out}${err}")
endif()
string(STRIP "${out}" out)
string(REGEX REPLACE ".*\n" "" line "${out}")  # the JSON is the last line
string(JSON elf ERROR_VARIABLE bad GET "${line}" elf)
if(bad)
  message(FATAL_ERROR "not well-formed JSON (${bad}):\n${line}")
endif()
string(JSON trace GET "${line}" trace)
string(JSON result GET "${line}" result)
if(NOT elf STREQUAL "${dir}/hello.elf" OR NOT trace STREQUAL "${dir}/w.fst" OR NOT result STREQUAL "PASS")
  message(FATAL_ERROR "paths or result changed on the way: elf='${elf}' trace='${trace}' result='${result}'")
endif()
message(STATUS "well-formed: ${line}")
