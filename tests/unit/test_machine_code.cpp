// The machine-code listing (kernels/ptx/<lab>.sass) and the trace regrouped by
// it: a line whose LDS/STS are W bytes wide has its narrower PTX accesses
// grouped, per lane, into aligned W-byte accesses before counting.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

#include "warplab/trace/analysis.h"
#include "warplab/trace/block_analysis.h"
#include "warplab/trace/machine_code.h"

namespace {

using namespace wl::trace;

constexpr const char* kFile = "tile.cuh";
const Site kRowLine{file_hash(kFile), 45}, kColumnLine{file_hash(kFile), 46};

// A listing like ptxas's for matmul v3: line 45 read with LDS.128, line 46 with LDS.32.
const char* const kListing =
    "# a comment\n"
    "kernel _Z4tileILj32EEvPf\n"
    "tile.cuh:39 store 4x1\n"
    "tile.cuh:45 load 16x8\n"
    "tile.cuh:46 load 4x32\n";

// Lane records of `warps` full warps: each thread reads the 4-byte words
// word(thread, i), i = 0..count-1, at `line`, in that order, in one step.
template <class Word>
std::vector<LaneRecord> reads(unsigned warps, std::uint32_t line, unsigned count, Word word)
{
    std::vector<LaneRecord> out;
    for (unsigned t = 0; t < warps * kDefaultWarpSize; ++t)
        for (unsigned i = 0; i < count; ++i) {
            LaneRecord r{};
            r.thread = t;
            r.seq = i;
            r.line = line;
            r.file_hash = file_hash(kFile);
            r.kind = Kind::Load;
            r.space = Space::Shared;
            r.size = 4;
            r.offset = 4 * word(t, i);
            r.value[0] = 1000 * t + i;  // distinct per thread and word
            out.push_back(r);
        }
    return out;
}

BlockTrace regrouped(const std::vector<LaneRecord>& records, const char* listing = kListing)
{
    const std::uint32_t threads = static_cast<std::uint32_t>(records.size() ? (records.back().thread / kDefaultWarpSize + 1) * kDefaultWarpSize : 0);
    return as_machine_instructions(group_block(0, threads, records), MachineCode::parse(listing, "test.sass"));
}

SharedStats loads(const BlockTrace& b) { return totals(analyze_steps(b)).shared_load; }

TEST(MachineCode, ParsesWidthsPerLineAndKind)
{
    const MachineCode code = MachineCode::parse(kListing, "test.sass");
    EXPECT_EQ(code.width(kRowLine, Kind::Load), 16u);
    EXPECT_EQ(code.width(kColumnLine, Kind::Load), 4u);
    EXPECT_EQ(code.width({file_hash(kFile), 39}, Kind::Store), 4u);
    EXPECT_EQ(code.width({file_hash(kFile), 39}, Kind::Load), 0u) << "no LDS on that line";
    EXPECT_EQ(code.width({file_hash("other.cuh"), 45}, Kind::Load), 0u) << "the file takes part";
}

TEST(MachineCode, ALineOfTwoWidthsGroupsByTheWidest)
{
    // One line with LDS.128 and LDS.32 in one kernel: grouped by 16 bytes (the accesses
    // that fill no float4 stay as they are). Instantiations that agree on the widths: the
    // same. Instantiations that disagree: no width, the PTX's accesses are kept.
    const Site x7{file_hash("x.cuh"), 7};
    const MachineCode one = MachineCode::parse("kernel a\nx.cuh:7 load 16x2\nx.cuh:7 load 4x3\n", "t");
    EXPECT_EQ(one.width(x7, Kind::Load), 16u);
    const MachineCode agree = MachineCode::parse("kernel a\nx.cuh:7 load 16x2\nkernel b\nx.cuh:7 load 16x1\n", "t");
    EXPECT_EQ(agree.width(x7, Kind::Load), 16u);
    const MachineCode both = MachineCode::parse("kernel a\nx.cuh:7 load 4x2\nx.cuh:7 load 8x1\n"
                                                "kernel b\nx.cuh:7 load 8x1\nx.cuh:7 load 4x6\n", "t");
    EXPECT_EQ(both.width(x7, Kind::Load), 8u);
    const MachineCode two = MachineCode::parse("kernel a\nx.cuh:7 load 16x2\nkernel b\nx.cuh:7 load 8x4\n", "t");
    EXPECT_EQ(two.width(x7, Kind::Load), 0u);
    const MachineCode some = MachineCode::parse("kernel a\nx.cuh:7 load 16x2\nx.cuh:7 load 4x1\n"
                                                "kernel b\nx.cuh:7 load 16x2\n", "t");
    EXPECT_EQ(some.width(x7, Kind::Load), 0u);
}

// Image v1 (kernels/image/01_interleaved.cuh) at 16×16, as kernels/ptx/image.sass lists
// its kernel: line 44, `sdata[index] += sdata[index + s]` with index = 2·s·tid, unrolled
// over s = 1, 2, ..., 128, is 14 LDS.32, one LDS.64 and 7 STS.32; line 48 reads sdata[0].
const char* const kInterleavedListing =
    "kernel _ZN7warplab5image17image_interleavedILj16ELj16EEEvPK6uchar4jjPf\n"
    "01_interleaved.cuh:44 load 4x14\n"
    "01_interleaved.cuh:44 load 8x1\n"
    "01_interleaved.cuh:44 store 4x7\n"
    "01_interleaved.cuh:48 load 4x1\n";

// The shared loads of one 256-thread block of image v1: tree step e = 1..8 (s = 2^(e-1),
// after the e-th barrier) reads words index and index + s in each thread whose
// index = 2·s·tid < 256; thread 0 then reads word 0 at line 48.
std::vector<LaneRecord> interleaved_tree_loads()
{
    std::vector<LaneRecord> out;
    std::vector<std::uint32_t> seq(256, 0);
    auto load = [&](std::uint32_t tid, std::uint32_t epoch, std::uint32_t line, std::uint64_t word) {
        LaneRecord r{};
        r.thread = tid;
        r.seq = seq[tid]++;
        r.epoch = epoch;
        r.line = line;
        r.file_hash = file_hash("01_interleaved.cuh");
        r.kind = Kind::Load;
        r.space = Space::Shared;
        r.size = 4;
        r.offset = 4 * word;
        r.value[0] = word;
        out.push_back(r);
    };
    for (std::uint32_t e = 1, s = 1; s < 256; ++e, s *= 2)
        for (std::uint32_t tid = 0; 2 * s * tid < 256; ++tid) {
            load(tid, e, 44, 2 * s * tid);
            load(tid, e, 44, 2 * s * tid + s);
        }
    load(0, 9, 48, 0);
    return out;
}

TEST(MachineCode, InterleavedTreeCountsAsTheMachineRunsIt)
{
    // Counted by hand per block (8 warps; n-way = most lanes on one bank):
    //  s = 1: threads 0-127 (warps 0-3) read words 2·tid and 2·tid + 1. The machine: one
    //         LDS.64 a warp over 256 contiguous bytes, 2 wavefronts (a half-warp each):
    //         4 instructions, 8 wavefronts. The PTX: two 4-byte loads a warp, stride 2
    //         words, 2-way: 8 instructions, 16 wavefronts.
    //  s = 2: threads 0-63 (2 warps), words 4·tid and 4·tid + 2, 4-way: 4 loads, 16.
    //  s = 4: threads 0-31, stride 8 words, 8-way: 2 loads, 16.
    //  s = 8: threads 0-15, stride 16 words, two banks, 8-way: 2 loads, 16.
    //  s = 16, 32, 64, 128: 8, 4, 2, 1 threads all on bank 0: 2 loads each, 16 + 8 + 4 + 2.
    //  line 48: 1 load, 1 wavefront.
    // Machine: 4 + 4 + 2 + 2 + 8 + 1 = 21 instructions, 8 + 16 + 16 + 16 + 30 + 1 = 87
    // wavefronts, what Nsight Compute counts on an H100; the PTX's: 25 and 95.
    const auto records = interleaved_tree_loads();
    const MachineCode code = MachineCode::parse(kInterleavedListing, "image.sass");
    const BlockAnalysis machine = analyze_block(records, 0, 256, &code);
    EXPECT_EQ(machine.totals.shared_load.requests, 21u);
    EXPECT_EQ(machine.totals.shared_load.wavefronts, 87u);
    const BlockAnalysis ptx = analyze_block(records, 0, 256);
    EXPECT_EQ(ptx.totals.shared_load.requests, 25u);
    EXPECT_EQ(ptx.totals.shared_load.wavefronts, 95u);
    // Only the first step merged: every 8-byte event is in it, one a warp of warps 0-3.
    unsigned wide = 0;
    for (const WarpEvent& e : machine.block.events)
        if (e.size == 8) {
            ++wide;
            EXPECT_EQ(e.offset[1], 8u * (32 * e.warp + 1)) << "lane 1 reads words 2·tid and 2·tid + 1";
            EXPECT_LT(e.warp, 4u);
        }
    EXPECT_EQ(wide, 4u);
}

TEST(MachineCode, MalformedListingNamesTheLine)
{
    try {
        MachineCode::parse("kernel a\nx.cuh:7 load 16x2\nx.cuh load 4\n", "lab.sass");
        FAIL() << "parsed a malformed line";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("lab.sass:3"), std::string::npos) << e.what();
    }
    EXPECT_THROW(MachineCode::parse("x.cuh:7 fetch 4x1\n", "t"), std::runtime_error);
    EXPECT_THROW(MachineCode::parse("x.cuh:7 load 0x1\n", "t"), std::runtime_error);
    EXPECT_THROW(MachineCode::parse("x.cuh:7 load 12x1\n", "t"), std::runtime_error) << "no LDS is 12 bytes wide";
    EXPECT_THROW(MachineCode::parse("x.cuh:7 load 32x1\n", "t"), std::runtime_error) << "none is wider than 16";
}

