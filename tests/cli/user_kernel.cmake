# `warplab trace <lab> [version] --file F.cu --kernel K`: a user's own kernel
# runs in place of a version's; `warplab bench <lab> --file F.cu` times it
# beside them. Run as:
#   cmake -DWARPLAB=<warplab> -DKERNELS=<tests/cli/kernels> -P user_kernel.cmake
# Prints "needs nvcc" and succeeds (the test is then marked skipped) where
# there is no CUDA toolkit to compile the user's file.
set(failures "")
function(run_warplab)
  execute_process(COMMAND "${WARPLAB}" ${ARGN} WORKING_DIRECTORY "${KERNELS}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(rc "${rc}" PARENT_SCOPE)
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

# 1. A right tree. n = 1000, block 256 (the lab's default): the first pass has
#    4 blocks; block 0 halves its working threads 128, 64, ..., 1 after the
#    load step (256 threads), so step 1 has 128 active threads in 4 warps.
run_warplab(trace reduction v3 --file tree_sum.cu --kernel tree_sum --n 1000 --type float)
if(err MATCHES "needs the CUDA toolkit")
  message("needs nvcc: ${err}")
  return()
endif()
if(NOT rc EQUAL 0 OR NOT out MATCHES "correct")
  string(APPEND failures "tree_sum: exit ${rc}, stdout '${out}', stderr '${err}'\n")
endif()
if(NOT out MATCHES "your kernel tree_sum \\(tree_sum.cu\\), launched as v3")
  string(APPEND failures "tree_sum: the header does not name the user's kernel: '${out}'\n")
endif()
if(NOT out MATCHES "\n1 +[0-9]+ +128 +4 +0 ")
  string(APPEND failures "tree_sum: step 1 is not 128 threads in 4 whole warps: '${out}'\n")
endif()
# The user's kernel has no machine-code listing: one line says its shared
# accesses are counted per PTX instruction. The lab's own v3 has one: no such line.
if(NOT out MATCHES "\nshared accesses counted per PTX instruction: no machine code of this kernel")
  string(APPEND failures "tree_sum: no line saying the counts are per PTX instruction: '${out}'\n")
endif()
run_warplab(trace reduction v3 --n 1000 --type float)
if(NOT rc EQUAL 0 OR out MATCHES "counted per PTX instruction")
  string(APPEND failures "lab v3: exit ${rc}, or its counts said to be per PTX instruction: '${out}'\n")
endif()

# 2. Without the barrier in the loop: a kernel fault (exit 3) naming the race
#    and the user's file and line (12: the addition), on the emulator (a GPU,
#    the default where there is one, runs the race without a word).
run_warplab(trace reduction v3 --file racy_sum.cu --kernel racy_sum --n 1000 --backend cpu)
if(NOT rc EQUAL 3 OR NOT err MATCHES "data race" OR NOT err MATCHES "racy_sum.cu:12")
  string(APPEND failures "racy_sum: exit ${rc} (expected 3), stderr '${err}'\n")
endif()

# 2b. A read past the image's last pixel (luma_past_end.cu:11 has no edge
#     check): 40x40 is 1600 pixels; the tile's threads below the last row or
#     right of the last pixel read image[1600..]. The fault says `image[`, the
#     kernel's own name for the parameter, not `argument 0[`.
run_warplab(trace image v2 --file luma_past_end.cu --size 40x40 --backend cpu)
if(NOT rc EQUAL 3 OR NOT err MATCHES "out-of-bounds load: image\\[1[6-9][0-9][0-9]\\] \\(argument 0\\) is outside its 1600 elements"
   OR NOT err MATCHES "luma_past_end.cu:11")
  string(APPEND failures "luma_past_end: exit ${rc} (expected 3 naming image[...]), stderr '${err}'\n")
endif()

# 2c. nvcc's warnings, with the lines they quote. countdown_sum's unsigned
#     s >= 0 (line 12) never ends the loop: the fault (the budget of --max-instructions)
#     is followed by the warnings; checked_sum is right, and its trace header
#     shows them (line 12's and its own line 25's: one compile of the file).
#     From a fresh PTX cache, then from the cache: the same warnings both times.
#     tree_sum draws none, and says nothing of nvcc.
set(saved_cache "$ENV{WARPLAB_PTX_CACHE}")
set(ENV{WARPLAB_PTX_CACHE} "${CMAKE_CURRENT_BINARY_DIR}/warnings_ptx_cache")
file(REMOVE_RECURSE "$ENV{WARPLAB_PTX_CACHE}")
set(unsigned_warning "pointless comparison of unsigned integer with zero")
foreach(compile fresh cached)
  run_warplab(trace reduction v1 --file countdown_sum.cu --kernel countdown_sum --backend cpu --max-instructions 20000)
  if(NOT rc EQUAL 3 OR NOT err MATCHES "did not finish within 20000 instructions[^\n]*\nnvcc warns about countdown_sum.cu:\ncountdown_sum.cu\\(12\\): warning #186-D: ${unsigned_warning}\n +for \\(unsigned s = blockDim.x / 2; s >= 0; s >>= 1\\)")
    string(APPEND failures "countdown_sum (${compile} compile): exit ${rc}, no fault followed by nvcc's warning of line 12: '${err}'\n")
  endif()
  run_warplab(trace reduction v1 --file countdown_sum.cu --kernel checked_sum --backend cpu --n 1000)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "correct" OR NOT out MATCHES "nvcc warns about countdown_sum.cu:\n"
     OR NOT out MATCHES "countdown_sum.cu\\(25\\): warning #186-D: ${unsigned_warning}\n +sdata\\[tid\\] = i >= 0 && i < n")
    string(APPEND failures "checked_sum (${compile} compile): exit ${rc}, no warning of line 25 in the header: '${out}'\n")
  endif()
