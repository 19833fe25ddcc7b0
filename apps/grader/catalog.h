// The exercises and what is graded in each: one list, read by the grader (to
// compile, run and report) and by the checks that run in its child process
// (to name them). exercises/<folder>/README.md says the same in prose.
#pragma once
#include <span>
#include <string>
#include <string_view>

namespace wl::grade {

struct CheckSpec {
    std::string_view id;     // as the checks report it: "correct", "whole_warps", ...
    std::string_view title;  // what is graded, one line
    unsigned points;
    std::string_view hint;   // given when the check fails and the check has no better one
};

// A case of a correctness check whose result is wrong, as the checks report
// it and the grader shows it: its input (size or shape in the name), what the
// kernel gave (the first wrong element and its value, or the fault) and what
// was due.
struct FailedCase {
    std::string name, measured, expected;
};

struct ExerciseSpec {
    std::string_view id;         // "E1"
    std::string_view folder;     // "E1_max_no_divergence", under exercises/ and solutions/
    std::string_view title;
    std::string_view mirrors;    // the lab step it applies to a sibling problem
    std::string_view signature;  // what the grader calls: the student must keep it
    // Appended to the generated .cu that includes the student's kernel.cuh: it
    // instantiates the kernels at the sizes the checks launch, through pointers
    // of the exact type the grader calls (an edited signature does not compile).
    std::string_view calls;
    std::span<const CheckSpec> checks;
    unsigned time_limit_s;       // the whole run of the checks
    // A whole-program exercise: the student's file ("program.cu", with main()),
    // built by wl::cudart::build_program and run on seeded inputs under warplab's
    // CUDA runtime; empty: a kernel.cuh compiled to PTX (signature and calls).
    std::string_view program = {};
};

// The file the student hands in for `e`.
constexpr std::string_view student_file(const ExerciseSpec& e) { return e.program.empty() ? "kernel.cuh" : e.program; }

// Every exercise opens with this check, run on every case; the others
// (properties) are graded once its main cases are right (harness.h's
// Case::main), and only on a traced run whose result is right: a property of
// a wrong result proves nothing.
inline constexpr std::string_view kCorrect = "correct";

namespace catalog_detail {

inline constexpr CheckSpec kE1[] = {
    {kCorrect, "right max: pattern, seeded random, odd sizes, many blocks, all-negative input", 5,
     "after the last step sdata[0] must hold the max of the block's BLOCK elements: at stride s = 1, 2, 4, ... each "
     "working thread folds sdata[index + s] into sdata[index], and a __syncthreads() ends every step"},
    {"whole_warps", "a tree of log2(BLOCK) halving steps with no partially-active warp at an access that 32 or more threads make",
     5,
     "make the working threads the first ones of the block: thread tid works on index 2*s*tid "
     "(or tid < s), instead of testing tid % (2*s); every step halves the working threads"},
};
inline constexpr CheckSpec kE2[] = {
    {kCorrect, "right min: pattern, seeded random, odd sizes, many blocks, all-positive input", 5,
     "after the last step sdata[0] must hold the min of the block's BLOCK elements: at stride s = BLOCK/2, ..., 2, 1 "
     "thread tid < s folds sdata[tid + s] into sdata[tid], and a __syncthreads() ends every step"},
    {"no_bank_conflicts", "a tree of log2(BLOCK) halving steps with zero shared-memory bank conflicts", 5,
     "let lane tid read words tid and tid + s (sequential addressing): consecutive words sit in distinct banks; "
     "index 2*s*tid puts 2, 4, 8... lanes on one bank"},
};
inline constexpr CheckSpec kE3[] = {
    {kCorrect, "right dot product for any n: pattern, seeded random, odd sizes, many blocks", 5,
     "each block covers 2*BLOCK elements: thread tid adds the products at i and i + BLOCK (guard both with < n)"},
    {"half_the_blocks", "half the blocks of the naive launch; each block covers 2*BLOCK elements, two per thread", 5,
     "dot_blocks() must return ceil(n / (2*BLOCK)), and thread tid loads the products at i and i + BLOCK: every "
     "block covers 2*BLOCK elements"},
};
inline constexpr CheckSpec kE4[] = {
    {kCorrect, "right sum under the independent schedule: pattern, seeded random, odd sizes, many blocks", 4,
     "after the shared-memory tree leaves 64 partial sums, warp 0 adds sdata[tid + 32] to its own and finishes "
     "with __shfl_down_sync at offsets 16, 8, 4, 2, 1"},
    {"shuffle_tail", "a halving tree down to 64 sums, then 5 shuffle rounds in warp 0 without shared memory", 4,
     "keep the running sum in a register: sum += __shfl_down_sync(0xffffffff, sum, offset) needs no shared memory "
     "and no __syncwarp()"},
    {"no_race", "no race report under the independent schedule, 8 lane orders, with the tree's parallel shape", 2,
     "a shuffle both moves data and synchronises the lanes in its mask: use the full mask 0xffffffff in warp 0"},
};
inline constexpr CheckSpec kE5[] = {
    {kCorrect, "right sum of squares under the independent schedule: pattern, seeded random, odd sizes, many blocks",
     4,
     "since Volta the lanes of a warp need not run in lockstep: read sdata[tid + s] into a register, __syncwarp(), "
     "write sdata[tid], __syncwarp()"},
    {"no_race", "no race report under the independent schedule, 8 lane orders, with the tree's parallel shape", 4,
     "every read of a word another lane writes in the tail must be separated from that write by a __syncwarp()"},
    {"warp_level_tail", "the tail stays warp-level: no __syncthreads() while fewer than 64 threads work", 2,
     "synchronise the last warp with __syncwarp(): a __syncthreads() between the tail's rounds makes each round a barrier interval of its own"},
};
inline constexpr CheckSpec kE6[] = {
    {kCorrect, "right C = A B^T: pattern, seeded random, odd sizes (not multiples of TILE), many blocks", 5,
     "load the tiles with a bounds check (0 outside A or B), and __syncthreads() before and after using them"},
    {"loads_per_output", "global loads per output reduced by the tile factor: each tile element loaded once a phase",
     5,
     "each thread loads one element of the A tile and one of the B tile per phase; the inner product then reads "
     "only the shared tiles"},
};
inline constexpr CheckSpec kE7[] = {
    {kCorrect, "right transpose: pattern, seeded random, odd shapes, many blocks", 4,
     "read the tile in row order, __syncthreads(), then write out[(bx*TILE + ty + j) * rows + by*TILE + tx] "
     "from tile[tx][ty + j], with bounds checks on both sides"},
    {"coalesced_stores", "coalesced loads and stores, every element moved through the shared tile once", 3,
     "threadIdx.x must run along the output's rows: swap the block indices for the store, and let the shared tile "
     "do the transposing"},
    {"no_bank_conflicts", "zero shared-memory bank conflicts (padding) in a tile every element goes through", 3,
     "pad the tile to TILE + 1 columns: a column of tile[TILE][TILE] lies in one bank, of tile[TILE][TILE + 1] in 32"},
};
inline constexpr CheckSpec kE8[] = {
    {kCorrect, "right y = a x + y for any n and any grid: pattern, seeded random, odd sizes, n = 0, other grids", 5,
     "loop: for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)"},
    {"ideal_load_sectors", "loads at the ideal sectors per request; every thread of the grid takes its share", 5,
     "let consecutive lanes take consecutive elements in every iteration (grid-stride), not a contiguous chunk "
     "per thread"},
};
inline constexpr CheckSpec kE9[] = {
    {kCorrect, "right sums per block: pattern, seeded random, refilled slots, blocks with no piece, two block sizes", 5,
     "piece k of the block is in slot k % kSlots, in that slot's fill k / kSlots: wait_slot(&landed[s], "
     "(k / kSlots) % 2) before reading it, __syncthreads() after every thread has read it, then thread 0 refills it"},
    {"copy_engine", "the warps load no global memory: every piece comes through the ring, each thread reading its share",
     5,
     "read the piece from ring[k % kSlots], never from in: the copy engine has brought it there; and let every thread "
     "add its share (j = threadIdx.x, threadIdx.x + BLOCK, ...), not one thread all of it"},
};

inline constexpr CheckSpec kE10[] = {
    {kCorrect, "right chunk sums at strides 8 and 4: pattern, seeded random, odd sizes, many blocks", 4,
     "thread tid adds staged[slot(tid*STRIDE + k)] for k = 0 .. STRIDE-1, after the __syncthreads() that ends the "
     "staging"},
    {"predictions", "answers.txt: the n-way of shared[s * lane] for strides 1 to 8, 4- and 8-byte elements", 3,
     "4-byte elements: lane l reads word s*l, in bank s*l mod 32; 8-byte ones are served a half-warp at a time"},
    {"conflict_free", "no bank conflict at strides 8 and 4: neither the staging stores nor the chunk reads", 3,
     "one pad word after every 32 (slot(e) = e + e/32) spreads a chunk read over all 32 banks and keeps the "
     "staging stores on 32; or swizzle: an XOR of the word's column with its row"},
};

inline constexpr CheckSpec kE11[] = {
    {kCorrect, "right partials of luminance: pattern, seeded random images, odd sizes (tiles cut by the edges), many "
               "groups", 4,
     "group (gx, gy) adds the luminance of the pixels of its tile that lie in the image (x < width and y < height "
     "for each of the four), the tree leaves the sum in sdata[0], and thread 0 writes partials[gy * gridDim.x + gx]"},
    {"four_fetches", "64 threads a group, each fetching four pixels before the tree; every pixel fetched once", 3,
     "keep the 8x8 group and the 16x16 tile; thread (tx, ty) fetches e.g. (x0 + tx + 8i, y0 + ty + 8j) for i, j in "
     "{0, 1}, adds their luminance, and only then stores one value in shared memory; test a pixel against the edges "
     "instead of fetching another one in its place"},
    {"group_tree", "the group's 64 sums reduced by a tree: log2(64) = 6 halving rounds, in shared memory or by warp "
                   "shuffles", 3,
     "at s = 32, 16, ..., 1 thread tid < s adds sdata[tid + s] to sdata[tid], a __syncthreads() after each level; "
     "from 32 values on, a warp shuffle a round does too"},
};

inline constexpr CheckSpec kE12[] = {
    {kCorrect, "right sum printed by the whole program: n = 1, 256, odd sizes, more partial sums than a block; exit "
               "code 0, no fault, the sum computed by kernel launches", 4,
     "allocate the input, one partial sum a block and the sum; copy the input in; launch block_sums on ceil(n / BLOCK) "
     "blocks, then sum_partials on one block over the partial sums; copy the one value back and print \"sum S\""},
    {"second_pass", "the partial sums reduced on the GPU: a second launch over them, its grid smaller than the first's, "
                    "the last launch one block", 2,
     "after block_sums, launch the second kernel with one block over the `blocks` partial sums: the host copies back "
     "one int, not the partial sums"},
    {"checks_errors", "the host code checks its CUDA calls: where the second launch fails, or the first allocation "
                      "(warplab run --fail), the program says so and exits non-zero, printing no sum", 2,
     "check each call's cudaError_t, and cudaGetLastError() after each launch; where one is not cudaSuccess, print "
     "cudaGetErrorString of it and exit(1) before printing anything else"},
    {"clean_host", "the host code leaves warplab's runtime nothing to warn about: every allocation freed, no managed "
                   "memory read before a synchronize", 2,
     "cudaFree every cudaMalloc before main() returns, in, partial and sum alike"},
};

inline constexpr CheckSpec kE13[] = {
    {kCorrect, "blend_memory_only writes every out[i], blend_compute_only none (never = -1): pattern, seeded random, "
               "odd sizes", 4,
     "the memory-only variant keeps blend's store of out[i]; the compute-only one stores only when its result equals "
     "never, which blend's results never do"},
    {"memory_only", "memory-only: blend's loads and store kept (x[i], y[i], out[i] a thread), at most an eighth of its "
                    "arithmetic", 3,
     "load x[i] and y[i], join them without blend's loop (an XOR of their bits, or one add) and store the result"},
    {"compute_only", "compute-only: no global access at run time, and all of blend's arithmetic run", 3,
     "make a and h from the index, run blend's loop, and store only if the result equals never: a condition that "
     "reads the result, which the compiler cannot decide"},
};

}  // namespace catalog_detail

inline constexpr ExerciseSpec kExercises[] = {
    {"E1", "E1_max_no_divergence", "max-reduction without divergent branching", "reduction v1 -> v2",
     "template <unsigned BLOCK> __global__ void exercise::block_max(const int* in, int* out, unsigned n)",
     "void (*grader_calls_block_max_128)(const int*, int*, unsigned) = exercise::block_max<128>;\n"
     "void (*grader_calls_block_max_256)(const int*, int*, unsigned) = exercise::block_max<256>;\n",
     catalog_detail::kE1, 10},
    {"E2", "E2_min_sequential_addressing", "min-reduction with sequential addressing", "reduction v2 -> v3",
     "template <unsigned BLOCK> __global__ void exercise::block_min(const int* in, int* out, unsigned n)",
     "void (*grader_calls_block_min_128)(const int*, int*, unsigned) = exercise::block_min<128>;\n"
     "void (*grader_calls_block_min_256)(const int*, int*, unsigned) = exercise::block_min<256>;\n",
     catalog_detail::kE2, 10},
    {"E3", "E3_dot_first_add_during_load", "dot product with the first add during the load", "reduction v3 -> v4",
     "template <unsigned BLOCK> __global__ void exercise::dot_partial(const int* a, const int* b, int* partial, "
     "unsigned n); template <unsigned BLOCK> __host__ __device__ unsigned exercise::dot_blocks(unsigned n)",
     "void (*grader_calls_dot_partial_128)(const int*, const int*, int*, unsigned) = exercise::dot_partial<128>;\n"
     "void (*grader_calls_dot_partial_256)(const int*, const int*, int*, unsigned) = exercise::dot_partial<256>;\n"
     "unsigned (*grader_calls_dot_blocks_128)(unsigned) = exercise::dot_blocks<128>;\n"
     "unsigned (*grader_calls_dot_blocks_256)(unsigned) = exercise::dot_blocks<256>;\n"
     "// The grid the grader launches comes from the student's dot_blocks, run on the emulator like the kernel.\n"
     "extern \"C\" __global__ void grader_dot_blocks_128(unsigned n, unsigned* blocks) "
     "{ *blocks = exercise::dot_blocks<128>(n); }\n"
     "extern \"C\" __global__ void grader_dot_blocks_256(unsigned n, unsigned* blocks) "
     "{ *blocks = exercise::dot_blocks<256>(n); }\n",
     catalog_detail::kE3, 10},
    {"E4", "E4_sum_warp_shuffle", "sum with a warp-shuffle tail", "reduction v7 -> v8",
     "template <unsigned BLOCK> __global__ void exercise::block_sum(const int* in, int* out, unsigned n)",
     "void (*grader_calls_block_sum_128)(const int*, int*, unsigned) = exercise::block_sum<128>;\n"
     "void (*grader_calls_block_sum_256)(const int*, int*, unsigned) = exercise::block_sum<256>;\n",
     catalog_detail::kE4, 10},
    {"E5", "E5_fix_racy_warp_unroll", "fix a racy warp-synchronous unroll (sum of squares)",
     "reduction v5-racy -> v5",
     "template <unsigned BLOCK> __global__ void exercise::block_sum_squares(const int* in, int* out, unsigned n)",
     "void (*grader_calls_block_sum_squares_128)(const int*, int*, unsigned) = exercise::block_sum_squares<128>;\n"
     "void (*grader_calls_block_sum_squares_256)(const int*, int*, unsigned) = exercise::block_sum_squares<256>;\n",
     catalog_detail::kE5, 10},
    {"E6", "E6_tiled_matmul_abt", "tiled matrix multiply C = A B^T (attention scores Q K^T)",
     "matmul v2 -> v3, shared-memory tiles",
     "template <unsigned TILE> __global__ void exercise::matmul_abt(const float* A, const float* B, float* C, "
     "unsigned M, unsigned N, unsigned K)",
     "void (*grader_calls_matmul_abt_16)(const float*, const float*, float*, unsigned, unsigned, unsigned) = "
     "exercise::matmul_abt<16>;\n",
     catalog_detail::kE6, 10},
    {"E7", "E7_transpose_shared", "matrix transpose through shared memory",
     "matmul v1 -> v2 (coalescing) and v6 -> v7 (padding against bank conflicts)",
     "template <unsigned TILE, unsigned ROWS> __global__ void exercise::transpose(const float* in, float* out, "
     "unsigned rows, unsigned cols)",
     "void (*grader_calls_transpose_32_8)(const float*, float*, unsigned, unsigned) = exercise::transpose<32, 8>;\n",
     catalog_detail::kE7, 10},
    {"E8", "E8_grid_stride_saxpy", "grid-stride SAXPY", "reduction v6 -> v7, a grid-stride loop",
     "__global__ void exercise::saxpy(float a, const float* x, float* y, unsigned n)",
     "void (*grader_calls_saxpy)(float, const float*, float*, unsigned) = exercise::saxpy;\n", catalog_detail::kE8,
     10},
    {"E9", "E9_sum_bulk_copy", "a sum fed by the copy engine (cp.async.bulk into a ring of mbarrier-guarded slots)",
     "reduction v9 -> v10",
     "template <unsigned BLOCK> __global__ void exercise::ring_sum(const int* in, int* out, unsigned pieces)",
     "void (*grader_calls_ring_sum_128)(const int*, int*, unsigned) = exercise::ring_sum<128>;\n"
     "void (*grader_calls_ring_sum_256)(const int*, int*, unsigned) = exercise::ring_sum<256>;\n",
     catalog_detail::kE9, 10},
    {"E10", "E10_bank_stride", "a strided shared-memory read without bank conflicts, predicted first",
     "CS-206's degree of bank conflict for stride s; transpose v2 -> v3, padding",
     "template <unsigned STRIDE> __device__ unsigned exercise::slot(unsigned e); template <unsigned BLOCK, unsigned "
     "STRIDE> __global__ void exercise::chunk_sums(const float* in, float* out, unsigned chunks)",
     "void (*grader_calls_chunk_sums_128_8)(const float*, float*, unsigned) = exercise::chunk_sums<128, 8>;\n"
     "void (*grader_calls_chunk_sums_128_4)(const float*, float*, unsigned) = exercise::chunk_sums<128, 4>;\n"
     "// Where the student's slot() puts each element, read on the emulator like the kernel (the hints use it).\n"
     "extern \"C\" __global__ void grader_slots_8(unsigned count, unsigned* slots) "
     "{ for (unsigned e = threadIdx.x; e < count; e += blockDim.x) slots[e] = exercise::slot<8>(e); }\n"
     "extern \"C\" __global__ void grader_slots_4(unsigned count, unsigned* slots) "
     "{ for (unsigned e = threadIdx.x; e < count; e += blockDim.x) slots[e] = exercise::slot<4>(e); }\n",
     catalog_detail::kE10, 10},
    {"E11", "E11_luminance_four_fetches", "the first pass of a mean luminance over an RGBA8 image, four pixels a thread",
     "the AMD blog's four-value fetch with 8x8 groups; reduction v3 -> v4, on a 2D image",
     "constexpr unsigned exercise::kGroupX, kGroupY, kTileX, kTileY; __global__ void "
     "exercise::luminance_partials(const uchar4* image, float* partials, unsigned width, unsigned height)",
     "void (*grader_calls_luminance_partials)(const uchar4*, float*, unsigned, unsigned) = "
     "exercise::luminance_partials;\n"
     "// The launch shape comes from the student's constants, read on the emulator like the kernel.\n"
     "extern \"C\" __global__ void grader_luminance_shape(unsigned* shape) { shape[0] = exercise::kGroupX; "
     "shape[1] = exercise::kGroupY; shape[2] = exercise::kTileX; shape[3] = exercise::kTileY; }\n",
     catalog_detail::kE11, 10},
    {"E12", "E12_two_pass_sum", "a whole program's host code: allocate, copy, launch two given kernels, check, free",
     "the host code of the labs' multi-pass sum, around reduction v3's tree",
     "the program takes n and a seed (program N SEED), makes in[i] = input_value(i, seed) and prints \"sum S\"",
     "", catalog_detail::kE12, 20, "program.cu"},
    {"E13", "E13_bottleneck_variants", "a kernel's memory-only and compute-only variants, kept from the compiler",
     "method v1 -> v2 and v3, Filipovič's search for the bottleneck",
     "__global__ void exercise::blend_memory_only(const float* x, const float* y, float* out, unsigned n); "
     "__global__ void exercise::blend_compute_only(const float* x, const float* y, float* out, unsigned n, float never)",
     "void (*grader_calls_blend_memory_only)(const float*, const float*, float*, unsigned) = exercise::blend_memory_only;\n"
     "void (*grader_calls_blend_compute_only)(const float*, const float*, float*, unsigned, float) = "
     "exercise::blend_compute_only;\n",
     catalog_detail::kE13, 10},
};

constexpr const ExerciseSpec* find_exercise(std::string_view id)
{
    for (const ExerciseSpec& e : kExercises)
        if (e.id == id) return &e;
    return nullptr;
}

constexpr unsigned max_points(const ExerciseSpec& e)
{
    unsigned total = 0;
    for (const CheckSpec& c : e.checks) total += c.points;
    return total;
}

}  // namespace wl::grade
