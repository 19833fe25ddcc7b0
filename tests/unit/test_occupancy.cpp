// The occupancy calculator against cases worked by hand from the limits in
// core/src/occupancy/occupancy.cpp, and the ptxas report reader against a
// report written out by hand.
#include <gtest/gtest.h>

#include <stdexcept>

#include "warplab/occupancy.h"

using namespace wl::occupancy;

namespace {

const Arch& arch(const char* id)
{
    const Arch* a = find_arch(id);
    if (!a) throw std::invalid_argument(id);
    return *a;
}

Occupancy run(const char* id, unsigned threads, unsigned regs, unsigned smem)
{
    return occupancy(arch(id), Usage{threads, regs, smem});
}

}  // namespace

// H100, 256 threads, 32 registers, no shared memory.
//   warps per block 256/32 = 8; warp slots: 64/8 = 8 blocks.
//   registers per warp 32·32 = 1024 (a multiple of 256); per sub-partition
//   65536/4 = 16384 → 16 warps, ×4 = 64 warps → 64/8 = 8 blocks.
//   shared: 0 + 1 KB reserved = 1024 → 233472/1024 = 228 blocks; block slots 32.
//   → 8 blocks, 64 warps, 100 %; threads bound it, and registers tie.
TEST(Occupancy, H100FullAt256ThreadsAnd32Registers)
{
    const Occupancy o = run("h100", 256, 32, 0);
    EXPECT_EQ(o.blocks_per_sm, 8u);
    EXPECT_EQ(o.warps_per_sm, 64u);
    EXPECT_DOUBLE_EQ(o.fraction, 1.0);
    EXPECT_EQ(o.by_threads, 8u);
    EXPECT_EQ(o.by_registers, 8u);
    EXPECT_EQ(o.by_shared, 228u);
    EXPECT_EQ(o.by_blocks, 32u);
    EXPECT_TRUE(o.limited_by(Limiter::Threads));
    EXPECT_EQ(o.limiters(), "threads, registers");
    EXPECT_EQ(o.shared_allocated_per_block, 1024u);
    EXPECT_EQ(o.registers_per_block, 8192u);
}

// H100, 256 threads, 64 registers: 2048 registers per warp; 16384/2048 = 8
// warps per sub-partition, 32 per SM → 32/8 = 4 blocks (= 65536/(64·256)),
// 32 of 64 warps: 50 %, bound by registers alone.
TEST(Occupancy, H100RegistersBoundAt64Registers)
{
    const Occupancy o = run("h100", 256, 64, 0);
    EXPECT_EQ(o.blocks_per_sm, 4u);
    EXPECT_EQ(o.warps_per_sm, 32u);
    EXPECT_DOUBLE_EQ(o.fraction, 0.5);
    EXPECT_EQ(o.limiters(), "registers");
}

// H100, 96 threads (3 warps), 37 registers: 37·32 = 1184 rounds up to 1280 per
// warp; 16384/1280 = 12 warps per sub-partition (12.8 rounded down), 48 per SM
// → 48/3 = 16 blocks, 48 warps, 75 %. A calculator that divides 65536 by 37·96
// gets 18 blocks; one without sub-partitions gets 65536/1280 = 51 warps → 17.
TEST(Occupancy, H100RegisterUnitsAndSubPartitions)
{
    const Occupancy o = run("h100", 96, 37, 0);
    EXPECT_EQ(o.by_registers, 16u);
    EXPECT_EQ(o.by_threads, 21u);  // 64/3
    EXPECT_EQ(o.blocks_per_sm, 16u);
    EXPECT_EQ(o.warps_per_sm, 48u);
    EXPECT_DOUBLE_EQ(o.fraction, 0.75);
    EXPECT_EQ(o.limiters(), "registers");
}

// 1024 threads (32 warps), 16 registers, 48 KB of static shared memory.
//   shared per block 49152 + 1024 reserved = 50176 (392·128).
//   H100: warp slots 64/32 = 2; shared 233472/50176 = 4; registers 512 per
//         warp → 32 per sub-partition, 128 → 4 → 2 blocks by threads, 100 %.
//   A100: shared 167936/50176 = 3; warp slots 2 → 2 blocks, 100 %.
//   RTX 4090: warp slots 48/32 = 1; shared 102400/50176 = 2 → 1 block,
//         32 of 48 warps = 2/3.
TEST(Occupancy, ThousandThreadsAnd48KBAcrossArchitectures)
{
    const Occupancy h = run("h100", 1024, 16, 48 * 1024);
    EXPECT_EQ(h.shared_allocated_per_block, 50176u);
    EXPECT_EQ(h.by_shared, 4u);
    EXPECT_EQ(h.by_registers, 4u);
    EXPECT_EQ(h.blocks_per_sm, 2u);
    EXPECT_EQ(h.limiters(), "threads");
    EXPECT_DOUBLE_EQ(h.fraction, 1.0);

    const Occupancy a = run("a100", 1024, 16, 48 * 1024);
    EXPECT_EQ(a.by_shared, 3u);
    EXPECT_EQ(a.blocks_per_sm, 2u);

    const Occupancy r = run("rtx4090", 1024, 16, 48 * 1024);
    EXPECT_EQ(r.by_threads, 1u);
    EXPECT_EQ(r.by_shared, 2u);
    EXPECT_EQ(r.blocks_per_sm, 1u);
    EXPECT_EQ(r.warps_per_sm, 32u);
    EXPECT_DOUBLE_EQ(r.fraction, 32.0 / 48.0);
}

