# `warplab run` on whole programs written as public ones are (tests/run/programs/):
# their output, exit codes, launch tables, step tables, traces and messages.
#   cmake -DWARPLAB=<warplab> -DPROGRAMS=<tests/run/programs> -DCACHE=<dir> -DWORK=<dir> -P run_programs.cmake
# The builds go to CACHE (a second ctest run reuses them). Prints "needs nvcc"
# and succeeds (the test is then marked skipped) where there is no CUDA toolkit.
cmake_policy(SET CMP0007 NEW)  # a list keeps its empty elements (the bad-input cases' empty argument lists)
set(failures "")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
function(run_warplab)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env XDG_CACHE_HOME=${CACHE} "${WARPLAB}" run ${ARGN}
                  WORKING_DIRECTORY "${PROGRAMS}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(rc "${rc}" PARENT_SCOPE)
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()
# expect(NAME RC OUT_REGEX...): the exit code and every regex in stdout, or a failure line.
function(expect name code)
  if(NOT rc EQUAL code)
    string(APPEND failures "${name}: exit ${rc}, expected ${code}; stdout '${out}', stderr '${err}'\n")
  endif()
  foreach(pattern IN LISTS ARGN)
    if(NOT out MATCHES "${pattern}")
      string(APPEND failures "${name}: stdout lacks '${pattern}': '${out}'\n")
    endif()
  endforeach()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()
# expect_err(NAME REGEX): the regex in stderr, or a failure line.
function(expect_err name pattern)
  if(NOT err MATCHES "${pattern}")
    string(APPEND failures "${name}: stderr lacks '${pattern}': '${err}'\n")
  endif()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()

# 1. A vector add of n = 1000: 4 blocks of 256. Block 0's 256 threads all add
#    (0..255 < 1000), 8 whole warps; each warp's load of a, load of b and store
#    of c covers 32 floats = 128 bytes = 4 sectors, so 4.0 sectors a request.
#    Launched at line 38 (`vector_add<<<blocks, threads>>>`), not at the
#    kernel's definition (lines 16-17), which nvcc's host wrapper of it bears.
run_warplab(vector_add.cu)
if(err MATCHES "needs the CUDA toolkit")
  message("needs nvcc: ${err}")
  return()
endif()
expect(vector_add 0 "^vector_add: 1000 elements, correct\n"
       "\n1 +vector_add +vector_add.cu:38 +\\(4,1,1\\) +\\(256,1,1\\) +0 +[0-9.]+ +-\n"
       "\nlaunch 1: vector_add, block 0 of grid \\(4,1,1\\) \\(lines of vector_add.cu\\)\n"
       "\n0 +22 +256 +8 +0 +- +- +4.0 \\(ideal 4.0\\)\n")

# 2. The same file again: the build is reused (no nvcc line), the program's
#    arguments pass through (n = 517: 3 blocks), --json writes the trace and a manifest.
run_warplab(vector_add.cu --json ${WORK}/json -- 517)
expect(vector_add_again 0 "^vector_add: 517 elements, correct\n" "\n1 +vector_add +vector_add.cu:38 +\\(3,1,1\\) +\\(256,1,1\\) ")
if(err MATCHES "nvcc built")
  string(APPEND failures "vector_add_again: rebuilt an unchanged file: '${err}'\n")
endif()
if(NOT EXISTS ${WORK}/json/launch-1.json OR NOT EXISTS ${WORK}/json/manifest.json)
  string(APPEND failures "vector_add_again: --json wrote no launch-1.json and manifest.json\n")