TEST(MachineCode, RowOfATileBecomesOneLds128PerFourWords)
{
    // Matmul v3's As[ty][k], k = 0..31, TILE = 32: warp w's lanes all have ty = w and
    // read word 32·ty + k. ptxas reads k..k+3 with one LDS.128: per warp 32 / 4 = 8
    // instructions, each a broadcast of one float4 (1 wavefront per half-warp -> 2).
    // Counted per PTX instruction it would be 32 instructions of 1 wavefront.
    const auto records = reads(2, 45, 32, [](unsigned t, unsigned k) { return 32 * (t / kDefaultWarpSize) + k; });
    const SharedStats machine = loads(regrouped(records));
    EXPECT_EQ(machine.requests, 2u * 8);
    EXPECT_EQ(machine.wavefronts, 2u * 8 * 2);
    const SharedStats ptx = totals(analyze_steps(group_block(0, 64, records))).shared_load;
    EXPECT_EQ(ptx.requests, 2u * 32);
    EXPECT_NE(ptx.requests, machine.requests);
}

TEST(MachineCode, ColumnReadsOnAnLds32LineStayAsTheyAre)
{
    // Bs[k][tx] on line 46 (LDS.32): word 32k + lane, 32 reads per thread -> 32 per warp.
    const auto records = reads(1, 46, 32, [](unsigned t, unsigned k) { return 32 * k + t % kDefaultWarpSize; });
    const BlockTrace b = regrouped(records);
    EXPECT_EQ(loads(b).requests, 32u);
    EXPECT_EQ(b.events, group_block(0, 32, records).events);
}

