# Part of user_kernel.cmake (run_warplab and `failures` come from there):
# --file kernels as textbooks and samples write them. tests/cli/kernels/
# harris_style.cu (plain int kernels over `extern __shared__ int sdata[]`),
# sample_style.cu (templates on <class T>, <class T, unsigned blockSize, bool>,
# <int BLOCK, typename T>, ... with and without explicit instantiations),
# tiles_extern.cu and transpose_extern.cu (extern tiles in matmul and
# transpose), and files warplab must refuse in one line.

# expect(<name> <exit> <stdout regex> <stderr regex> <warplab args>...)
function(expect name code out_re err_re)
  run_warplab(${ARGN})
  set(why "")
  if(NOT rc EQUAL code)
    set(why "exit ${rc}, expected ${code}")
  elseif(NOT out MATCHES "${out_re}")
    set(why "stdout does not match '${out_re}'")
  elseif(NOT err MATCHES "${err_re}")
    set(why "stderr does not match '${err_re}'")
  endif()
  if(why)
    string(APPEND failures "${name}: ${why}\n  stdout '${out}'\n  stderr '${err}'\n")
    set(failures "${failures}" PARENT_SCOPE)
  endif()
endfunction()

# A one-line error, exit 2.
set(one_line "^warplab: error: [^\n]*\n$")

# --- Harris's style: extern __shared__ int sdata[], sized by the launch -------
# Without --shared-bytes the reduction lab gives what Harris's host code
# gives: threads × sizeof(int) = 256 × 4 = 1024 bytes at the default block.
# reduce_modulo is his kernel 1: at step 1 (s = 1) the threads with tid % 2 == 0
# work: 128 of 256, in all 8 warps, each warp half active (8 partial).
expect(harris_modulo 0 "dynamic shared memory: 1024 bytes per block for extern sdata\\[\\] \\(threads × sizeof\\(T\\).*correct.*\n1 +[0-9]+ +128 +8 +8 " ""
       trace reduction v1 --file harris_style.cu --kernel reduce_modulo --n 1000)
# His kernel 3 at block 128: 128 × 4 = 512 bytes; step 1 (s = 64) has
# threads 0..63 working, 2 whole warps, none partial. n = 1000 is 8 blocks.
expect(harris_halves_128 0 "512 bytes per block for extern sdata\\[\\].*correct.*\n1 +[0-9]+ +64 +2 +0 " ""
       trace reduction v3 --file harris_style.cu --kernel reduce_halves --n 1000 --block 128 --schedule lockstep)
# His kernel 4 (two loads a thread) launched as v4, whose grid is half as
# large: n = 33 is one block; the result is checked against the CPU sum.
expect(harris_two_loads 0 "correct" "" trace reduction v4 --file harris_style.cu --kernel reduce_two_loads --n 33)
# A tree that stops one step early leaves sdata[1] out of every block's sum: wrong, exit 1.
expect(harris_stops_early 1 "WRONG" "" trace reduction v3 --file harris_style.cu --kernel reduce_stops_early --n 1000)
# --shared-bytes sets it, and the header says so; 512 bytes for 256 threads
# is too few: thread 128's store to sdata[128] (bytes 512..515) faults, exit 3.
expect(harris_shared_bytes 0 "2048 bytes per block for extern sdata\\[\\] \\(--shared-bytes\\).*correct" ""
       trace reduction v3 --file harris_style.cu --kernel reduce_halves --n 1000 --shared-bytes 2048)
# On the emulator (a GPU, the default where there is one, gives an illegal address, not a named fault).
expect(harris_too_few_bytes 3 "" "kernel fault: .*shared"
       trace reduction v3 --file harris_style.cu --kernel reduce_halves --n 1000 --shared-bytes 512 --backend cpu)
expect(shared_bytes_without_file 2 "" "${one_line}" trace reduction v3 --shared-bytes 512)

# --- NVIDIA's sample style: templates, explicit instantiations ---------------
# reduce2<class T> with the file's `template ... reduce2<int>(...)`: int takes
# the file's instance; float is instantiated to fit (T = float). Its dynamic
# shared memory is the samples' extern array behind a typed helper.
expect(sample_explicit_int 0 "kernel: reduce2<int>, the file's explicit instantiation\ndynamic shared memory: 1024 bytes per block for extern dynamic_smem\\[\\].*correct" ""
       trace reduction v3 --file sample_style.cu --kernel reduce2 --n 1000)