else()
  file(READ ${WORK}/json/manifest.json manifest)
  file(READ ${WORK}/json/launch-1.json trace)
  if(NOT manifest MATCHES "\"exit_code\": 0" OR NOT manifest MATCHES "\"517\"" OR NOT manifest MATCHES "\"trace\": \"launch-1.json\""
     OR NOT manifest MATCHES "\"host_line\": \"[^\"]*vector_add.cu:38\"")
    string(APPEND failures "vector_add_again: manifest '${manifest}'\n")
  endif()
  if(NOT manifest MATCHES "\"compile_warnings\": \\[\\]")  # nvcc warns of nothing in vector_add.cu
    string(APPEND failures "vector_add_again: manifest lists compile warnings: '${manifest}'\n")
  endif()
  if(NOT trace MATCHES "\"format\":\"warplab-trace\"" OR NOT trace MATCHES "\"kernel\":\"vector_add\"")
    string(APPEND failures "vector_add_again: launch-1.json is not vector_add's trace\n")
  endif()
endif()

# 2b. nvcc's warnings in the manifest, one line each as nvcc opens them: the
#    SAXPY declares `int stride` at line 12 and never uses it (#177-D); the
#    source line and caret nvcc prints under it stay on stderr.
run_warplab(unused_stride.cu --json ${WORK}/json_warned)
expect(unused_stride 0 "^saxpy: 300 elements, correct\n")
file(READ ${WORK}/json_warned/manifest.json manifest)
if(NOT manifest MATCHES "\"compile_warnings\": \\[\n +\"unused_stride.cu\\(12\\): warning #177-D: variable \\\\\"stride\\\\\" was declared but never referenced\"\n +\\]")
  string(APPEND failures "unused_stride: manifest lacks the warning of line 12 alone: '${manifest}'\n")
endif()

# 3. The same program made wrong with -D: `i <= n` reads a[1000] in block 3,
#    thread 232 (3 * 256 + 232 = 1000). The program gets cudaErrorLaunchFailure
#    from its error check (and exits 1); stderr has the fault's paragraph with line 20,
#    naming the array as the source declares the parameter (a or b, whichever
#    load nvcc put first), not only by its position.
run_warplab(vector_add.cu -D OFF_BY_ONE)
expect(off_by_one 1 "\n1 +vector_add +vector_add.cu:38 +\\(4,1,1\\) +\\(256,1,1\\) +0 +[0-9.]+ +yes \\(below\\)\n")
if(NOT err MATCHES "kernel fault: kernel vector_add, block \\(3,0,0\\), thread \\(232,0,0\\)[^\n]*out-of-bounds load: (a\\[1000\\] \\(argument 0\\)|b\\[1000\\] \\(argument 1\\)) is outside its 1000 elements[^\n]*vector_add.cu:20\\)"
   OR NOT err MATCHES "unspecified launch failure")
  string(APPEND failures "off_by_one: stderr '${err}'\n")
endif()

# 4. A reduction with a host loop: 100000 ints, 512 a block, 196 blocks, then 1.
#    The last pass's kernel printf comes before the host's line, as on a GPU.
#    Only the first launch of the kernel is traced unless --watch asks: its step
#    1 (stride 128) has 128 threads in 4 warps, step 4 (stride 16) 16 threads in one partial warp.
#    Both launches are the loop's line 42 (the template's definition is line 8).
run_warplab(reduction.cu)
expect(reduction 0 "^last pass: 196 partial sums\nreduction: 2 passes, sum 4962802, expected 4962802: correct\n"
       "\n1 +reduce_pass<256u> +reduction.cu:42 +\\(196,1,1\\) +\\(256,1,1\\) +1024 "
       "\n2 +reduce_pass<256u> +reduction.cu:42 +\\(1,1,1\\) +\\(256,1,1\\) +1024 "
       "\nlaunch 1: reduce_pass<256u>, block 0 of grid \\(196,1,1\\)" "\n1 +17 +128 +4 +0 " "\n4 +17 +16 +1 +1 ")
if(out MATCHES "launch 2: reduce_pass")
  string(APPEND failures "reduction: the second launch was traced without --watch\n")
