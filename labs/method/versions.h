// The method lab: finding a kernel's bottleneck before removing it (Filipovič,
// "Code Optimizations": searching for bottlenecks) and the instruction
// throughput rules of NVIDIA's "Optimizing CUDA". One entry per kernel, in
// the lecture's order: a compute-heavy kernel and a memory-heavy one, each
// whole, memory-only and compute-only (the compute-heavy one also guarded to
// its occupancy); then the throughput pairs; then fusion and fission; then the
// sum's orders, constant memory and textures. The CLI, viewer, benchmark and
// tests read this list; it does not include the kernels (the host compiler
// reads it without CUDA).
#pragma once
#include <cstddef>
#include <limits>
#include <tuple>

#include "labs/common/kernel_instance.h"
#include "labs/common/version.h"
#if !defined(__CUDACC__)
#include "warplab/dim3.h"
#endif

namespace warplab::method {

// kernels/method/NN_<name>.cuh defines warplab::method::method_<name>.
inline constexpr KernelFiles kKernels{
    .lab = "method",
    .prefix = "method",
    .user_shared = {[](unsigned x, unsigned y, unsigned e) { return x * y * e; }, "threads × sizeof(float), one element a thread"},
};

// How a version's kernel is called, and what its run checks.
enum class Family {
    Bottleneck,  // (in, out, n, never): the bottleneck search's kernels
    Index,       // (in, out, n, d): the integer pair, d a power of two
    Map,         // (in, out, n): math functions and literals, checked in ulp against a double reference
    Stages,      // (in, out, n): fusion and fission, exact against the CPU; some are two launches (TwoLaunches)
    Sum,         // (in, out, n): one sum into out[0], within the error bound of any order of additions
    Lookup,      // (in, out, n): constant-memory lookups, exact against the CPU
    Shift,       // (in, out, n, shift), `in` a pointer or a texture object over it: the shift copy, exact
};

// What a version of the bottleneck search keeps of its kernel's whole version.
enum class Keeps { Everything, Memory, Compute };

// A version's family and the floats it reads an element (SAXPY: x and y).
template <Family F, unsigned Inputs = 1> struct Of {
    static constexpr Family family = F;
    static constexpr unsigned inputs = Inputs;
};
// The bottleneck search's versions: what each keeps of its kernel's whole version.
template <Keeps K, unsigned Inputs> struct Search : Of<Family::Bottleneck, Inputs> {
    static constexpr Keeps keeps = K;
};

// What version V keeps: its own for the search's variants, everything for the others.
template <class V> constexpr Keeps keeps_of()
{
    if constexpr (requires { V::keeps; }) return V::keeps;
    else return Keeps::Everything;
}

struct V1 : Search<Keeps::Everything, 1> {
    static constexpr VersionMeta meta{
        .id = "v1", .name = "compute_full",
        .idea = "the compute-heavy kernel: one float in, 1024 FP32 operations on 32 accumulators, one float out",
        .changed = "the starting point of the bottleneck search",
        .expected = "compute-bound: its compute-only variant (v3) takes about its time, its memory-only ones (v2, v4) far less"};
};
struct V2 : Search<Keeps::Memory, 1> {
    static constexpr VersionMeta meta{
        .id = "v2", .name = "compute_memory_only",
        .idea = "v1's memory alone: the computation commented out, the loaded value stored",
        .changed = "out[i] = in[i]; the accumulators are gone, and with them most registers",
        .expected = "v1's bytes in a fraction of its time, at a higher occupancy than v1's",
        .variant = true, .builds_on = "v1"};
};
struct V3 : Search<Keeps::Compute, 1> {
    static constexpr VersionMeta meta{
        .id = "v3", .name = "compute_compute_only",
        .idea = "v1's computation alone: no load, the result stored under a condition false at run time",
        .changed = "x from the index instead of in[i]; out[i] written only if the result equals `never` (-1)",
        .expected = "about v1's time: the arithmetic is what v1 waits for",
        .variant = true, .builds_on = "v1"};
};
// The guard: 34 KiB of dynamic shared memory a block of 256 threads (plus the
// 1 KiB the hardware reserves) lets 6 blocks share an H100 SM's 228 KiB, not
// 7; v1's 38 registers a thread allow 6 blocks too, v2's allow 8.
struct V4 : Search<Keeps::Memory, 1> {
    static constexpr VersionMeta meta{
        .id = "v4", .name = "compute_guarded",
        .idea = "v2 at v1's occupancy: a dummy shared array limits the blocks per SM",
        .changed = "v2's code, launched with 34 KiB of dynamic shared memory a block that it never touches",
        .expected = "v1's blocks per SM and v2's traffic: the memory time to set beside v1's",
        .variant = true, .dynamic_shared_bytes = 34 * 1024, .builds_on = "v2"};
};
struct V5 : Search<Keeps::Everything, 2> {
    static constexpr VersionMeta meta{
        .id = "v5", .name = "saxpy_full",
        .idea = "the memory-heavy kernel, SAXPY: out[i] = 2.5 x[i] + y[i], two floats in and one out for one FMA",
        .changed = "the second kernel of the bottleneck search",
        .expected = "memory-bound: its memory-only variant (v6) takes about its time, its compute-only one (v7) far less"};
};
struct V6 : Search<Keeps::Memory, 2> {
    static constexpr VersionMeta meta{
        .id = "v6", .name = "saxpy_memory_only",
        .idea = "v5's memory alone: both loads kept, their bits joined by one XOR and stored",
        .changed = "the FMA replaced by an integer XOR of the two loaded words",
        .expected = "about v5's time, at v5's occupancy",
        .variant = true, .builds_on = "v5"};
};
struct V7 : Search<Keeps::Compute, 2> {
    static constexpr VersionMeta meta{
        .id = "v7", .name = "saxpy_compute_only",
        .idea = "v5's computation alone: x and y from the index, the result stored under a condition false at run time",
        .changed = "no load; out[i] written only if 2.5 i + (n - i) equals `never` (-1)",
        .expected = "a small part of v5's time, much of it the launch",
        .variant = true, .builds_on = "v5"};
};
struct V8 : Of<Family::Index> {
    static constexpr VersionMeta meta{
        .id = "v8", .name = "divide_modulo",
        .idea = "16 steps of h = (h % d)·3 + h / d + k with d a run-time power of two (64)",
        .changed = "the first throughput pair: integer division the compiler cannot turn into shifts",
        .expected = "two division sequences a step: integer-bound"};
};
struct V9 : Of<Family::Index> {
    static constexpr VersionMeta meta{
        .id = "v9", .name = "mask_shift",
        .idea = "v8 with h & (d - 1) and h >> log2 d",
        .changed = "% and / by the power of two written as & and >>",
        .expected = "v8's results in a few instructions a step"};
};
// Math functions: out[i] = f(in[i]), in[i] in [1, 2), against f in double;
// max_ulp bounds the error the run accepts (see each kernel's header; the
// literal pair's bounds are derived in tests/method/test_method.cpp).
struct V10 : Of<Family::Map> {
    static constexpr VersionMeta meta{
        .id = "v10", .name = "sin_exp",
        .idea = "sinf(x) · expf(x), the accurate library functions",
        .changed = "the math-function pair: library calls",
        .expected = "within a few ulp; a sequence of FMAs for each function"};
    static constexpr double max_ulp = 5;  // 2 ulp each, and the product's rounding
};
struct V11 : Of<Family::Map> {
    static constexpr VersionMeta meta{
        .id = "v11", .name = "sin_exp_intrinsics",
        .idea = "__sinf(x) · __expf(x), the special-function unit's approximations (what -use_fast_math makes of v10)",
        .changed = "the intrinsics in place of the library calls",
        .expected = "fewer instructions, errors of some ulp to a few dozen"};
    static constexpr double max_ulp = 64;
};
struct V12 : Of<Family::Map> {
    static constexpr VersionMeta meta{
        .id = "v12", .name = "double_literal",
        .idea = "1 + x + x²/2 + x³/6 in float, with one stray double literal 1.0",
        .changed = "the literal pair: 1.0 promotes the rest of the expression to double",
        .expected = "conversions and FP64 instructions; within 1.5 ulp, a little closer than v13"};
    static constexpr double max_ulp = 1.5;
};
struct V13 : Of<Family::Map> {
    static constexpr VersionMeta meta{
        .id = "v13", .name = "float_literal",
        .idea = "v12's polynomial all in float: 1.0f",
        .changed = "1.0 → 1.0f",
        .expected = "three FP32 FMAs; within 2 ulp"};
    static constexpr double max_ulp = 2;
};

// The second kernel of a version of two launches (TwoLaunches below): its
// file is its version's, and it is no step of the ladder.
constexpr VersionMeta second_launch(const char* id, const char* name, const char* idea)
{
    return {.id = id, .name = name, .idea = idea, .changed = "", .expected = ""};
}

// Fusion: a pair of kernels with an intermediate array between them, and the
// one kernel that keeps it in a register. The traffic an element is derived
// in tests/method/test_method.cpp.
struct V14 : Of<Family::Stages, 2> {
    static constexpr VersionMeta meta{
        .id = "v14", .name = "unfused",
        .idea = "(x - y)² in two launches: d = x - y stored, then read back and squared in place",
        .changed = "the fusion pair: an intermediate array through global memory between two kernels",
        .expected = "memory-bound at 20 bytes an element (x, y, d read; d, d² written); the trace records the first launch only"};
    // The second launch, on the same arguments (kernels/method/14_unfused.cuh).
    struct Second {
        static constexpr VersionMeta meta = second_launch("v14", "unfused_square", "v14's second launch: d² from the d the first stored");
    };
};
struct V15 : Of<Family::Stages, 2> {
    static constexpr VersionMeta meta{
        .id = "v15", .name = "fused",
        .idea = "v14 in one kernel: d = x - y stays in a register",
        .changed = "the two kernels fused: d is no longer stored and loaded back",
        .expected = "12 bytes an element against v14's 20, one launch: about 3/5 of v14's time; v14's results bit for bit"};
};
// Fission: a kernel whose two chains hold 64 accumulators at once (70
// registers a thread on sm_90), and the same work as two kernels of one chain
// each (38 registers, v1's); the occupancy of each is derived in the tests.
struct V16 : Of<Family::Stages> {
    static constexpr VersionMeta meta{
        .id = "v16", .name = "fat_kernel",
        .idea = "a(x)·b(x): two chains of 32 accumulators advanced together, 64 live at once",
        .changed = "the fission pair: a register-heavy kernel",
        .expected = "about twice v1's registers a thread, so half v1's blocks an SM"};
};
struct V17 : Of<Family::Stages> {
    static constexpr VersionMeta meta{
        .id = "v17", .name = "fission",
        .idea = "v16 split in two: a(x) stored, then b(x) multiplied into it",
        .changed = "one chain a kernel; a(x) through global memory, x read twice",
        .expected = "v1's registers and occupancy for each half, for a second launch and 20 bytes an element against 8"};
    struct Second {
        static constexpr VersionMeta meta = second_launch("v17", "fission_second", "v17's second launch: b(x) times the a(x) the first stored");
    };
};

// Non-associativity: the sum in an order the atomics take; the CPU's order
// and the reduction lab's tree are set beside it in tests/method.
struct V18 : Of<Family::Sum> {
    static constexpr VersionMeta meta{
        .id = "v18", .name = "atomic_sum",
        .idea = "one float sum by atomicAdd: the additions in the order they reach the address",
        .changed = "the non-associativity example: the order of the additions left to the hardware",
        .expected = "within (n - 1)·2^-24·Σ|x| of the exact sum; on a GPU, not always the same sum from run to run"};
};

// Constant memory: one polynomial whose coefficients come from a __constant__
// table (kernels/method/coefficients.cuh), read with a warp-uniform index and
// with a divergent one. The constant cache serves a warp one address at a
// time; the trace counts each lookup's distinct addresses (tests/method).
struct V19 : Of<Family::Lookup> {
    static constexpr VersionMeta meta{
        .id = "v19", .name = "constant_uniform",
        .idea = "a degree-31 polynomial in Horner's form, coefficient k from a __constant__ table at step k: one entry a warp",
        .changed = "the constant-memory pair: a warp-uniform index (the loop counter)",
        .expected = "every lookup 1-way: one constant address a warp instruction"};
};
struct V20 : Of<Family::Lookup> {
    static constexpr VersionMeta meta{
        .id = "v20", .name = "constant_divergent",
        .idea = "v19's lookup with each lane's own index: coefficient (k + lane) mod 32 at step k",
        .changed = "kTable.c[k] → kTable.c[(k + threadIdx.x) % 32]: 32 entries a warp instruction",
        .expected = "every lookup of a full warp 32-way: serialised into 32 constant reads, 32 times v19's"};
};

// Textures: "Optimizing CUDA"'s shift copy, out[i] = in[i + shift], read three
// ways. The texture version's kernel takes a texture object over `in`, made
// by the host (labs/method/run.h, gpu_bench.cu).
struct V21 : Of<Family::Shift> {
    static constexpr VersionMeta meta{
        .id = "v21", .name = "shift_load",
        .idea = "the shift copy out[i] = in[i + 1] with a plain load: every warp's read one float off its alignment",
        .changed = "the texture trio: a plain ld.global",
        .expected = "memory-bound at 8 bytes an element"};
};
struct V22 : Of<Family::Shift> {
    static constexpr VersionMeta meta{
        .id = "v22", .name = "shift_ldg",
        .idea = "v21 read with __ldg: the read-only data cache, no texture object",
        .changed = "in[i + shift] → __ldg(&in[i + shift]) (ld.global.nc)",
        .expected = "v21's results, about its time"};
};
struct V23 : Of<Family::Shift> {
    static constexpr VersionMeta meta{
        .id = "v23", .name = "shift_texture",
        .idea = "v21 read with tex1Dfetch from a texture object over the same linear memory",
        .changed = "the pointer replaced by a texture object; the load by tex1Dfetch (tex.1d)",
        .expected = "v21's results; about its time on a GPU whose L1 and L2 cache global loads"};
    static constexpr bool texture = true;
};

using Versions = std::tuple<V1, V2, V3, V4, V5, V6, V7, V8, V9, V10, V11, V12, V13, V14, V15, V16, V17, V18, V19, V20, V21, V22, V23>;

// How many floats a version's output holds for n elements, and what they hold
// before its launch: the sum's one float starts at zero; every other output is
// NaN, so that an element left unwritten shows.
template <class V> constexpr std::size_t outputs(std::size_t n) { return V::family == Family::Sum ? 1 : n; }
template <class V> constexpr float output_start() { return V::family == Family::Sum ? 0.0f : std::numeric_limits<float>::quiet_NaN(); }

// A version of two launches: its kernel, then V::Second's on the same
// arguments. A named concept, not an inline requires-expression: nvcc 13
// rejects the latter where the version has no such member.
template <class V>
concept TwoLaunches = requires { typename V::Second; };

// The value the compute-only variants' stores wait for: their results are never negative.
inline constexpr float kNever = -1.0f;
// The index pair's divisor: a power of two the kernels receive at run time.
inline constexpr unsigned kDivisor = 64;
// The shift copy's shift: one float off the alignment of every warp's read.
inline constexpr unsigned kShift = 1;

// Whether version V reads `in` through a texture object (its kernel's first argument).
template <class V> constexpr bool reads_texture()
{
    if constexpr (requires { V::texture; }) return V::texture;
    else return false;
}
// cudaTextureObject_t, for the host compiler: the handle a texture version's kernel takes.
using TextureObject = unsigned long long;

template <class V, class T> using Kernel = KernelInstance<V, TemplateArgs<T>>;

inline unsigned blocks_for(std::size_t n, unsigned block) { return static_cast<unsigned>((n + block - 1) / block); }

// One launch of version V over n elements on any backend: one thread an
// element. `texture`: a texture object over `in`, for the versions that read one.
template <class V, class T, class Backend>
void launch(Backend& be, const T* in, T* out, std::size_t n, unsigned block, TextureObject texture = 0)
{
    const dim3 grid(blocks_for(n, block)), threads(block);
    const unsigned count = static_cast<unsigned>(n);
    if constexpr (V::family == Family::Bottleneck)
        be.launch_with_shared(Kernel<V, T>{}, grid, threads, V::meta.dynamic_shared_bytes, in, out, count, T(kNever));
    else if constexpr (V::family == Family::Index)
        be.launch(Kernel<V, T>{}, grid, threads, in, out, count, kDivisor);
    else if constexpr (V::family == Family::Shift && reads_texture<V>())
        be.launch(Kernel<V, T>{}, grid, threads, texture, out, count, kShift);
    else if constexpr (V::family == Family::Shift)
        be.launch(Kernel<V, T>{}, grid, threads, in, out, count, kShift);
    else
        be.launch(Kernel<V, T>{}, grid, threads, in, out, count);
    if constexpr (TwoLaunches<V>) be.launch(Kernel<typename V::Second, T>{}, grid, threads, in, out, count);
}

}  // namespace warplab::method