endforeach()
run_warplab(trace reduction v3 --file tree_sum.cu --kernel tree_sum --n 1000 --type float --backend cpu)
if(NOT rc EQUAL 0 OR out MATCHES "nvcc" OR err MATCHES "nvcc")
  string(APPEND failures "tree_sum: exit ${rc}, or a word of nvcc for a kernel it does not warn about: '${out}' '${err}'\n")
endif()
set(ENV{WARPLAB_PTX_CACHE} "${saved_cache}")

# 2d. Occupancy of the user's kernel from its own ptxas report, in v3's launch
#     (256 threads, <256u, int>). staged_sum's static shared memory is 256 x 32
#     ints = 32768 bytes. On the H100 each block takes 32768 + 1024 (the
#     driver's reservation) = 33792 bytes of 233472: 6 blocks (threads alone
#     would allow 2048 / 256 = 8), 6 x 8 = 48 of 64 warps, 75 %, limited by
#     shared memory. The lab's v3 row stays: 8 blocks, 100 %, threads.
run_warplab(occupancy reduction v3 --file staged_sum.cu)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\nyours +staged_sum<256u, int> +[0-9]+ +0 +32768 +256 +6 +48/64 +75.0%  shared memory\n"
   OR NOT out MATCHES "\nv3 +reduce_sequential_addressing<256u, int> +[0-9]+ +0 +1024 +256 +8 +64/64 +100.0%  threads\n"
   OR NOT out MATCHES "yours: staged_sum<256u, int> in staged_sum.cu as ptxas compiles it for sm_90, in v3's launch")
  string(APPEND failures "occupancy --file staged_sum.cu: exit ${rc}, stdout '${out}', stderr '${err}'\n")
endif()
run_warplab(occupancy reduction v3 --file staged_sum.cu --kernel no_such_kernel)
if(NOT rc EQUAL 2 OR NOT err MATCHES "^warplab: error: no kernel 'no_such_kernel' in staged_sum.cu[^\n]*\n$")
  string(APPEND failures "occupancy --kernel no_such_kernel: exit ${rc}, stderr '${err}'\n")
endif()

# 3. Bad input: one line and exit 2.
foreach(case "nope.cu|tree_sum|cannot read kernel file 'nope.cu'"
             "tree_sum.cu|no_such_kernel|no kernel 'no_such_kernel' in tree_sum.cu; its kernels: tree_sum<unsigned BLOCK, class T>$")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 file)
  list(GET parts 1 kernel)
  list(GET parts 2 pattern)
  run_warplab(trace reduction --file ${file} --kernel ${kernel})
  if(NOT rc EQUAL 2 OR NOT err MATCHES "^warplab: error: [^\n]*\n$" OR NOT err MATCHES "${pattern}")
    string(APPEND failures "--file ${file} --kernel ${kernel}: exit ${rc}, stderr '${err}' (expected exit 2 and '${pattern}')\n")
  endif()
endforeach()
# The file's only kernel is the one run when --kernel is not given, a template too.
run_warplab(trace reduction v3 --file tree_sum.cu --n 1000)
if(NOT rc EQUAL 0 OR NOT out MATCHES "correct")
  string(APPEND failures "tree_sum without --kernel: exit ${rc}, stderr '${err}'\n")
endif()

# 3b. Kernels as textbooks and samples write them (user_kernel_styles.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/user_kernel_styles.cmake)

# 4. --backend gpu: on a GPU the user's PTX is traced there, giving case 1's
#    table; without one, one line saying so and exit 2.
run_warplab(trace reduction v3 --file tree_sum.cu --kernel tree_sum --n 1000 --type float --backend gpu)
if(rc EQUAL 0)
  if(NOT out MATCHES "traced on the gpu" OR NOT out MATCHES "\n1 +[0-9]+ +128 +4 +0 ")
    string(APPEND failures "--backend gpu with --file: not case 1's table on the GPU: '${out}'\n")
  endif()
elseif(NOT rc EQUAL 2 OR NOT err MATCHES "^warplab: error: no GPU")
  string(APPEND failures "--backend gpu with --file: exit ${rc}, stderr '${err}'\n")
endif()

# 5. bench --file: the user's kernel as one more row, right after the version
#    it is launched as (v3), on a GPU; without one, one line and exit 2.
run_warplab(bench reduction --file tree_sum.cu --kernel tree_sum --as v3 --n 100003 --seconds 0.05)
if(rc EQUAL 0)
  if(NOT out MATCHES "\n *v3 [^\n]*\n *yours ")
    string(APPEND failures "bench --file: no 'yours' row right after v3: '${out}'\n")
  endif()