endif()
run_warplab(reduction.cu --watch reduce_pass:2)
expect(reduction_watch 0 "\nlaunch 2: reduce_pass<256u>, block 0 of grid \\(1,1,1\\)")
if(out MATCHES "launch 1: reduce_pass")
  string(APPEND failures "reduction_watch: --watch reduce_pass:2 traced the first launch too\n")
endif()

# --fail: warplab fails a call on purpose, to show whether the program checks it.
#    The reduction's second launch (the pass over 196 partial sums) fails as a
#    faulting kernel's would; the program's check after each launch returns 2,
#    and its table lists the launch with the reason. The vector add's second
#    cudaMalloc (line 33: d_b) returns out of memory; CUDA_CHECK exits 1 there.
run_warplab(reduction.cu --fail launch:2)
expect(reduction_fail_launch 2 "\n2 +reduce_pass<256u> +reduction.cu:42 +\\(1,1,1\\) +\\(256,1,1\\) +1024 +[0-9.]+ +yes ")
expect_err(reduction_fail_launch "warplab: launch 2: reduce_pass<256u> fails on purpose \\(--fail launch:2\\)")
run_warplab(vector_add.cu --fail alloc:2)
expect(vector_add_fail_alloc 1)
expect_err(vector_add_fail_alloc "cudaMalloc at [^ ]*vector_add.cu:33 fails on purpose \\(--fail alloc:2\\)[^\n]*\n[^\n]*vector_add.cu:33: out of memory\n")

# 5. A histogram whose bins come from a __constant__ table set by cudaMemcpyToSymbol.
#    "Warp 32 lanes, 4 warps: 128 threads in each block of the Grid." has 13 vowels,
#    41 letters (28 others), 6 digits (32, 4, 128) and 15 other bytes (62 in all).
run_warplab(histogram.cu)
expect(histogram 0 "^histogram: vowels 13, other letters 28, digits 6, rest 15: correct\n")

# 6. A struct of device pointers by value, launched by <<< >>> and by cudaLaunchKernel:
#    77 elements twice, counted in a __device__ variable read by cudaMemcpyFromSymbol;
#    the <<< >>> at line 33, cudaLaunchKernel at line 35.
run_warplab(struct_args.cu)
expect(struct_args 0 "^struct_args: 154 elements touched, correct\n" "\n1 +saxpy +struct_args.cu:33 +\\(3,1,1\\) +\\(32,1,1\\) "
       "\n2 +saxpy +struct_args.cu:35 +\\(3,1,1\\) +\\(32,1,1\\) ")

# 7. Mistakes: a read past the end (thread 99 reads in[100], line 10), 2048
#    threads a block (not run, and not sticky, listed at its line 26), an unsupported call (said once).
run_warplab(mistakes.cu -- fault)
expect(fault 1 "^fault: cudaErrorLaunchFailure \\(unspecified launch failure\\)\n")
if(NOT err MATCHES "kernel fault: kernel shift_left, block \\(0,0,0\\), thread \\(99,0,0\\)[^\n]*mistakes.cu:10\\)")
  string(APPEND failures "fault: stderr '${err}'\n")
endif()
#    The same fault in a kernel writing managed memory: cudaDeviceSynchronize() returns it, and
#    the host reading the memory after it is told only of the fault, not of a missing synchronize.
run_warplab(mistakes.cu -- managed-fault)
expect(managed_fault 1 "^read after it: yes\nmanaged-fault: cudaErrorLaunchFailure \\(unspecified launch failure\\)\n")
if(NOT err MATCHES "kernel fault: kernel shift_left, block \\(0,0,0\\), thread \\(99,0,0\\)[^\n]*mistakes.cu:10\\)" OR err MATCHES "warning")
  string(APPEND failures "managed-fault: stderr '${err}'\n")
endif()
run_warplab(mistakes.cu -- config)
expect(config 1 "after it: cudaSuccess\n" "\nconfig: cudaErrorInvalidConfiguration \\(invalid configuration argument\\)\n"
       "\n1 +shift_left +mistakes.cu:26 +\\(1,1,1\\) +\\(2048,1,1\\) [^\n]*yes \\(below\\)\n"
       "\nlaunch 1: kernel shift_left launched with 2048 threads a block; a block holds at most 1024")
