# Runs strata-mlp on seeds FIRST..LAST with the given extra arguments and checks every report: exit status 0,
# every request served and bit-exact. Over the group, fragmentation must have forced at least one
# defragment-on-OOM (unless ALLOW_NO_OOM), so a change that stops the churn from fragmenting memory fails too.
# usage: cmake -DMLP=strata-mlp -DFIRST=1 -DLAST=10 -DDIR=out/ [-DARGS=a;b] [-DALLOW_NO_OOM=ON] -P mlp_seeds.cmake
file(MAKE_DIRECTORY ${DIR})
set(oom_seeds 0)
foreach(seed RANGE ${FIRST} ${LAST})
  set(report ${DIR}/mlp-seed${seed}.json)
  file(REMOVE ${report})
  execute_process(COMMAND ${MLP} --quiet --trace none --seed ${seed} --report ${report} ${ARGS}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "strata-mlp --seed ${seed} ${ARGS} exited with ${rc}\n${out}\n${err}")
  endif()
  file(READ ${report} json)
  foreach(key mismatches results_checked requests defragment_on_oom)
    string(JSON v${key} GET "${json}" ${key})
  endforeach()
  if(NOT vmismatches EQUAL 0 OR NOT vresults_checked EQUAL vrequests)
    message(FATAL_ERROR "seed ${seed}: ${vresults_checked} of ${vrequests} checked, ${vmismatches} mismatches")
  endif()
  if(vdefragment_on_oom GREATER 0)
    math(EXPR oom_seeds "${oom_seeds} + 1")
  endif()
endforeach()
if(oom_seeds EQUAL 0 AND NOT ALLOW_NO_OOM)
  message(FATAL_ERROR "seeds ${FIRST}..${LAST} ${ARGS}: no run needed a defragment-on-OOM: the churn no longer fragments memory")
endif()
message(STATUS "seeds ${FIRST}..${LAST} ${ARGS}: all served and bit-exact; ${oom_seeds} needed a defragment-on-OOM")