elseif(NOT rc EQUAL 2 OR NOT err MATCHES "^warplab: error: no GPU to time on")
  string(APPEND failures "bench --file: exit ${rc}, stderr '${err}'\n")
endif()
# 5b. bench --file in the other labs that launch one kernel: transpose (Harris's
#     padded tile in an extern array, as v4) and coalescing (a copy staged
#     through shared memory, as v1: a row at each of v1's 33 offsets, each
#     right after v1's row of that offset). A transpose that skips the partial
#     tiles is timed but marked wrong (1000 = 31·32 + 8 leaves a partial tile
#     in every row and column), and the exit is 1. Without a GPU: one line, exit 2.
run_warplab(bench transpose --file transpose_extern.cu --as v4 --n 1000 --seconds 0.02)
if(rc EQUAL 0)
  if(NOT out MATCHES "\n *v4 [^\n]*\n *yours \\* [^\n]* yes\n")
    string(APPEND failures "bench transpose --file: no right 'yours' row after v4: '${out}'\n")
  endif()
  run_warplab(bench transpose --file ${CMAKE_CURRENT_LIST_DIR}/../transpose/wrong/whole_tiles_only.cu --as v3 --n 1000 --seconds 0.02)
  if(NOT rc EQUAL 1 OR NOT out MATCHES "\n *v3 [^\n]*\n *yours \\* [^\n]* WRONG\n")
    string(APPEND failures "bench transpose --file of a wrong kernel: exit ${rc}, not a WRONG row after v3: '${out}'\n")
  endif()
  run_warplab(bench coalescing --file staged_copy.cu --as v1 --n 100003 --seconds 0.005)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "\n *v1 offset 0 [^\n]*\n *yours offset 0 \\* [^\n]* yes\n"
     OR NOT out MATCHES "\n *v1 offset 32 [^\n]*\n *yours offset 32 \\* [^\n]* yes\n *v2 stride 1 ")
    string(APPEND failures "bench coalescing --file: exit ${rc}, no right 'yours' row after each of v1's: '${out}'\n")
  endif()
else()
  foreach(lab "transpose;transpose_extern.cu" "coalescing;staged_copy.cu")
    list(GET lab 0 name)
    list(GET lab 1 file)
    run_warplab(bench ${name} --file ${file})
    if(NOT rc EQUAL 2 OR NOT err MATCHES "^warplab: error: no GPU to time on")
      string(APPEND failures "bench ${name} --file without a GPU: exit ${rc}, stderr '${err}'\n")
    endif()
  endforeach()
endif()
# Transfers' versions are host programs: refused before a GPU is looked for.
run_warplab(bench transfers --file tree_sum.cu)
if(NOT rc EQUAL 2 OR NOT err MATCHES "^warplab: error: --file: the transfers lab's versions are host programs[^\n]*\n$")
  string(APPEND failures "bench transfers --file: exit ${rc}, stderr '${err}' (expected one line and exit 2)\n")
endif()
foreach(case "--as=v99|unknown version 'v99' of lab reduction to launch your kernel as"
             "--recorded|takes neither --record nor --recorded")
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 extra)
  list(GET parts 1 pattern)
  run_warplab(bench reduction --file tree_sum.cu --kernel tree_sum ${extra})
  if(NOT rc EQUAL 2 OR NOT err MATCHES "^warplab: error: " OR NOT err MATCHES "${pattern}")
    string(APPEND failures "bench --file ${extra}: exit ${rc}, stderr '${err}' (expected exit 2 and '${pattern}')\n")
  endif()
endforeach()

# A hand-in beside the reference (trace --compare with --file). strided_sum.cu
# in v3's launch (n = 4096, block 256) keeps interleaved addressing's strided
# index: step 0 is v3's load; step 1, the first that differs, has 128 threads
# in 4 warps in both, but lane t of the hand-in touches word 2t (lanes t and
# t + 16 share a bank: 2-way, 4 warps x 3 instructions x 2 = 24 wavefronts for
# 12) where v3's touches word t (1-way, 12). tree_sum.cu, sequential
# addressing written its own way, touches v3's words at every step.
run_warplab(trace reduction v3 --file strided_sum.cu --compare v3 --backend cpu)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\n1 \\* +[0-9]+ +[0-9]+ +128 +4 +0 +24/12 -> 12/12 +2-way -> 1-way ")
  string(APPEND failures "strided_sum beside v3: step 1 should be marked, 24/12 -> 12/12, 2-way -> 1-way (exit ${rc})\n${out}${err}")
endif()
run_warplab(trace reduction v3 --file tree_sum.cu --kernel tree_sum --compare v3 --backend cpu)
if(NOT rc EQUAL 0 OR out MATCHES "\n[0-9]+ \\*" OR NOT out MATCHES "the same accesses at every step")
  string(APPEND failures "tree_sum beside v3: no step should be marked (exit ${rc})\n${out}${err}")
endif()

if(failures)
  message(FATAL_ERROR "${failures}")
endif()