run_warplab(mistakes.cu -- unsupported)
expect(unsupported 1 "^unsupported: cudaErrorNotSupported \\(operation not supported\\)\n")
if(NOT err STREQUAL "warplab: cudaGraphCreate is not supported by warplab's CUDA runtime (cudaErrorNotSupported)\n")
  string(APPEND failures "unsupported: stderr is not one line naming cudaGraphCreate: '${err}'\n")
endif()

# 8. The grid synchronised by cooperative groups (one build, four cases).
#    The reduction: 100003 = 97 * 1030 + 93 elements of (i % 97) - 40; a whole
#    cycle adds 4656 - 3880 = 776, 1030 of them 799280, the last 93 add
#    4278 - 3720 = 558: 799838. 128 threads a block: 2048 / 128 = 16 blocks a
#    multiprocessor, 16 * 132 = 2112 at once; the program caps its grid at 24.
#    Launched by cudaLaunchCooperativeKernel at line 93; the phases by the
#    toolkit header's cudaLaunchKernelEx template at line 128.
run_warplab(grid_sync.cu)
expect(grid_sync 0 "^reduction: 24 blocks \\(16 a multiprocessor fit\\), sum 799838, expected 799838: correct\n"
       "\n1 +reduce_grid +grid_sync.cu:93 +\\(24,1,1\\) +\\(128,1,1\\) +512 +[0-9.]+ +-\n")
run_warplab(grid_sync.cu -- phases)
expect(grid_sync_phases 0 "^phases: scan of 1000 elements over 5 blocks: correct\n" "\n1 +scan_grid +grid_sync.cu:128 +\\(5,1,1\\) +\\(64,1,1\\) +0 ")
run_warplab(grid_sync.cu -- too-large)
expect(grid_sync_too_large 1 "cudaErrorCooperativeLaunchTooLarge \\(too many blocks in cooperative launch\\)\n"
       "\n1 +reduce_grid +grid_sync.cu:93 +\\(2113,1,1\\) [^\n]*yes \\(below\\)\n" "2113 blocks; the device holds 2112 of them at once")
#    Launched with <<< >>>, grid.sync() has no barrier: cooperative groups trap (line 47), as on a GPU.
run_warplab(grid_sync.cu -- plain)
expect(grid_sync_plain 1 "cudaErrorLaunchFailure \\(unspecified launch failure\\)\n")
expect_err(grid_sync_plain "kernel fault: kernel reduce_grid, block \\(0,0,0\\)[^\n]*a launch that is not cooperative[^\n]*grid_sync.cu:47\\)")

# 9. The host side. A right program (a three-launch scan over pinned memory
#    timed with events, cudaMallocPitch and cudaMemcpy2D, managed memory read
#    after a synchronize) draws no message but the events' notice. Its scan's
#    50000 elements are 196 sections of 256 (the last of 80); the 37-float rows
#    (148 bytes) are pitched to 512; the managed total is 1000 + 999 * 1000 / 2.
run_warplab(host_correct.cu)
expect(host_correct 0 "^scan: 50000 elements in 196 sections, 0 wrong, timed: yes\nmatrix: 37x11, pitch 512 bytes, 0 wrong\nmanaged: total 500500\n"
       "\n1 +scan_sections +host_correct.cu:75 +\\(196,1,1\\) " "\n2 +scan_sections +host_correct.cu:76 +\\(1,1,1\\) "
       "\n3 +add_sums +host_correct.cu:77 +\\(196,1,1\\) ")
string(REGEX REPLACE "warplab: nvcc built [^\n]*\n" "" quiet "${err}")
if(NOT quiet STREQUAL "warplab: cudaEventElapsedTime gives the emulator's time for the launches between the events (host time on this machine), not GPU time\n")
  string(APPEND failures "host_correct: a right program drew messages: '${err}'\n")