expect(sample_instantiated_float 0 "kernel: reduce2<float>, instantiated for reduction v3's launch <256u, float>.*correct" ""
       trace reduction v3 --file sample_style.cu --kernel reduce2 --n 777 --type float)
# reduce6<class T, unsigned int blockSize, bool nIsPow2>: the bool cannot be
# filled, but the file's <int, 256, false> fits int at block 256 ...
expect(sample_bool_explicit 0 "kernel: reduce6<int, 256u, false>, the file's explicit instantiation.*correct" ""
       trace reduction v3 --file sample_style.cu --kernel reduce6 --n 1000)
# ... and nothing fits float: one line naming the parameter.
expect(sample_bool_unfilled 2 "" "${one_line}"
       trace reduction v3 --file sample_style.cu --kernel reduce6 --type float)
expect(sample_bool_unfilled_names_it 2 "" "cannot fill template parameter 'bool nIsPow2' of reduce6 from reduction v3's launch <256u, float>, and no explicit instantiation in sample_style.cu fits"
       trace reduction v3 --file sample_style.cu --kernel reduce6 --type float)
# A bool with a default takes it: <typename T, unsigned BLOCK, bool = false>
# at block 128, float.
expect(sample_default_bool 0 "kernel: reduce_default_bool<float, 128u, false>, instantiated.*correct" ""
       trace reduction v3 --file sample_style.cu --kernel reduce_default_bool --n 1001 --block 128 --type float)
# The value first and of type int: <int BLOCK, typename T> gets <256, int>.
expect(sample_int_block 0 "kernel: reduce_int_block<256, int>, instantiated.*correct" ""
       trace reduction v3 --file sample_style.cu --kernel reduce_int_block --n 1000)
# An unsigned long long block size: its static_assert wants 512 or more. At
# 512 it runs; at 256 nvcc's message names the user's line and no file warplab made.
expect(sample_ull_block 0 "kernel: reduce_big_block<int, 512ull>, instantiated.*correct" ""
       trace reduction v3 --file sample_style.cu --kernel reduce_big_block --n 3000 --block 512)
expect(sample_static_assert 2 "" "sample_style.cu\\([0-9]+\\): error: static assertion failed with \"reduce_big_block needs a block of at least 512 threads\""
       trace reduction v3 --file sample_style.cu --kernel reduce_big_block --n 3000)
if(err MATCHES "_instance|warplab_instance")
  string(APPEND failures "sample_static_assert: nvcc's message names a file warplab made: '${err}'\n")
endif()

# --- Names: --kernel that matches nothing lists the file's kernels ------------
set(sample_kernels "reduce2<class T>, reduce6<class T, unsigned int blockSize, bool nIsPow2>, reduce_default_bool<typename T, unsigned BLOCK, bool kUnused = false>, reduce_int_block<int BLOCK, typename T>, reduce_big_block<typename T, unsigned long long BLOCK>")
expect(no_such_kernel 2 "" "no kernel 'reduce9' in sample_style.cu; its kernels: ${sample_kernels}\n$"
       trace reduction v3 --file sample_style.cu --kernel reduce9)
expect(several_kernels 2 "" "sample_style.cu has 5 kernels: name one with --kernel \\(${sample_kernels}\\)\n$"
       trace reduction v3 --file sample_style.cu)
# bench --file checks the names before it looks for a GPU.
expect(bench_no_such_kernel 2 "" "no kernel 'reduce9' in sample_style.cu; its kernels: reduce2<class T>,"
       bench reduction --file sample_style.cu --kernel reduce9)

# --- Files with nothing to run: three distinct lines --------------------------
expect(empty_file 2 "" "^warplab: error: empty.cu is empty: write a __global__ kernel in it\n$"
       trace reduction v3 --file empty.cu)