// H100, 128 threads, 16 registers, 40 KB shared: 40960 + 1024 = 41984 (328·128);
// 233472/41984 = 5 blocks (5.56); warp slots 64/4 = 16; registers 32 →
// 5 blocks by shared memory, 20 warps, 31.25 %.
TEST(Occupancy, H100SharedMemoryBound)
{
    const Occupancy o = run("h100", 128, 16, 40 * 1024);
    EXPECT_EQ(o.blocks_per_sm, 5u);
    EXPECT_EQ(o.warps_per_sm, 20u);
    EXPECT_DOUBLE_EQ(o.fraction, 0.3125);
    EXPECT_EQ(o.limiters(), "shared memory");
}

// H100, 32 threads, 16 registers, no shared memory: warp slots 64, registers
// 128, shared 228, block slots 32 → 32 blocks of one warp, 50 %, bound by blocks.
TEST(Occupancy, H100BlockSlotsBoundSmallBlocks)
{
    const Occupancy o = run("h100", 32, 16, 0);
    EXPECT_EQ(o.blocks_per_sm, 32u);
    EXPECT_DOUBLE_EQ(o.fraction, 0.5);
    EXPECT_EQ(o.limiters(), "blocks");
}

// 100 threads are 4 warps (the last one partly filled): 64/4 = 16 blocks.
TEST(Occupancy, PartialWarpsCountWhole)
{
    const Occupancy o = run("h100", 100, 16, 0);
    EXPECT_EQ(o.warps_per_block, 4u);
    EXPECT_EQ(o.blocks_per_sm, 16u);
}

// The G80 example of NVIDIA's occupancy calculator ("Optimizing CUDA"): 192
// threads, 20 registers, 68 bytes of shared memory.
//   warps 6 → warp slots 24/6 = 4 blocks.
//   registers per block: 6 warps (already a pair) · 32 · 20 = 3840, a multiple
//   of 256 → 8192/3840 = 2 blocks.
//   shared: 68 rounds up to 512 → 16384/512 = 32 blocks.
//   → 2 blocks, 12 warps, 384 threads, 50 %, bound by registers; the slide's
//   "Limited by": 4, 2, 32. (It prints 3640 registers per block; 192·20 is 3840,
//   and either leaves room for 2 blocks.)
TEST(Occupancy, G80SlideExample)
{
    const Occupancy o = run("g80", 192, 20, 68);
    EXPECT_EQ(o.by_threads, 4u);
    EXPECT_EQ(o.by_registers, 2u);
    EXPECT_EQ(o.by_shared, 32u);
    EXPECT_EQ(o.registers_per_block, 3840u);
    EXPECT_EQ(o.shared_allocated_per_block, 512u);
    EXPECT_EQ(o.blocks_per_sm, 2u);
    EXPECT_EQ(o.warps_per_sm, 12u);
    EXPECT_DOUBLE_EQ(o.fraction, 0.5);
    EXPECT_EQ(o.limiters(), "registers");
}

// G80, 160 threads (5 warps), 12 registers: warps are counted in pairs, so
// 6 · 32 · 12 = 2304 registers (9·256) → 8192/2304 = 3 blocks, 15 warps,
// 62.5 %. Counting 5 warps would give 1920 → 2048 → 4 blocks.
TEST(Occupancy, G80CountsWarpsInPairs)
{
    const Occupancy o = run("g80", 160, 12, 0);
    EXPECT_EQ(o.registers_per_block, 2304u);
    EXPECT_EQ(o.blocks_per_sm, 3u);
    EXPECT_EQ(o.warps_per_sm, 15u);
    EXPECT_DOUBLE_EQ(o.fraction, 15.0 / 24.0);
    EXPECT_EQ(o.by_shared, kUnlimited);  // no shared memory, nothing reserved on the G80
}