endif()
foreach(right histogram.cu struct_args.cu vector_add.cu)
  run_warplab(${right})
  if(err MATCHES "warplab: (warning|device memory)")
    string(APPEND failures "${right}: a right program drew a warning: '${err}'\n")
  endif()
endforeach()
#    The mistakes, each named with its host line (the program is built with -g).
#    d_out (1200 bytes: 300 floats, line 38) read at out[10], byte 40, on line 56:
#    the program stops with SIGSEGV (exit 128 + 11), as on a machine with a GPU.
run_warplab(host_mistakes.cu -- device-read)
expect(device_read 139)
expect_err(device_read "warplab: device memory read from host code at [^\n]*host_mistakes.cu:56: byte 40 of a 1200-byte cudaMalloc allocation made at [^\n]*host_mistakes.cu:38\\.")
run_warplab(host_mistakes.cu -- device-write)
expect(device_write 139)
expect_err(device_write "warplab: device memory written from host code at [^\n]*host_mistakes.cu:41: byte 0 of a 1200-byte cudaMalloc allocation made at [^\n]*host_mistakes.cu:37\\.")
run_warplab(host_mistakes.cu -- after-free)
expect(after_free 139)
expect_err(after_free "warplab: device memory read after cudaFree at [^\n]*host_mistakes.cu:59: byte 40 [^\n]*made at [^\n]*host_mistakes.cu:38, freed at [^\n]*host_mistakes.cu:58\\.")
#    A host array given to the kernel: its first load faults (line 26) and the fault names argument 0.
run_warplab(host_mistakes.cu -- host-pointer)
expect(host_pointer 1 "cudaErrorLaunchFailure\n")
expect_err(host_pointer "kernel fault: kernel square[^\n]*host_mistakes.cu:26\\); argument 0 \\(float const\\*\\) is 0x[0-9a-f]+, host memory")
#    out[10] = (0.5 * 10)^2 = 25; d_out, never freed, is listed at exit.
run_warplab(host_mistakes.cu -- leak)
expect(leak 0 "^leak: out\\[10\\] = 25.00\n")
expect_err(leak "warplab: warning: 1 allocation never freed: 1200 bytes from cudaMalloc at [^\n]*host_mistakes.cu:38\n")
#    cudaDeviceReset() ends every allocation: nothing is left to list.
run_warplab(host_mistakes.cu -- reset)
expect(reset 0 "^reset: out\\[10\\] = 25.00\n")
if(err MATCHES "warplab: warning")
  string(APPEND failures "reset: a right program drew a warning: '${err}'\n")
endif()
#    Managed memory read on line 48 right after the launch: a warning, once; the
#    values are the kernel's (3.5^2 and 4^2), and the read after the synchronize is quiet.
run_warplab(host_mistakes.cu -- managed)
expect(managed 0 "^managed: shared\\[7\\] = 12.25\nmanaged after sync: shared\\[8\\] = 16.00\n")
string(REGEX MATCHALL "warplab: warning" warnings "${err}")
list(LENGTH warnings count)
if(NOT count EQUAL 1 OR NOT err MATCHES "warplab: warning: managed memory read by host code at [^\n]*host_mistakes.cu:48 after a kernel launch")
  string(APPEND failures "managed: stderr '${err}'\n")
endif()