TEST(MachineCode, MergesAcrossInterleavedAccessesOfOneLine)
{
    // Matmul v4's As[(row + r)·8 + k] for k = 0..7 outer, r = 0..7 inner (PTX order): a
    // thread's words for one row are 4 apart in program order, yet k = 0..3 of a row fill
    // one aligned float4: 8 rows × 2 float4 = 16 LDS.128 per warp, as ptxas has them.
    const auto records = reads(1, 45, 64, [](unsigned t, unsigned i) {
        const unsigned k = i / 8, r = i % 8;
        return (8 * (t % kDefaultWarpSize / 4) + r) * 8 + k;  // lanes 4j..4j+3 share rows 8j..8j+7
    });
    const BlockTrace b = regrouped(records);
    EXPECT_EQ(loads(b).requests, 16u);
    for (const WarpEvent& e : b.events) EXPECT_EQ(e.size, 16u);
}

TEST(MachineCode, ValuesAreAssembledInAddressOrder)
{
    // Lane l reads words 4l+3, 4l+2, 4l+1, 4l (reverse order): one float4 at byte 16l whose
    // bytes 0-3 are the value read from word 4l (i = 3), bytes 12-15 from word 4l+3 (i = 0).
    const auto records = reads(1, 45, 4, [](unsigned t, unsigned i) { return 4 * t + 3 - i; });
    const BlockTrace b = regrouped(records);
    ASSERT_EQ(b.events.size(), 1u);
    const WarpEvent& e = b.events[0];
    EXPECT_EQ(e.size, 16u);
    EXPECT_EQ(e.offset[5], 16u * 5);
    const std::uint64_t lane5 = 1000 * 5;
    EXPECT_EQ(e.value[5][0], (lane5 + 3) | ((lane5 + 2) << 32));
    EXPECT_EQ(e.value[5][1], (lane5 + 1) | ((lane5 + 0) << 32));
}

