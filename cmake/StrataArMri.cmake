# Runs `ar -M < SCRIPT` (an MRI script from strata_static_archive: create, addlib..., save, end).
# usage: cmake -DAR=<ar> -DSCRIPT=<file.mri> -P StrataArMri.cmake
execute_process(COMMAND ${AR} -M INPUT_FILE ${SCRIPT} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${AR} -M < ${SCRIPT} failed: ${err}")
endif()