// Blocks that cannot launch: 0 blocks, bound by the limit they break.
//   1025 threads > 1024; 256 registers > 255; 232449 bytes > 227 KB;
//   1024 threads × 65 registers: 2080 → 2304 per warp, × 32 warps = 73728 > 65536
//   (while 64 registers give exactly 65536: 1 block).
TEST(Occupancy, UnlaunchableBlocks)
{
    EXPECT_EQ(run("h100", 1025, 16, 0).limiters(), "threads");
    EXPECT_EQ(run("h100", 0, 16, 0).blocks_per_sm, 0u);
    const Occupancy regs = run("h100", 256, 256, 0);
    EXPECT_EQ(regs.blocks_per_sm, 0u);
    EXPECT_EQ(regs.limiters(), "registers");
    EXPECT_NE(regs.unlaunchable.find("255"), std::string::npos);
    EXPECT_EQ(run("h100", 1024, 65, 0).limiters(), "registers");
    EXPECT_EQ(run("h100", 1024, 64, 0).blocks_per_sm, 1u);
    EXPECT_EQ(run("h100", 64, 16, 232449).limiters(), "shared memory");
    EXPECT_EQ(run("h100", 64, 16, 232448).blocks_per_sm, 1u);  // the opt-in maximum fits once
    EXPECT_EQ(run("g80", 768, 8, 0).limiters(), "threads");   // 512 threads per block at most
}

TEST(Occupancy, ArchitecturesByIdAndOneTableEach)
{
    EXPECT_EQ(arch_ids(), "h100, a100, rtx4090, g80");
    EXPECT_EQ(find_arch("v100"), nullptr);
    for (const Arch& a : architectures()) EXPECT_EQ(a.max_warps_per_sm * a.warp_size, a.max_threads_per_sm) << a.id;
}

// A `ptxas -v` report as ptxas 13 writes it, with a device function between
// two entries (its stack line must not land on an entry) and an entry without
// shared memory (no "bytes smem").
constexpr const char* kReport =
    "# ptxas -arch=sm_90 -v kernels/ptx/demo.ptx\n"
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_ZN7warplab4demo6reduceILj256EiEEvPKT0_PS2_j' for 'sm_90'\n"
    "ptxas info    : Function properties for _ZN7warplab4demo6reduceILj256EiEEvPKT0_PS2_j\n"
    "    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n"
    "ptxas info    : Used 27 registers, used 1 barriers, 1024 bytes smem\n"
    "ptxas info    : Function properties for helper\n"
    "    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Compiling entry function '_ZN7warplab4demo6reduceILj256EfEEvPKT0_PS2_j' for 'sm_90'\n"
    "ptxas info    : Function properties for _ZN7warplab4demo6reduceILj256EfEEvPKT0_PS2_j\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 9 registers, used 1 barriers, 1024 bytes smem\n"
    "ptxas info    : Compiling entry function '_ZN7warplab4demo6reduceILj128EiEEvPKT0_PS2_j' for 'sm_90'\n"
    "ptxas info    : Used 10 registers, used 1 barriers, 512 bytes smem\n"
    "ptxas info    : Compiling entry function '_ZN7warplab4demo4copyEPfPKf' for 'sm_90'\n"
    "ptxas info    : Used 6 registers\n";

TEST(PtxasReport, ReadsEveryEntry)
{
    const auto r = parse_ptxas_report(kReport);
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(r[0].entry, "warplab::demo::reduce<256u, int>");
    EXPECT_EQ(r[0].registers, 27u);
    EXPECT_EQ(r[0].shared_static, 1024u);
    EXPECT_EQ(r[0].stack, 8u);
    EXPECT_EQ(r[0].spill_stores, 4u);
    EXPECT_EQ(r[0].spill_loads, 12u);
    EXPECT_EQ(r[1].entry, "warplab::demo::reduce<256u, float>");
    EXPECT_EQ(r[1].registers, 9u);
    EXPECT_EQ(r[1].stack, 0u);  // the helper's 16 bytes are the helper's
    EXPECT_EQ(r[2].shared_static, 512u);
    EXPECT_EQ(r[3].entry, "warplab::demo::copy");
    EXPECT_EQ(r[3].registers, 6u);
    EXPECT_EQ(r[3].shared_static, 0u);
}

TEST(PtxasReport, RejectsWhatPtxasDoesNotWrite)
{
    EXPECT_THROW(parse_ptxas_report("Used 12 registers\n"), std::invalid_argument);
    EXPECT_THROW(parse_ptxas_report("ptxas info    : Used 12 registers\n"), std::invalid_argument);  // no entry yet
}

TEST(PtxasReport, FindsTheInstanceALaunchRuns)
{
    const auto r = parse_ptxas_report(kReport);
    EXPECT_EQ(find_instance(r, "reduce", 256, "int"), &r[0]);
    EXPECT_EQ(find_instance(r, "reduce", 256, "float"), &r[1]);
    EXPECT_EQ(find_instance(r, "reduce", 128, "int"), &r[2]);
    EXPECT_EQ(find_instance(r, "reduce", 128, "float"), &r[2]);  // the block size's only instance
    EXPECT_EQ(find_instance(r, "reduce", 64, "int"), nullptr);   // not compiled at 64
    EXPECT_EQ(find_instance(r, "copy", 512, "float"), &r[3]);    // a kernel's only instance runs at any block
    EXPECT_EQ(find_instance(r, "scan", 256, "int"), nullptr);
}
