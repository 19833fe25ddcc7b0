# `warplab grade` with bad input: exit code 2 and "warplab: error: ..." naming it.
set(problems "")
function(expect_error pattern)
  execute_process(COMMAND "${WARPLAB}" grade ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "^warplab: error: .*${pattern}")
    set(problems "${problems}grade ${ARGN}: exit code ${rc}, stderr '${err}'\n" PARENT_SCOPE)
  endif()
endfunction()
# E19 is one letter from E1 (the nearest id: did_you_mean.h), and the range is said after.
expect_error("unknown exercise 'E19' \\(did you mean 'E1'\\?\\) \\(there are E1 to E13\\)" E19)
expect_error("no folder 'no/such/folder'" E1 --dir no/such/folder)
expect_error("--backend" E1 --backend tpu)
# No CUDA toolkit: one line, and no grading (WARPLAB_NVCC names the nvcc to use; here none).
execute_process(COMMAND ${CMAKE_COMMAND} -E env WARPLAB_NVCC=/no/such/nvcc "${WARPLAB}" grade E1
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err STREQUAL
   "warplab: error: grading needs the CUDA toolkit (nvcc) to compile your kernel; none found\n")
  set(problems "${problems}grade without nvcc: exit code ${rc}, stderr '${err}'\n")
endif()
if(problems)
  message(FATAL_ERROR "${problems}")
endif()