# 10. Bad input: one line and exit 2, before or instead of a build.
file(WRITE ${WORK}/broken.cu "__global__ void k(int* x) { x[0] = undeclared; }\nint main() { return 0; }\n")
foreach(case "|name the program's .cu file" "nope.cu|cannot read source file 'nope.cu'"
             "vector_add.cu;--watch;vector_add:0|launches count from 1" "vector_add.cu;-std=c++2x|is not c\\+\\+NN"
             "vector_add.cu;--bogus|unknown option '--bogus'" "${WORK}/broken.cu|broken.cu.*undeclared"
             "vector_add.cu;--fail;alloc:0|--fail 'alloc:0': calls count from 1"
             "vector_add.cu;--fail;launch:1;--backend;gpu|only the emulator's runtime fails a call on purpose")
  string(REPLACE "|" ";" parts "${case}")
  list(POP_BACK parts pattern)
  run_warplab(${parts})
  if(NOT rc EQUAL 2 OR NOT err MATCHES "^warplab: error: " OR NOT err MATCHES "${pattern}")
    string(APPEND failures "run ${parts}: exit ${rc}, stderr '${err}' (expected exit 2 and '${pattern}')\n")
  endif()
endforeach()

# 11. --backend: gpu runs on the GPU where there is one and is refused with one
#     line and exit 2 where there is none, before anything is built (a file that
#     does not compile tells which); auto is the GPU where there is one (as
#     `warplab trace --backend auto`), else the emulator; cpu, the emulator, is the default.
run_warplab(--backend bogus vector_add.cu)
if(NOT rc EQUAL 2 OR NOT err STREQUAL "warplab: error: --backend bogus: not cpu (the emulator), gpu or auto\n")
  string(APPEND failures "--backend bogus: exit ${rc}, stderr '${err}'\n")
endif()
run_warplab(--backend gpu ${WORK}/broken.cu)
set(gpu_present FALSE)
if(err MATCHES "no GPU: ")
  if(NOT rc EQUAL 2 OR NOT err MATCHES "^warplab: error: --backend gpu: no GPU: [^\n]+\n$")
    string(APPEND failures "--backend gpu without a GPU: exit ${rc}, stderr '${err}' (expected one line and exit 2)\n")
  endif()
elseif(rc EQUAL 2 AND err MATCHES "undeclared")
  set(gpu_present TRUE)
else()
  string(APPEND failures "--backend gpu on broken.cu: neither refused nor built: exit ${rc}, stderr '${err}'\n")
endif()
if(gpu_present)
  set(expected "\non the GPU: no time a launch")
else()
  set(expected "\nemulated ms: the emulator's time")
endif()
run_warplab(--backend auto vector_add.cu)
expect(backend_auto 0 "^vector_add: 1000 elements, correct\n" "${expected}")

# 12. Textures through texture objects. The shift copy of 4099 floats by 3 read
#     plainly, with __ldg and with tex1Dfetch agree with the host's copy (the
#     texture reads 0 past the end where the others test the bound); made 5
#     elements short, the texture's last 5 + 3 reads are 0 and the check says WRONG.
run_warplab(texture_shift.cu)
expect(texture_shift 0 "^shift copy: 4099 elements, shift 3: plain correct __ldg correct tex1Dfetch correct\n"
       "\n3 +shift_copy_tex +texture_shift.cu:77 +\\(17,1,1\\) +\\(256,1,1\\) +0 +[0-9.]+ +-\n")
run_warplab(texture_shift.cu -D SHORT_TEXTURE)
expect(texture_short 1 "tex1Dfetch WRONG\n")
#     A 5x3 CUDA array under each addressing mode, and int, uchar4 and normalised
#     byte arrays (the values, derived by hand, are in the program); a right program draws no message.
#     Each check (lines 136-194: seven of float, then int at 155, uchar4 at 166, two more of float)
#     launches sample<T> at line 89 of the template check<T>; the 1D sample is line 217's, in main.
run_warplab(texture_2d.cu)
expect(texture_2d 0 "^wrap +114.000 +120.000 +102.000 +114.000 +112.000 +112.000  correct\n"
       "\nmirror +110.000 +104.000 +122.000 +114.000 +112.000 +112.000  correct\n" "\ntexture_2d: correct\n"
       "\n1 +sample<float> +texture_2d.cu:89 " "\n8 +sample<int> +texture_2d.cu:89 " "\n9 +sample<uchar4> +texture_2d.cu:89 "
       "\n12 +sample_1d +texture_2d.cu:217 ")