expect(no_global 2 "" "^warplab: error: no_kernel.cu declares no __global__ function: only a kernel \\(a __global__ function\\) can be launched\n$"
       trace reduction v3 --file no_kernel.cu)
expect(only_templates 2 "" "^warplab: error: only_templates.cu has only uninstantiated kernel templates \\(reduce_choice<class T, bool kTwoLoads>\\), and warplab cannot fill template parameter 'bool kTwoLoads' of reduce_choice from reduction v3's launch <256u, int>: [^\n]*\n$"
       trace reduction v3 --file only_templates.cu)
expect(empty_file_bench 2 "" "empty.cu is empty" bench reduction --file empty.cu)

# --- A loop that never ends: the instruction budget stops it -----------------
# endless_sum.cu's stride stays 1: the launch stops with exit 3 and one
# paragraph naming the budget (--max-instructions 20000 keeps the test short),
# the kernel, block and thread, and the loop's line (11, inside the loop, or 12,
# its barrier), on the emulator (a GPU has no budget). The option's former
# name, --max-steps, still sets it.
set(endless_fault "^warplab: kernel fault: kernel endless_sum, block \\(0,0,0\\), thread \\([0-9]+,0,0\\) [^\n]*: the kernel did not finish within 20000 instructions per thread: an endless loop\\? [^\n]*--max-instructions raises it[^\n]*\\(at endless_sum.cu:1[12]\\)\n$")
expect(endless_loop 3 "" "${endless_fault}" trace reduction v1 --file endless_sum.cu --backend cpu --max-instructions 20000)
expect(endless_loop_former_name 3 "" "${endless_fault}" trace reduction v1 --file endless_sum.cu --backend cpu --max-steps 20000)

# --- Other labs' textbook shared memory ---------------------------------------
# matmul v3 launches 32×32 threads: Kirk and Hwu's two tiles, 2 × 32 × 32 × 4
# = 8192 bytes; the product is compared with the CPU's element by element.
# Without --kernel the header names the file's only kernel.
expect(matmul_dynamic_tiles 0 "^matmul: your kernel matmul_dynamic_tiles \\(tiles_extern.cu\\), launched as v3 .*8192 bytes per block for extern tiles\\[\\] \\(two tiles.*within tolerance.*correct" ""
       trace matmul v3 --file tiles_extern.cu --size 64,48,40)
# transpose v4 launches 32×8 threads with <TILE, ROWS> = <32, 8>, which fill
# <TILE_DIM, BLOCK_ROWS> in order; the padded tile is 32 × 33 × 4 = 4224 bytes.
expect(transpose_padded_tile 0 "kernel: transpose_extern_tile<32u, 8u>, instantiated.*4224 bytes per block for extern tile\\[\\].*correct" ""
       trace transpose v4 --file transpose_extern.cu --size 70,45)

# A plain int kernel run on floats would read their bits as ints: one line
# naming both types, exit 2.
expect(harris_wrong_type 2 "" "^warplab: error: reduce_halves takes int\\*, but reduction v3's launch <256u, float> passes float\\*: run it with --type int\n$"
       trace reduction v3 --file harris_style.cu --kernel reduce_halves --type float)

# A kernel with other parameters than the version's launch passes: one line
# naming the version's, as its file declares them (matmul v3: A, B, C, M, N, K),
# exit 2, rather than the emulator's count of parameter bytes.
expect(matmul_other_parameters 2 "" "^warplab: error: square_matmul takes 4 parameters, but matmul v3's launch <32u> passes 6: \\(const float\\* __restrict__ A, const float\\* __restrict__ B, float\\* C, unsigned M, unsigned N, unsigned K\\); write your kernel with these, in this order\n$"
       trace matmul v3 --file square_matmul.cu)

# coalescing v1's kernels take only <T>: BLOCK gets the launch's 256 threads,
# and the staging array 256 × 4 bytes; every element is compared with the
# input shifted by the offset (0).
expect(coalescing_staged 0 "kernel: staged_copy<float, 256u>, instantiated for coalescing v1's launch <float> of 256 threads\ndynamic shared memory: 1024 bytes per block for extern raw\\[\\].*all 1000 elements copied: correct" ""
       trace coalescing v1 --file staged_copy.cu --n 1000)
