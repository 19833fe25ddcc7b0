# `warplab run` on programs/block_sums.cu: the threadfence sum, launched three
# times from the host, runs clean; the racy sum stops at its += with a report
# naming both blocks. The sum, by hand: 37 and 101 are coprime, so any 101
# consecutive k give 37k mod 101 = 0..100 once each, summing to 0 after the
# -50; 1000 = 9 * 101 + 91, so the sum is minus that of the 10 values that
# would complete the last cycle, k = 1000..1009: 37k mod 101 = 34, 71, 7, 44,
# 81, 17, 54, 91, 27, 64 (490), less 500: -10. The sum is 10.
#   cmake -DWARPLAB=<warplab> -DPROGRAMS=<tests/races/programs> -DCACHE=<dir> -P run_block_sums.cmake
function(run_warplab)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env XDG_CACHE_HOME=${CACHE} "${WARPLAB}" run block_sums.cu ${ARGN}
                  WORKING_DIRECTORY "${PROGRAMS}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(rc "${rc}" PARENT_SCOPE)
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

run_warplab(-- fenced)
if(err MATCHES "needs the CUDA toolkit")
  message("needs nvcc: ${err}")
  return()
endif()
if(NOT rc EQUAL 0 OR NOT out MATCHES "^fenced: 3 launches, sum 10, expected 10: correct\n" OR err MATCHES "race|warning")
  message(FATAL_ERROR "fenced: exit ${rc}; stdout '${out}'; stderr '${err}'")
endif()

run_warplab(-- racy)
# Lane 0 of some warp meets lane 0 of another warp, of its block or (blocks
# run on several host threads) of another block, whichever came first. The
# word is named as the source declares its parameter (total, read from the
# program's .cu file, which its PTX's line table names), not "argument 1".
set(lane0 "thread \\((0|32|64|96),0,0\\)")
set(report "data race on global memory: total\\[0\\] \\(byte 0\\) is (read|written) here and (read|written) by ${lane0} of (this block|block \\([0-9],0,0\\)) on the same line")
if(NOT rc EQUAL 1 OR NOT out MATCHES "^racy: cudaErrorLaunchFailure\n" OR NOT err MATCHES "kernel fault: kernel sum_racy, block \\([0-9],0,0\\), ${lane0}[^\n]*${report}[^\n]*block_sums.cu:50\\)")
  message(FATAL_ERROR "racy: exit ${rc}; stdout '${out}'; stderr '${err}'")
endif()