TEST(MachineCode, PartlyFilledChunksMergeOnlyWhereAMachineAccessCould)
{
    // Two words of a float4 at positions 0, 1: one aligned 8-byte access (LDS.64 where
    // ptxas has a tail like this). At positions 1, 2: no aligned access covers exactly
    // them, so the two stay. Three words: not a power of two, they stay.
    const auto pair = reads(1, 45, 2, [](unsigned t, unsigned i) { return 4 * t + i; });
    const BlockTrace merged = regrouped(pair);
    ASSERT_EQ(merged.events.size(), 1u);
    EXPECT_EQ(merged.events[0].size, 8u);
    const auto middle = reads(1, 45, 2, [](unsigned t, unsigned i) { return 4 * t + 1 + i; });
    EXPECT_EQ(regrouped(middle).events.size(), 2u);
    const auto three = reads(1, 45, 3, [](unsigned t, unsigned i) { return 4 * t + i; });
    EXPECT_EQ(regrouped(three).events.size(), 3u);
}

TEST(MachineCode, LanesAtDifferentPositionsOrWithDifferentMasksStayApart)
{
    // Lane l reads word l (positions 0..3 differ across lanes in one instruction): an
    // LDS.128 serves each lane 16 bytes at one position, so nothing merges.
    const auto staggered = reads(1, 45, 4, [](unsigned t, unsigned i) { return 4 * i + t % kDefaultWarpSize; });
    EXPECT_EQ(regrouped(staggered).events.size(), 4u);
    // Lanes 0-15 read words 4l and 4l+1, lanes 16-31 only 4l: the second instruction
    // has half the lanes, so no machine access serves both: two 4-byte events stay.
    auto records = reads(1, 45, 2, [](unsigned t, unsigned i) { return 4 * t + i; });
    std::erase_if(records, [](const LaneRecord& r) { return r.seq == 1 && r.thread >= 16; });
    const BlockTrace b = regrouped(records);
    ASSERT_EQ(b.events.size(), 2u);
    EXPECT_EQ(b.events[0].mask, 0xFFFFFFFFu);
    EXPECT_EQ(b.events[1].mask, 0x0000FFFFu);
    for (const WarpEvent& e : b.events) EXPECT_EQ(e.size, 4u);
}

TEST(MachineCode, ARepeatedReadIsASecondInstruction)
{
    // Words 4l, 4l+1, 4l, 4l+1 (the same pair read twice): two 8-byte accesses, not one.
    const auto records = reads(1, 45, 4, [](unsigned t, unsigned i) { return 4 * t + i % 2; });
    const BlockTrace b = regrouped(records);
    ASSERT_EQ(b.events.size(), 2u);
    for (const WarpEvent& e : b.events) EXPECT_EQ(e.size, 8u);
}

TEST(MachineCode, AnalyzeBlockCountsPerMachineInstructionOnlyWithAListing)
{
    const auto records = reads(2, 45, 32, [](unsigned t, unsigned k) { return 32 * (t / kDefaultWarpSize) + k; });
    const MachineCode code = MachineCode::parse(kListing, "test.sass");
    const BlockAnalysis machine = analyze_block(records, 0, 64, &code);
    EXPECT_TRUE(machine.per_machine_instruction);
    EXPECT_EQ(machine.totals.shared_load.requests, 16u);
    const BlockAnalysis ptx = analyze_block(records, 0, 64);
    EXPECT_FALSE(ptx.per_machine_instruction);
    EXPECT_EQ(ptx.totals.shared_load.requests, 64u);
}

TEST(MachineCode, RandomAccessesKeepEveryByteRead)
{
    // Whatever merges, the bytes each lane reads (offset, size, value) are the PTX's.
    std::mt19937 rng(20261123);
    for (int round = 0; round < 50; ++round) {
        const unsigned count = 1 + rng() % 8;
        std::vector<unsigned> words(kDefaultWarpSize * count);
        for (unsigned& w : words) w = rng() % 24;
        const auto records = reads(1, 45, count, [&](unsigned t, unsigned i) { return words[t * count + i]; });
        auto bytes = [](const BlockTrace& b) {
            std::vector<std::pair<std::uint64_t, std::uint64_t>> out;  // (lane·2^32 + byte address, value byte)
            for (const WarpEvent& e : b.events)
                for (unsigned lane = 0; lane < kDefaultWarpSize; ++lane)
                    if ((e.mask >> lane) & 1u)
                        for (unsigned j = 0; j < e.size; ++j)
                            out.emplace_back((std::uint64_t(lane) << 32) + e.offset[lane] + j, (e.value[lane][j / 8] >> (8 * (j % 8))) & 0xFF);
            std::sort(out.begin(), out.end());
            out.erase(std::unique(out.begin(), out.end()), out.end());
            return out;
        };
        EXPECT_EQ(bytes(regrouped(records)), bytes(group_block(0, 32, records)));
    }
}

}  // namespace
