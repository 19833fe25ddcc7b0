// A cooperative groups tile's collective whose result is never used, after a block
// barrier and before control flow, then collectives of the whole warp: the shape of
// kernels 9903 and 4739 of seed 1, whose GPU words changed when narrow.py stored
// their slots after each statement (results/differential/README.md says how they
// were read and what eight more kernels share).
//
// PTX (Parallel Synchronization and Communication Instructions: vote.sync,
// shfl.sync, redux.sync, match.sync) makes each .sync collective wait for every
// non-exited thread of its membermask, so the warp's collectives below see all 32
// lanes whatever the tile did before. ptxas of CUDA 13.0 for sm_90 compiles a tile
// collective whose result is unused to its WARPSYNC.EXCLUSIVE alone, with the
// tile's mask (0xffff << (lane & 16) for 16 lanes), and drops the convergence
// barrier (BSSY/BSYNC) it puts around the same collective when the result is used;
// after a barrier and a branch it then compiles the full-mask collectives without
// a WARPSYNC of their own, as if the warp were converged. On an H100 the three
// unused cases before warp collectives give the words of 16-lane collectives in
// all 32 lanes (ballot 0x0000ffff, reduce_add 16); the other four are as PTX says.
//
// Each case is one warp: [__syncthreads_or or __syncthreads], a tile collective
// (cg::reduce of 16 lanes or tile.ballot), its result used or not, then a branch
// (log of a double, as kernel 9903) or a loop whose trip count differs by lane (as
// kernel 4739), then the warp's collectives. PTX's words in lane L:
//   __ballot_sync(FULL, L < 18)      = 0x0003ffff
//   __shfl_down_sync(FULL, L, 30)    = L + 30 for L < 2, else L (a source past lane 31 gives the lane's own)
//   __reduce_add_sync(FULL, 1)       = 32
//   __match_any_sync(FULL, 7)        = 0xffffffff
// Two more cases put a block barrier after the unused reduction and exchange words
// across the half-warps through shared memory (below). The program prints each
// case's verdict and its first differing lanes, and exits 1 if any word differs
// from PTX's; under `warplab run` every case is as PTX says.
//
//     nvcc -arch=sm_90 -o dead_tile_collective dead_tile_collective.cu && ./dead_tile_collective
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cmath>
#include <cstdio>

namespace cg = cooperative_groups;

// Built with -DPROBE_CHECK_FLIP=1u the check expects the first word of each case
// (the ballot; the byte) with its low bit flipped, and every case must then
// differ: a test of the check itself.
#ifndef PROBE_CHECK_FLIP
#define PROBE_CHECK_FLIP 0u
#endif

enum class Barrier { syncthreads_or, syncthreads };
enum class TileOp { reduce, ballot };
enum class Branch { log_of_double, lane_loop };

constexpr unsigned kFull = 0xffffffffu;
constexpr unsigned kWarp = 32u;
constexpr int kWords = 6;  // the warp collectives' four words, the tile's result, a word of the branch

template <Barrier B, TileOp Op, bool Used, Branch G>
__global__ void tile_then_warp(const unsigned* in, unsigned* out, double* logs)
{
    const unsigned lane = threadIdx.x % kWarp;
    unsigned v = in[threadIdx.x];
    double d = __hiloint2double(int(v & 0xbfffffffu), int(in[threadIdx.x + kWarp]));
    unsigned* o = out + threadIdx.x * kWords;
    unsigned voted = 0u;
    if (B == Barrier::syncthreads_or)
        voted = unsigned(__syncthreads_or(lane < 3u));
    else
        __syncthreads();
    const cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
    unsigned tiled = Op == TileOp::reduce ? cg::reduce(tile, v, cg::plus<unsigned>()) : tile.ballot((v & 1u) != 0u);
    if (!Used)
        tiled = voted;  // the tile's result is overwritten unread
    if (G == Branch::log_of_double)
        d = log(fabs(d));
    else
        for (unsigned steps = 0u; v > 1u && steps < lane % 7u; ++steps)  // Collatz steps
            v = (v & 1u) ? 3u * v + 1u : v / 2u;
    o[0] = __ballot_sync(kFull, lane < 18u);
    o[1] = __shfl_down_sync(kFull, lane, 30u);
    o[2] = __reduce_add_sync(kFull, 1u);
    o[3] = __match_any_sync(kFull, 7u);
    o[4] = tiled;
    o[5] = v;
    logs[threadIdx.x] = d;
}

// The same unused reduction, then an exchange through shared memory across the
// two halves of the warp: PTX's bar.sync waits for every non-exited thread of the
// warp (Parallel Synchronization and Communication Instructions: bar, barrier), so
// lane L reads what lane L ^ 16 stored before the barrier, (L ^ 16) * 7 + salt, and
// never the sentinel stored before the tile. (Kernel 3104's invalid shared address
// came from lanes 16 to 31 running behind lanes 0 to 15 past such a barrier.)
constexpr unsigned kSentinel = 0xdeadbeefu;

