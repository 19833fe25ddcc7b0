# `warplab trace`'s line column names the file where a step runs code of
# another file than the version's own. Run as:
#   cmake -DWARPLAB=<warplab> -P trace_lines.cmake
# Matmul v7 (07_conflict_free.cuh) includes v6's file and stores C with v6's
# store_tile: its last step (16 at the default 128x128x64: 8 tiles of k, a
# load step and a compute step each, then the store) is 06_vectorized.cuh's
# line 68 (the float4 store of C); its compute steps are lines 72 and 76 of
# its own file (the float4 reads of As and Bs), shown bare.
execute_process(COMMAND "${WARPLAB}" trace matmul v7 --backend cpu RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(failures "")
if(NOT rc EQUAL 0)
  string(APPEND failures "exit ${rc}: ${err}\n")
endif()
if(NOT out MATCHES "\n16 +06_vectorized\\.cuh:68 +256 ")
  string(APPEND failures "step 16 does not say 06_vectorized.cuh:68\n")
endif()
if(NOT out MATCHES "\n1 +72,76 +256 ")
  string(APPEND failures "step 1 does not say its own lines 72,76 bare\n")
endif()
if(failures)
  message(FATAL_ERROR "${failures}${out}")
endif()
