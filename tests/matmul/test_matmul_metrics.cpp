// The per-step metrics each matmul version exists to teach, measured on the
// emulator's trace of block 0 at the lab's trace defaults, and which elements
// of C each thread owns, read from the global stores of C. Every expected
// number is derived by hand in the comment beside it.
//
// Shapes (the versions' trace defaults): v1-v4 64×64×64, v5-v7 128×128×64,
// v8 64×64×64 (one block of the tiles its rule picks for a product that small).
// Kernel arguments: A is array 0, B array 1, C array 2. Inputs are seeded.
// All buffers come from the emulator's allocator, 256-byte aligned, so a
// byte offset in the trace is the offset from the matrix's first element.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "emulator/helpers.h"
#include "labs/matmul/run.h"
#include "warplab/trace/analysis.h"

namespace warplab::test {
namespace {

using wl::trace::Kind;
using wl::trace::Space;
using wl::trace::StepMetrics;
using wl::trace::WarpEvent;

constexpr std::uint8_t kA = 0, kB = 1, kC = 2;

TracedRun trace_of(const std::string& version, Schedule schedule = Schedule::Independent,
                   std::vector<std::size_t> shape = {})
{
    const Lab* lab = find_lab("matmul");
    if (!lab) throw std::logic_error("the registry has no matmul lab");
    RunRequest req = emulator_request(version, 0, 0, "float", schedule);
    req.shape = std::move(shape);
    TracedRun run = trace_version(*lab, req);
    EXPECT_TRUE(run.result.ok) << version << ": " << run.result.check;
    return run;
}

// Sectors per request and requests of the global events on one array.
struct ArrayTraffic {
    std::uint32_t requests = 0, sectors = 0, ideal = 0, lane_accesses = 0;
    std::set<std::uint64_t> offsets;  // distinct byte offsets read or written
};
ArrayTraffic traffic(const TracedRun& run, Kind kind, std::uint8_t array)
{
    ArrayTraffic t;
    for (const WarpEvent& e : run.block.events) {
        if (e.space != Space::Global || e.kind != kind || e.array != array) continue;
        const auto cost = wl::trace::global_sector_cost(e.mask, e.offset, e.size);
        t.requests += 1;
        t.sectors += cost.sectors;
        t.ideal += cost.ideal;
        for (unsigned lane = 0; lane < 32; ++lane)
            if ((e.mask >> lane) & 1u) {
                t.lane_accesses += 1;
                t.offsets.insert(e.offset[lane]);
            }
    }
    return t;
}

// The C elements each thread of block 0 stores: element index (row·N + col) -> thread.
std::map<std::uint64_t, std::uint32_t> owners(const TracedRun& run)
{
    std::map<std::uint64_t, std::uint32_t> out;
    for (const WarpEvent& e : run.block.events) {
        if (e.space != Space::Global || e.kind != Kind::Store || e.array != kC) continue;
        for (unsigned lane = 0; lane < 32; ++lane)
            if ((e.mask >> lane) & 1u)
                for (unsigned b = 0; b < e.size; b += 4) {
                    const bool fresh = out.emplace((e.offset[lane] + b) / 4, e.warp * 32 + lane).second;
                    EXPECT_TRUE(fresh) << "element " << (e.offset[lane] + b) / 4 << " stored twice";
                }
    }
    return out;
}

class MatmulMetrics : public ::testing::TestWithParam<Schedule> {};

// The coalescing lesson, 64×64×64, block 0 = 32×32 threads = 32 warps, K = 64.
//   v1: lane x of a warp has row = x (threadIdx.x) and col = the warp's
//   threadIdx.y. A[row][k] for 32 rows lies 64·4 = 256 bytes apart: 32
//   distinct sectors per request; the ideal for 32 distinct floats is
//   128 bytes = 4 sectors. B[k][col] is one float for the whole warp: 1 sector
//   (ideal 1, a broadcast). Requests: 32 warps × 64 k = 2048 per matrix. The
//   store of C[row][col] is strided like A: 32 sectors per request.
//   v2: the lane picks the column. A[row][k] is one float for the warp: 1
//   sector, broadcast; B[k][col..col+31] is 128 contiguous, 128-aligned bytes:
//   4 sectors; C likewise 4.
TEST_P(MatmulMetrics, V1AgainstV2IsTheCoalescingLesson)
{
    const TracedRun v1 = trace_of("v1", GetParam()), v2 = trace_of("v2", GetParam());
    ASSERT_EQ(v1.steps.size(), 1u) << "no barrier: one step";
    const ArrayTraffic v1a = traffic(v1, Kind::Load, kA), v1b = traffic(v1, Kind::Load, kB), v1c = traffic(v1, Kind::Store, kC);
    const ArrayTraffic v2a = traffic(v2, Kind::Load, kA), v2b = traffic(v2, Kind::Load, kB), v2c = traffic(v2, Kind::Store, kC);
    EXPECT_EQ(v1a.requests, 2048u);
    EXPECT_EQ(v1a.sectors, 32u * 2048);
    EXPECT_EQ(v1a.ideal, 4u * 2048);
    EXPECT_EQ(v1b.requests, 2048u);
    EXPECT_EQ(v1b.sectors, 1u * 2048);
    EXPECT_EQ(v1c.sectors, 32u * 32);
    EXPECT_EQ(v2a.requests, 2048u);
    EXPECT_EQ(v2a.sectors, 1u * 2048);
    EXPECT_EQ(v2b.requests, 2048u);
    EXPECT_EQ(v2b.sectors, 4u * 2048);
    EXPECT_EQ(v2b.sectors, v2b.ideal);
    EXPECT_EQ(v2c.sectors, 4u * 32);
}

// Tiling: v3 reads each element of A and B that block 0 needs exactly once.
//   Block 0 (32×32 threads) computes rows 0-31, columns 0-31 of C with K = 64:
//   it needs A[0..31][0..63] (2048 floats) and B[0..63][0..31] (2048 floats).
//   v3 loads them in 2 tiles × 1024 threads × 1 element = 2048 lane loads per
//   matrix, all distinct. v2's block 0 loads K = 64 elements of A and 64 of B
//   per thread: 65536 lane loads per matrix, each element 32 times (once per
//   thread of its row, or of its column): TILE = 32 times more.
//   Steps: load tile 0, compute tile 0, load tile 1, compute tile 1, store C.
TEST_P(MatmulMetrics, V3ReadsEachElementOncePerTile)
{
    const TracedRun v2 = trace_of("v2", GetParam()), v3 = trace_of("v3", GetParam());
    for (std::uint8_t array : {kA, kB}) {
        SCOPED_TRACE(array == kA ? "A" : "B");
        const ArrayTraffic t3 = traffic(v3, Kind::Load, array), t2 = traffic(v2, Kind::Load, array);
        EXPECT_EQ(t3.lane_accesses, 2048u);
        EXPECT_EQ(t3.offsets.size(), 2048u) << "every element once";
        EXPECT_EQ(t2.lane_accesses, 65536u);
        EXPECT_EQ(t2.offsets.size(), 2048u);
        EXPECT_EQ(t2.lane_accesses / t3.lane_accesses, 32u);
    }
    ASSERT_EQ(v3.steps.size(), 5u);
    for (unsigned s : {0u, 2u}) {  // load steps: global loads and shared stores only
        EXPECT_EQ(v3.steps.at(s).global_load.requests, 64u) << "32 warps × (A + B)";
        EXPECT_EQ(v3.steps.at(s).shared_store.requests, 64u);
        EXPECT_EQ(v3.steps.at(s).shared_load.requests, 0u);
    }
    // Compute steps, as the machine code has them (kernels/ptx/matmul.sass): ptxas reads
    // As[ty][k..k+3] with one LDS.128 (8 per tile), all lanes of a warp at one address
    // (lanes agree in pairs: a half-warp a phase, 1 wavefront each) -> 2; Bs[k][tx] stays
    // 32 LDS.32 of 1 wavefront. Per step:
    // 32 warps × (8 + 32) = 1280 instructions, 32 × (8·2 + 32) = 1536 wavefronts, the
    // ideal. (Per PTX instruction it would be 2048 and 2048; Nsight Compute counts
    // 10240 and 12288 for the 8 tiles of a 256³ block: 8 × 1280, 8 × 1536.)
    for (unsigned s : {1u, 3u}) {
        EXPECT_EQ(v3.steps.at(s).global_load.requests, 0u);
        EXPECT_EQ(v3.steps.at(s).shared_load.requests, 1280u);
        EXPECT_EQ(v3.steps.at(s).shared_load.wavefronts, 1536u);
        EXPECT_EQ(v3.steps.at(s).shared_load.ideal, 1536u);
    }
    EXPECT_EQ(v3.steps.at(4).global_store.requests, 32u);
}

// Bank conflicts, 128×128×64, block of 256 threads (8 warps), BK = 8: 8 tiles.
// v5 (scalar): a warp is threads tx = 0..15 of two rows ty. Per step k it reads
//   8 As[ty*8+i][k] (the two ty are 64 words apart: one bank, 2 wavefronts) and
//   Bs[k][tx*8 .. tx*8+7], which ptxas reads as 2 LDS.128 (no lanes agree; a
//   quarter-warp reads 8 float4 32 bytes apart: tx and tx+4 share banks -> 2
//   per quarter, 8, ideal 4). Per compute step: 8 warps × 8 k × (8·2 + 2·8) = 2048 wavefronts,
//   ideal 8·8·(8 + 8) = 1024, 8·8·10 = 640 instructions. (Nsight Compute, per
//   256³ block of 32 tiles: 65536 wavefronts = 32 × 2048, 20480 = 32 × 640.)
// v6 (float4, As transposed): per compute step each warp reads, per k, 2
//   float4 of As (a half-warp shares ty: lanes agree in pairs, 1 wavefront per
//   half, 2 per instruction = ideal) and 2 float4 of Bs (as v5's: 8 wavefronts, ideal 4):
//   8 × 8 × (2+2+8+8) = 1280, ideal 8 × 8 × 12 = 768 (Nsight Compute: 40960 =
//   32 × 1280 per 256³ block). Per load step each warp stores 4 scalars into As (lanes
//   2i and 2i+1 hit bank i at two words: 2 wavefronts, ideal 1) and 1 float4
//   into Bs (4, ideal 4): 8 × (4·2 + 4) = 96, ideal 64.
// v7 (As padded, Bs swizzled): the same instructions at the ideal: 768 and 64
//   (the swizzle puts a quarter-warp's 8 float4 of Bs in 8 different groups
//   of banks: 1 per quarter, 4 = ideal).
// The counts are of the machine's instructions (kernels/ptx/matmul.sass): v5's
// 16 `ld.shared.f32` per k become 8 LDS + 2 LDS.128 (ptxas merges the Bs row),
// v6's and v7's are `ld.shared.v4.f32` already (TM/4 + TN/4 = 4 per k), and
// their Bs stores one `st.shared.v4.f32` per float4.
TEST_P(MatmulMetrics, V7HasNoBankConflictsWhereV6HasThem)
{
    const TracedRun v5 = trace_of("v5", GetParam()), v6 = trace_of("v6", GetParam()), v7 = trace_of("v7", GetParam());
    for (const TracedRun* run : {&v5, &v6, &v7}) ASSERT_EQ(run->steps.size(), 17u) << "8 tiles × 2 steps + the store of C";
    for (unsigned tile = 0; tile < 8; ++tile) {
        SCOPED_TRACE("tile " + std::to_string(tile));
        const StepMetrics &load5 = v5.steps.at(2 * tile), &comp5 = v5.steps.at(2 * tile + 1);
        const StepMetrics &load6 = v6.steps.at(2 * tile), &comp6 = v6.steps.at(2 * tile + 1);
        const StepMetrics &load7 = v7.steps.at(2 * tile), &comp7 = v7.steps.at(2 * tile + 1);
        EXPECT_EQ(comp5.shared_load.requests, 640u);
        EXPECT_EQ(comp5.shared_load.wavefronts, 2048u);
        EXPECT_EQ(comp5.shared_load.ideal, 1024u);
        EXPECT_EQ(comp5.shared_load.worst_ways, 2.0);
        EXPECT_EQ(load5.shared_store.wavefronts, load5.shared_store.ideal);

        EXPECT_EQ(comp6.shared_load.requests, 8u * 8 * 4);
        EXPECT_EQ(comp6.shared_load.wavefronts, 1280u);
        EXPECT_EQ(comp6.shared_load.ideal, 768u);
        EXPECT_EQ(comp6.shared_load.worst_ways, 2.0);
        EXPECT_EQ(load6.shared_store.wavefronts, 96u);
        EXPECT_EQ(load6.shared_store.ideal, 64u);
        EXPECT_EQ(load6.shared_store.worst_ways, 2.0);

        EXPECT_EQ(comp7.shared_load.requests, 8u * 8 * 4);
        EXPECT_EQ(comp7.shared_load.wavefronts, 768u);
        EXPECT_EQ(comp7.shared_load.ideal, 768u);
        EXPECT_EQ(load7.shared_store.wavefronts, 64u);
        EXPECT_EQ(load7.shared_store.ideal, 64u);
    }
    EXPECT_EQ(v7.totals.shared_load.wavefronts, v7.totals.shared_load.ideal);
    EXPECT_EQ(v7.totals.shared_store.wavefronts, v7.totals.shared_store.ideal);
    // The 128-bit accesses are in the trace as such: 16-byte shared events.
    for (const TracedRun* run : {&v6, &v7}) {
        unsigned wide = 0;
        for (const WarpEvent& e : run->block.events) wide += e.space == Space::Shared && e.size == 16;
        EXPECT_EQ(wide, 8u * 8 * (1 + 8 * 4)) << "per warp and tile: 1 Bs store + 8 k × 4 reads";
    }
    // v5's merged Bs reads are 16-byte events too: 8 warps × 8 tiles × 8 k × 2.
    unsigned wide5 = 0;
    for (const WarpEvent& e : v5.block.events) wide5 += e.space == Space::Shared && e.size == 16;
    EXPECT_EQ(wide5, 8u * 8 * 8 * 2);
}

// v8 at its trace default (64×64×64: the rule picks its 64×64 tiles, BK = 32,
// 2 tiles, 4 warps of 32): step 0 loads tile 0; step 1 computes tile 0 and
// loads tile 1 (double buffering: global loads and shared reads in one barrier
// interval); step 2 computes the last tile; step 3 stores C. Every global
// access is at its ideal sector count and every shared read conflict-free (a
// quarter-warp reads two consecutive float4 of As, broadcast, and four of Bs).
// The transposed stores into As are 4-way: thread t = 32w + lane stores row
// r = 4w + 16l + lane/8 at k row 4·(lane mod 8) + j; with 68-word rows, k
// rows 4 apart start 272 = 16 (mod 32) words apart, so the 32 lanes fall in
// banks {0, 16} + {0, 1, 2, 3} (plus a constant): 8 banks, 4 words each. Per
// load phase: 4 warps × (16 scalar As stores × 4 wavefronts + 4 float4 Bs
// stores × 4) = 320 wavefronts, ideal 4 × (16 + 16) = 128. (With BK = 16 and
// 132-word rows, the 128-row tiles' stores are 2-way: lane mod 4 picks the k
// row, lane / 4 the row, 16 banks of 2 words.)
TEST_P(MatmulMetrics, V8OverlapsLoadsWithCompute)
{
    const TracedRun v8 = trace_of("v8", GetParam());
    ASSERT_EQ(v8.steps.size(), 4u);
    EXPECT_GT(v8.steps.at(0).global_load.requests, 0u);
    EXPECT_EQ(v8.steps.at(0).shared_load.requests, 0u);
    EXPECT_GT(v8.steps.at(1).global_load.requests, 0u) << "step 1 loads the next tile";
    EXPECT_GT(v8.steps.at(1).shared_load.requests, 0u) << "step 1 computes this one";
    for (unsigned s = 0; s <= 1; ++s) {
        EXPECT_EQ(v8.steps.at(s).shared_store.wavefronts, 320u) << "step " << s;
        EXPECT_EQ(v8.steps.at(s).shared_store.ideal, 128u) << "step " << s;
    }
    EXPECT_EQ(v8.steps.at(2).global_load.requests, 0u);
    EXPECT_EQ(v8.steps.at(2).shared_store.requests, 0u);
    EXPECT_GT(v8.steps.at(3).global_store.requests, 0u);
    EXPECT_EQ(v8.totals.shared_load.wavefronts, v8.totals.shared_load.ideal);
    EXPECT_EQ(v8.totals.global_load.sectors, v8.totals.global_load.ideal);
    EXPECT_EQ(v8.totals.global_store.sectors, v8.totals.global_store.ideal);
}

// Which elements of C each thread owns, from the stores of C in the trace.
//   v1: thread (x, y) = x + 32y owns C[x][y]; v2: C[y][x] (64×64, block 0:
//   rows and columns 0-31). v5: thread (tx, ty) = tx + 16·ty owns the 8×8
//   block at rows 8·ty.., columns 8·tx.. . v8 at its trace default (64×64
//   tiles, warps of 32×32, lanes 8 down × 4 across, each lane 4×8 in 4×4
//   pieces): thread 32·w + lane, with lr = lane / 4, lc = lane % 4,
//   wm = 32·(w / 2), wn = 32·(w % 2), owns rows wm + 4·lr + i (i < 4) and
//   columns wn + 16·j + 4·lc + c (j < 2, c < 4). In every case each element
//   of the block's tile exactly once.
TEST_P(MatmulMetrics, EachThreadOwnsTheElementsOfCItStores)
{
    {
        const auto own1 = owners(trace_of("v1", GetParam())), own2 = owners(trace_of("v2", GetParam()));
        ASSERT_EQ(own1.size(), 32u * 32);
        ASSERT_EQ(own2.size(), 32u * 32);
        for (std::uint32_t y = 0; y < 32; ++y)
            for (std::uint32_t x = 0; x < 32; ++x) {
                EXPECT_EQ(own1.at(x * 64 + y), x + 32 * y);
                EXPECT_EQ(own2.at(y * 64 + x), x + 32 * y);
            }
    }
    {
        const auto own5 = owners(trace_of("v5", GetParam()));
        ASSERT_EQ(own5.size(), 128u * 128);
        for (std::uint32_t row = 0; row < 128; ++row)
            for (std::uint32_t col = 0; col < 128; ++col) EXPECT_EQ(own5.at(row * 128 + col), col / 8 + 16 * (row / 8));
    }
    {
        const auto own8 = owners(trace_of("v8", GetParam()));
        ASSERT_EQ(own8.size(), 64u * 64);
        for (std::uint32_t w = 0; w < 4; ++w)
            for (std::uint32_t lane = 0; lane < 32; ++lane) {
                const std::uint32_t lr = lane / 4, lc = lane % 4, wm = 32 * (w / 2), wn = 32 * (w % 2);
                for (std::uint32_t i = 0; i < 4; ++i)
                    for (std::uint32_t j = 0; j < 2; ++j)
                        for (std::uint32_t c = 0; c < 4; ++c) {
                            const std::uint32_t row = wm + 4 * lr + i, col = wn + 16 * j + 4 * lc + c;
                            EXPECT_EQ(own8.at(row * 64 + col), 32 * w + lane);
                        }
            }
    }
}

// A partial block: 67×45×33 with v6 (float4 versions fall back to scalar
// accesses when K or N is not a multiple of 4). Block 0 covers rows 0-66 and
// columns 0-44 of its 128×128 tile: 67·45 = 3015 elements stored, all by
// scalar 4-byte stores, and warps whose lanes fall outside C are partial.
TEST_P(MatmulMetrics, PartialTilesStoreOnlyInsideC)
{
    const TracedRun v6 = trace_of("v6", GetParam(), {67, 45, 33});
    const auto own = owners(v6);
    EXPECT_EQ(own.size(), 67u * 45);
    for (const auto& [element, thread] : own) EXPECT_LT(element, 67u * 45);
    for (const WarpEvent& e : v6.block.events)
        if (e.space == Space::Global) EXPECT_EQ(e.size, 4) << "K = 33 and N = 45: no 16-byte global access";
    EXPECT_GT(v6.totals.partial_warp_steps, 0u);
}

INSTANTIATE_TEST_SUITE_P(Matmul, MatmulMetrics, ::testing::ValuesIn(kSchedules), ScheduleParamName{});

}  // namespace
}  // namespace warplab::test