string(REGEX REPLACE "warplab: nvcc built [^\n]*\n" "" quiet "${err}")
if(NOT quiet STREQUAL "")
  string(APPEND failures "texture_2d: a right program drew messages: '${quiet}'\n")
endif()
#     Linear filtering is refused at the fetch (the tex2D of line 36), 16-bit float channels at cudaMallocArray: one line each.
run_warplab(texture_2d.cu -- linear)
expect(texture_linear 1)
expect_err(texture_linear "kernel fault: kernel sample<float>, block \\(0,0,0\\), thread \\([0-9]+,0,0\\)[^\n]*linear filtering[^\n]*texture_2d.cu:36\\)")
run_warplab(texture_2d.cu -- half)
expect(texture_half 1)
string(REGEX REPLACE "warplab: nvcc built [^\n]*\n" "" quiet "${err}")
if(NOT quiet MATCHES "^warplab: cudaMallocArray with 16-bit float channels: [^\n]*\\(cudaErrorNotSupported\\)\ntexture_2d.cu:[0-9]+: operation not supported\n$")
  string(APPEND failures "texture_half: stderr is not one line naming the half channels, then the program's: '${err}'\n")
endif()
run_warplab(texture_2d.cu -- huge)
expect(texture_huge 1)
expect_err(texture_huge "warplab: cudaMallocArray: an array of 200000x1 texels [^\n]*\ntexture_2d.cu:[0-9]+: invalid argument\n$")

# 13. The executable removed while it runs (moved_executable.cu unlinks its own
#     file first, as a second build of the same source moved over its name would):
#     the launch at line 26 is still named from the file the process runs, so the
#     launch table's host column reads moved_executable.cu:26, not libc's line or "-".
run_warplab(moved_executable.cu)
expect(moved_executable 0 "^moved_executable: ran\n" "\n1 +scale +moved_executable.cu:26 +\\(1,1,1\\) +\\(128,1,1\\) ")

# 13b. A --watch that matches no launch (a misspelt kernel; a launch past the
#     program's one launch of vector_add): one line on stderr saying so and
#     what was launched; the program's output and exit code are unchanged.
foreach(watch "vector_ad" "vector_add:2")
  run_warplab(vector_add.cu --watch ${watch})
  expect(watch_${watch} 0 "\n1 +vector_add ")
  expect_err(watch_${watch} "warplab: --watch ${watch} traced nothing: it launched vector_add \\(1 launch\\); ")
endforeach()

# 13c. An index one past the end of a cudaMalloc of whole pages (1024 floats,
#     4096 bytes), with buffers allocated before and after it: out of bounds,
#     named as the buffer's own element 1024 (block 3, thread 255 reads
#     in[1023 + 1]), never a silent read of the next buffer.
file(WRITE ${WORK}/past_end.cu "__global__ void diff(float* out, const float* in, int n)\n"
     "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = in[i + 1] - in[i]; }\n"
     "int main() { float *a, *in, *out; cudaMalloc(&a, 4096); cudaMalloc(&in, 4096); cudaMalloc(&out, 4096);\n"
     "  cudaMemset(in, 0, 4096); diff<<<4, 256>>>(out, in, 1024); cudaDeviceSynchronize();\n"
     "  cudaFree(a); cudaFree(in); cudaFree(out); return 0; }\n")
run_warplab(${WORK}/past_end.cu)
expect_err(past_end "kernel fault: kernel diff, block \\(3,0,0\\), thread \\(255,0,0\\)[^\n]*out-of-bounds load: in\\[1024\\] \\(argument 1\\) is outside its 1024 elements")

