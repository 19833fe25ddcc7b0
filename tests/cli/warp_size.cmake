# `--warp-size` on `warplab trace` and `warplab grade`. Run as:
#   cmake -DWARPLAB=<warplab> -P warp_size.cmake
#
# reduction v1 (interleaved addressing, tid % (2s) == 0), block 256, step 1
# (s = 1): the 128 even threads add. At 32 lanes those are 8 warps, each with
# 16 of its 32 lanes active: 8 warps, 8 partial. At 64 lanes the block is 4
# warps, each with 32 of its 64 lanes active: 4 warps, 4 partial. Step 0 (all
# 256 threads store) has 8 whole warps at 32 and 4 at 64, none partial.
set(failures "")

# Runs warplab with ARGN; sets rc, out and err in the caller.
function(warplab_run)
  execute_process(COMMAND "${WARPLAB}" ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE o ERROR_VARIABLE e)
  set(rc "${code}" PARENT_SCOPE)
  set(out "${o}" PARENT_SCOPE)
  set(err "${e}" PARENT_SCOPE)
endfunction()

# A refusal: exit code 2 and exactly one line on stderr matching `pattern`.
function(expect_refused label pattern)
  warplab_run(${ARGN})
  string(REGEX REPLACE "\n$" "" line "${err}")
  if(NOT rc EQUAL 2 OR line MATCHES "\n" OR NOT line MATCHES "^warplab: error: .*${pattern}")
    set(failures "${failures}${label}: exit ${rc}, stderr '${err}'\n" PARENT_SCOPE)
  endif()
endfunction()

warplab_run(trace reduction v1 --backend cpu --warp-size 64)
if(NOT rc EQUAL 0)
  string(APPEND failures "trace at 64: exit ${rc}: ${err}\n")
endif()
if(NOT out MATCHES "traced on the cpu emulator \\(independent, emulated 64-wide wavefront\\)")
  string(APPEND failures "trace at 64: the backend line does not say 'emulated 64-wide wavefront'\n")
endif()
if(NOT out MATCHES "\nwarps: emulated 64-wide wavefront \\(64 lanes a warp\\)\nstep ")
  string(APPEND failures "trace at 64: the table's heading does not say 'emulated 64-wide wavefront'\n")
endif()
if(NOT out MATCHES "\n0 +[0-9,]+ +256 +4 +0 " OR NOT out MATCHES "\n1 +[0-9,]+ +128 +4 +4 ")
  string(APPEND failures "trace at 64: steps 0 and 1 are not 4 warps of 64 lanes (0 and 4 partial)\n${out}\n")
endif()

warplab_run(trace reduction v1 --backend cpu)
if(NOT out MATCHES "\n0 +[0-9,]+ +256 +8 +0 " OR NOT out MATCHES "\n1 +[0-9,]+ +128 +8 +8 ")
  string(APPEND failures "trace at 32: steps 0 and 1 are not 8 warps of 32 lanes (0 and 8 partial)\n${out}\n")
endif()
if(out MATCHES "wavefront \\(")
  string(APPEND failures "trace at 32 calls its warps a wavefront\n")
endif()

expect_refused("--warp-size 48" "warp size 48: a warp is 32 lanes \\(NVIDIA's\\) or 64" trace reduction v1 --backend cpu --warp-size 48)
expect_refused("--warp-size 0" "warp size 0: a warp is 32 lanes" trace reduction v1 --warp-size 0)
expect_refused("--warp-size 64 on the GPU" "warp size 64 runs on the emulator only: a GPU's warps are NVIDIA's 32 lanes"
               trace reduction v1 --backend gpu --warp-size 64)
expect_refused("grade --warp-size 48" "warp size 48: a warp is 32 lanes" grade E1 --dir solutions --warp-size 48)
expect_refused("grade --warp-size 64 on the GPU" "runs on the emulator only" grade E1 --dir solutions --backend gpu --warp-size 64)

# Grading at 64: E1's solution (sequential addressing) has no partial warp in
# any step with 64 or more active threads; the known-wrong divergent branching
# (v1's tid % (2s)) has: step 1, the 128 even threads, half of each of the 4
# warps of 64 lanes (at 32 the same submission fails with 8 warps).
warplab_run(grade E1 --dir solutions --backend cpu --warp-size 64 --seed 11)
if(err MATCHES "needs the CUDA toolkit|nvcc")
  message(STATUS "grade at 64 skipped: ${err}")
else()
  if(NOT rc EQUAL 0 OR NOT out MATCHES "checks on the cpu emulator, independent schedule, emulated 64-wide wavefront")
    string(APPEND failures "grade E1 solution at 64: exit ${rc}, or no 'emulated 64-wide wavefront' on its backend line\n${out}${err}\n")
  endif()
  if(NOT out MATCHES "at an access that 64 or more threads make")
    string(APPEND failures "grade E1 solution at 64 does not judge accesses of 64 or more threads\n${out}\n")
  endif()
  warplab_run(grade E1 --dir ${CMAKE_CURRENT_LIST_DIR}/../grader/wrong/divergent_branching --backend cpu --warp-size 64 --seed 11)
  if(NOT rc EQUAL 1 OR NOT out MATCHES "step 1: 128 threads active in 4 warps, 4 of them partially active")
    string(APPEND failures "grade divergent E1 at 64: exit ${rc}, expected 1 with 4 partially-active warps of 64 lanes\n${out}\n")
  endif()
endif()

if(failures)
  message(FATAL_ERROR "${failures}")
endif()
