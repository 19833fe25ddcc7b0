# `warplab trace LAB A --compare B` (or --compare A B): two runs aligned by
# step, the first step whose accesses differ marked. Run as:
#   cmake -DWARPLAB=<warplab> -P compare.cmake
# Reduction v2 beside v3, n = 4096, block 256, by hand: step 0 is the same
# load in both (sdata[tid] = g_in[i]: 256 threads, 8 warps, 8 load requests).
# Step 1 is the first that differs: v2 adds sdata[2·tid + 1] into
# sdata[2·tid], v3 sdata[tid + 128] into sdata[tid]; 128 threads in 4 warps
# in both. v2's lanes touch every other word, so each of its 3 instructions a
# warp (2 loads, 1 store) is 2-way: 4 warps × 3 × 2 = 24 wavefronts for an
# ideal 12; v3's consecutive words make 12/12, 1-way. There the bank
# conflicts vanish. Then v5 beside v6: the same accesses at every step
# (v6 only unrolls the loop), so nothing is marked.
set(failures "")
include(${CMAKE_CURRENT_LIST_DIR}/run_warplab.cmake)

foreach(form "v2;--compare;v3" "--compare;v2;v3")
  run_warplab(trace reduction ${form} --backend cpu)
  if(NOT rc EQUAL 0)
    string(APPEND failures "${form}: exit ${rc}: ${err}\n")
  endif()
  if(NOT out MATCHES "\n0 +[0-9]+ +[0-9]+ +256 +8 +0 +8/8 +1-way +8/0 ")
    string(APPEND failures "${form}: step 0 should be one row of values both agree on\n${out}")
  endif()
  if(NOT out MATCHES "\n1 \\* +[0-9]+ +[0-9]+ +128 +4 +0 +24/12 -> 12/12 +2-way -> 1-way ")
    string(APPEND failures "${form}: step 1 should be marked, 24/12 -> 12/12 wavefronts, 2-way -> 1-way\n${out}")
  endif()
  if(NOT out MATCHES "\\* step 1: the first step whose accesses differ")
    string(APPEND failures "${form}: the mark should be explained as step 1\n${out}")
  endif()
endforeach()

run_warplab(trace reduction v5 --compare v6 --backend cpu)
if(NOT rc EQUAL 0 OR out MATCHES "\n[0-9]+ \\*" OR NOT out MATCHES "the same accesses at every step")
  string(APPEND failures "v5 beside v6: no step should be marked (exit ${rc})\n${out}${err}")
endif()

# Bad input: one line on stderr, exit 2.
foreach(case "trace;reduction;v2;--compare;v99|v99" "trace;reduction;v2;--compare;v2|that is the version traced" "trace;reduction;v2;--compare;v2;v3|names both versions"
             "trace;reduction;v2;--compare;v3;--json|--json")
  expect_bad_input("${case}")
endforeach()

if(failures)
  message(FATAL_ERROR "${failures}")
endif()
