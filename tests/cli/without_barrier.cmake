# `warplab trace ... --without-barrier LINE`: the kernel rerun without the
# barriers of one source line, and what follows. Run as:
#   cmake -DWARPLAB=<warplab> -DKERNELS=<tests/cli/kernels> -P without_barrier.cmake
# By hand (n = 4096 int, block 256, block 0 traced):
# - reduction v5, line 28 (v += sdata[tid + 8]; __syncwarp(); sdata[tid] = v;
#   __syncwarp();): without its two __syncwarp(), lane t reads sdata[t + 8]
#   while lane t + 8 writes it. Under the independent schedule the lanes of
#   warp 0 run apart: a race on a word w between thread w, which writes it,
#   and thread w - 8, which reads it, both at line 28 (exit 3). Under lockstep a
#   warp's lanes read before any writes: no race, the right sum, and the
#   tail's steps 7 and 8 (line 28's read, then write, split by the barrier) are
#   one: 14 steps for 16 (the second __syncwarp() also split 8 from 9).
# - reduction v3, line 30 (the tree loop's __syncthreads()), lockstep: warp 0
#   runs its whole loop before warp 1 starts; at s = 32 thread 0 reads
#   sdata[32], which thread 32 (warp 1, lane 0) then writes at s = 128: a
#   race between warps, named at line 28, where both happen.
# - trailing_sync.cu (a block sum, cooperative groups): its last block.sync()
#   at line 25 follows every shared access: without it the same accesses
#   step for step and the right sum (exit 0). Its loop's block.sync() at line
#   22 is needed: a race at line 21 (exit 3).
# - bad input: a line without a barrier names the lines that have one.
set(failures "")
include(${CMAKE_CURRENT_LIST_DIR}/run_warplab.cmake)

run_warplab(trace reduction v5 --without-barrier 28 --backend cpu --schedule independent)
if(NOT rc EQUAL 3 OR NOT out MATCHES "line 28 of 05_unroll_last_warp.cuh were gone: a modified run")
  string(APPEND failures "v5 independent: wanted exit 3 under the modified run's title, got ${rc}\n${out}${err}")
endif()
if(err MATCHES "thread \\(([0-9]+),0,0\\) \\[warp 0, lane [0-9]+\\]: data race on shared memory: sdata\\[([0-9]+)\\] \\(word [0-9]+\\) is (read|written) here and (read|written) by thread \\(([0-9]+),0,0\\)")
  set(here ${CMAKE_MATCH_1})
  set(word ${CMAKE_MATCH_2})
  set(other ${CMAKE_MATCH_5})
  if(CMAKE_MATCH_3 STREQUAL "written")
    set(writer ${here})
    set(reader ${other})
  else()
    set(writer ${other})
    set(reader ${here})
  endif()
  math(EXPR reads_ahead "${reader} + 8")
  if(NOT writer EQUAL word OR NOT reads_ahead EQUAL word OR NOT err MATCHES "05_unroll_last_warp.cuh:28")
    string(APPEND failures "v5 independent: wanted thread w writing sdata[w], thread w - 8 reading it, at line 28\n${err}")
  endif()
else()
  string(APPEND failures "v5 independent: no race between two lanes of warp 0\n${err}")
endif()

run_warplab(trace reduction v5 --without-barrier 28 --backend cpu --schedule lockstep)
if(NOT rc EQUAL 0 OR NOT out MATCHES "no race is seen, and the result is correct" OR NOT out MATCHES "14 steps where the kernel with it has 16")
  string(APPEND failures "v5 lockstep: wanted no race, the right sum, 14 steps for 16; got ${rc}\n${out}${err}")
endif()

run_warplab(trace reduction v3 --without-barrier 30 --backend cpu --schedule lockstep)
if(NOT rc EQUAL 3 OR NOT err MATCHES "thread \\(32,0,0\\) \\[warp 1, lane 0\\]: data race on shared memory: sdata\\[32\\] \\(word 32\\) is written here and read by thread \\(0,0,0\\)"
   OR NOT err MATCHES "03_sequential_addressing.cuh:28")
  string(APPEND failures "v3 lockstep: wanted thread 32 writing sdata[32] that thread 0 read, at line 28; got ${rc}\n${err}")
endif()

run_warplab(trace reduction v3 --file trailing_sync.cu --without-barrier 25 --backend cpu)
if(err MATCHES "needs the CUDA toolkit")
  message("needs nvcc: ${err}")
else()
  if(NOT rc EQUAL 0 OR NOT out MATCHES "line 25 of trailing_sync.cu were gone" OR NOT out MATCHES "the same accesses, step for step"
     OR NOT out MATCHES "result 18498, expected 18498: correct")
    string(APPEND failures "trailing_sync line 25: wanted nothing changed; got ${rc}\n${out}${err}")
  endif()
  run_warplab(trace reduction v3 --file trailing_sync.cu --without-barrier 22 --backend cpu)
  if(NOT rc EQUAL 3 OR NOT err MATCHES "data race on shared memory: partial\\[" OR NOT err MATCHES "trailing_sync.cu:21")
    string(APPEND failures "trailing_sync line 22: wanted a race at line 21; got ${rc}\n${err}")
  endif()
endif()

# Bad input: one line on stderr, exit 2.
foreach(case "trace;reduction;v3;--without-barrier;25|line 25 of 03_sequential_addressing.cuh has no __syncthreads\\(\\) or __syncwarp\\(\\); lines 24, 30 have"
             "trace;reduction;v3;--without-barrier;24;--backend;gpu|emulator only"
             "trace;reduction;v3;--without-barrier;0|--without-barrier"
             "trace;reduction;v3;--without-barrier;24;--compare;v2|give one of them"
             "trace;reduction;v99;--without-barrier;24|unknown version")
  expect_bad_input("${case}")
endforeach()

if(failures)
  message(FATAL_ERROR "${failures}")
endif()