# 14. A __device__ function of another file, called across files: nvcc leaves the
#     call to a linker only with separate compilation (-rdc=true), which warplab does
#     not link. The launch stops with a fault that names the function as written and
#     says so, not the mangled name alone; the program goes on (its copy gets the error).
file(WRITE ${WORK}/twice.cu "__device__ int twice(int x) { return 2 * x; }\n")
file(WRITE ${WORK}/caller.cu "extern __device__ int twice(int x);\n"
     "__global__ void doubled(int* v) { v[threadIdx.x] = twice(threadIdx.x); }\n"
     "int main() { int* d; cudaMalloc(&d, 128); doubled<<<1, 32>>>(d); cudaFree(d); return 0; }\n")
run_warplab(${WORK}/caller.cu ${WORK}/twice.cu)
expect_err(separate_compilation "kernel fault: kernel doubled, [^\n]*: call of twice\\(int\\), which this file declares but does not define: a __device__ function of another file needs separate compilation \\(nvcc -rdc=true\\)[^\n]*caller.cu:2\\)")

# 15. __managed__ variables by name on both sides (managed_variables.cu): 5 set on
#     the host, 64 atomicAdds of 1: 69; weights 1..4 doubled by block 0: 2 4 6 8.
run_warplab(managed_variables.cu)
expect(managed_variables 0 "^managed: count 69, weights 2 4 6 8\n")

# 16. Global objects that own device memory (global_objects.cu): cudaMalloc in a
#     constructor, before main, and cudaFree in the destructor, after main returns.
#     The runtime is initialised before the program's globals and destroyed after
#     them, as NVIDIA's shared one is: the kernel's 3 * i over 16 ints sums to 360,
#     and the destructor's line follows main's. Nothing left unfreed, no message.
run_warplab(global_objects.cu)
expect(global_objects 0 "^made before main: cudaSuccess\nsum 360\nfreed: cudaSuccess\n")
string(REGEX REPLACE "warplab: nvcc built [^\n]*\n" "" quiet "${err}")
if(NOT quiet STREQUAL "")
  string(APPEND failures "global_objects: a right program drew messages: '${quiet}'\n")
endif()

# 17. CUDA's libraries (library_sorts.cu, -std=c++17): thrust::sort and sort_by_key
#     (cub's radix sort: bmsk), thrust::sort with a comparator (cub's merge sort:
#     cudaLaunchKernelEx with programmatic stream serialization, griddepcontrol),
#     cub::BlockRadixSort of 512 keys in one block; each outcome derived in its header.
run_warplab(-std=c++17 library_sorts.cu)
expect(library_sorts 0 "^sort: ascending, from -50 to 50\nsort_by_key: ascending, values follow\nsort by \\|v\\|: ascending\n"
       "\nBlockRadixSort: slot k holds k\n")

# 18. Host-side runtime calls of samples and newer code (runtime_calls.cu, each
#     value derived in its header comment): 2D and 3D memsets, the stream-ordered
#     allocator, host functions and callbacks in stream order after the kernel
#     (which counted 32 threads), pointer attributes (device 2, managed 3, pinned 1,
#     registered 1, a stack array 0), host registration, the hints, and
#     cudaProfilerStart/Stop around it all (cuda_profiler_api.h). No message.
run_warplab(runtime_calls.cu)
expect(runtime_calls 0 "^memset2D: pitch 512, row sums 70, padding 0\nmemset3D: 36 bytes of 1\nmallocAsync: sum 2016\n"
       "\nhost function saw 32\ncallback saw 32, cudaSuccess\npointer types: 2 3 1 1 0\n"
       "\nregister again: cudaErrorHostMemoryAlreadyRegistered\nunregister again: cudaErrorHostMemoryNotRegistered\n"
       "\npriorities: least 0, greatest -5\n")
string(REGEX REPLACE "warplab: nvcc built [^\n]*\n" "" quiet "${err}")
if(NOT quiet STREQUAL "")
  string(APPEND failures "runtime_calls: a right program drew messages: '${quiet}'\n")
endif()

if(failures)
  message(FATAL_ERROR "${failures}")
endif()
message("warplab run: every program gave its output, exit code, launches, traces and messages")
