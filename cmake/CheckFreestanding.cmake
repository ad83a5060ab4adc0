# Fails the build if a firmware image has undefined symbols (it must not need a C library).
execute_process(COMMAND ${NM} -u ${ELF} OUTPUT_VARIABLE undefined RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${ELF}")
endif()
string(STRIP "${undefined}" undefined)
if(undefined)
  message(FATAL_ERROR "${ELF} has undefined symbols (no C library on the device):\n${undefined}")
endif()