template <bool Used>
__global__ void tile_then_exchange(const unsigned* in, unsigned* out, double* logs, unsigned salt)
{
    __shared__ unsigned staged[kWarp];
    const unsigned lane = threadIdx.x % kWarp;
    const unsigned v = in[threadIdx.x];
    double d = __hiloint2double(int(v & 0xbfffffffu), int(in[threadIdx.x + kWarp]));
    staged[lane] = kSentinel;
    unsigned tiled = unsigned(__syncthreads_or(lane < 3u));
    const cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
    const unsigned sum = cg::reduce(tile, v, cg::plus<unsigned>());
    if (Used)
        tiled = sum;
    d = log(fabs(d));
    staged[lane] = lane * 7u + salt;
    __syncthreads();
    out[threadIdx.x * 2] = staged[lane ^ 16u];
    out[threadIdx.x * 2 + 1] = tiled;
    logs[threadIdx.x] = d;
}

static int differing_cases = 0;

// The case's words, or false (the case counted as differing) where its kernel failed.
static bool fetched(const char* name, unsigned* h, const unsigned* dout, size_t bytes)
{
    if (cudaMemcpy(h, dout, bytes, cudaMemcpyDeviceToHost) == cudaSuccess)
        return true;
    std::printf("%s: the kernel failed: %s\n", name, cudaGetErrorString(cudaGetLastError()));
    ++differing_cases;
    return false;
}

static void verdict(const char* name, int lanes)
{
    std::printf("%s: %s", name, lanes ? "DIFFERS from PTX" : "as PTX says");
    std::printf(lanes ? " in %d lanes\n" : "\n", lanes);
    differing_cases += lanes != 0;
}

template <Barrier B, TileOp Op, bool Used, Branch G>
void run_case(const unsigned* din, unsigned* dout, double* dlogs)
{
    char name[160];
    std::snprintf(name, sizeof name, "%s, tile<16> %s with its result %s, then %s",
                  B == Barrier::syncthreads_or ? "__syncthreads_or" : "__syncthreads",
                  Op == TileOp::reduce ? "reduce" : "ballot", Used ? "used" : "unused",
                  G == Branch::log_of_double ? "log of a double" : "a loop of lane % 7 steps");
    tile_then_warp<B, Op, Used, G><<<1, kWarp>>>(din, dout, dlogs);
    unsigned h[kWarp * kWords];
    if (!fetched(name, h, dout, sizeof h))
        return;
    int lanes = 0;
    for (unsigned lane = 0; lane < kWarp; ++lane) {
        const unsigned* w = h + lane * kWords;
        const unsigned want[4] = {0x0003ffffu ^ PROBE_CHECK_FLIP, lane < 2u ? lane + 30u : lane, kWarp, kFull};
        if (w[0] == want[0] && w[1] == want[1] && w[2] == want[2] && w[3] == want[3])
            continue;
        if (lanes++ < 3)
            std::printf("  lane %2u: ballot %08x shfl_down %2u reduce_add %2u match_any %08x (PTX: %08x %2u %2u %08x)\n",
                        lane, w[0], w[1], w[2], w[3], want[0], want[1], want[2], want[3]);
    }
    verdict(name, lanes);
}

template <bool Used>
void run_exchange(const unsigned* din, unsigned* dout, double* dlogs)
{
    char name[160];
    std::snprintf(name, sizeof name, "__syncthreads_or, tile<16> reduce with its result %s, then log of a double "
                  "and a shared exchange across the half-warps", Used ? "used" : "unused");
    const unsigned salt = Used ? 1000u : 2000u;  // each launch's own words: none left from another
    tile_then_exchange<Used><<<1, kWarp>>>(din, dout, dlogs, salt);
    unsigned h[kWarp * 2];
    if (!fetched(name, h, dout, sizeof h))
        return;
    int lanes = 0;
    for (unsigned lane = 0; lane < kWarp; ++lane) {
        const unsigned want = ((lane ^ 16u) * 7u + salt) ^ PROBE_CHECK_FLIP;
        if (h[lane * 2] != want && lanes++ < 3)
            std::printf("  lane %2u: read %08x (PTX: %08x)%s\n", lane, h[lane * 2], want,
                        h[lane * 2] == kSentinel ? ", the word from before the barrier" : "");
    }
    verdict(name, lanes);
}

int main()
{
    unsigned in[2 * kWarp];
    for (unsigned i = 0; i < 2 * kWarp; ++i)
        in[i] = i * 2654435761u % 1000u + 2u;
    unsigned *din, *dout;
    double* dlogs;
    cudaMalloc(&din, sizeof in);
    cudaMalloc(&dout, kWarp * kWords * sizeof(unsigned));
    cudaMalloc(&dlogs, kWarp * sizeof(double));
    cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice);
    // the generated kernel 9903's shape, and the same with the tile's result used
    run_case<Barrier::syncthreads_or, TileOp::reduce, false, Branch::log_of_double>(din, dout, dlogs);
    run_case<Barrier::syncthreads_or, TileOp::reduce, true, Branch::log_of_double>(din, dout, dlogs);
    run_case<Barrier::syncthreads, TileOp::reduce, false, Branch::lane_loop>(din, dout, dlogs);
    // kernel 4739's: an unused tile ballot
    run_case<Barrier::syncthreads, TileOp::ballot, false, Branch::lane_loop>(din, dout, dlogs);
    run_case<Barrier::syncthreads, TileOp::ballot, true, Branch::lane_loop>(din, dout, dlogs);
    // a block barrier after it (kernels 3104 and 4245)
    run_exchange<false>(din, dout, dlogs);
    run_exchange<true>(din, dout, dlogs);
    cudaFree(din);
    cudaFree(dout);
    cudaFree(dlogs);
    std::printf("dead_tile_collective: %d of 7 cases differ from PTX\n", differing_cases);
    return differing_cases ? 1 : 0;
}
