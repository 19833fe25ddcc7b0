// Shared arrays as the source declares them and as the GPU executes them:
// an access marks every element its width covers, an array counts elements
// of its declared type, and a high-degree bank conflict reads as one row per bank.
#include <gtest/gtest.h>

#include <algorithm>

#include "labs/common/traced_run.h"
#include "labs/common/data_dir.h"
#include "viewer/model/format.h"
#include "viewer/model/step_model.h"

namespace warplab::viewer {
namespace {

using wl::trace::Kind;
using wl::trace::Space;

// One warp's shared access: lanes 0..lanes-1, lane l at byte offset l * stride.
WarpEvent shared_access(Kind kind, unsigned size, unsigned lanes, std::uint64_t stride)
{
    WarpEvent e;
    e.kind = kind;
    e.space = Space::Shared;
    e.size = std::uint8_t(size);
    e.mask = lanes == 32 ? 0xFFFFFFFFu : (1u << lanes) - 1;
    e.existing = 0xFFFFFFFFu;
    for (unsigned l = 0; l < lanes; ++l) e.offset[l] = l * stride;
    return e;
}

std::size_t ones(const std::vector<std::uint8_t>& v) { return std::size_t(std::count(v.begin(), v.end(), 1)); }

// A float array of 64 elements. 8 lanes of ld.shared.v4 at bytes 16l cover
// floats 4l..4l+3: elements 0..31 read, 32 of them. The same 8 lanes loading
// 4 bytes read floats 0, 4, ..., 28: 8. A 16-byte store by lane 0 at byte 240
// writes floats 60..63; one at byte 256 (past the end) writes nothing.
TEST(ViewerArrays, AnAccessMarksEveryElementItsWidthCovers)
{
    BlockTrace block;
    block.threads = 32;
    block.events = {shared_access(Kind::Load, 16, 8, 16)};
    EXPECT_EQ(ones(array_step(block, 0, 0, 4, 64).read), 32u);
    const ArrayStep st = array_step(block, 0, 0, 4, 64);
    EXPECT_TRUE(std::all_of(st.read.begin(), st.read.begin() + 32, [](std::uint8_t r) { return r == 1; }));

    block.events = {shared_access(Kind::Load, 4, 8, 16)};
    EXPECT_EQ(ones(array_step(block, 0, 0, 4, 64).read), 8u);

    block.events = {shared_access(Kind::Store, 16, 1, 0)};
    block.events[0].offset[0] = 240;
    const ArrayStep w = array_step(block, 0, 0, 4, 64);
    EXPECT_EQ(ones(w.written), 4u);
    EXPECT_TRUE(w.written[60] && w.written[63]);
    block.events[0].offset[0] = 256;
    EXPECT_EQ(ones(array_step(block, 0, 0, 4, 64).written), 0u);

    const Covered c = covered_elements(8, 8, 8, 10);  // 8 bytes at byte 8 of doubles: element 1 alone
    EXPECT_EQ(c.first, 1u);
    EXPECT_EQ(c.last, 2u);
}

// Reduction v10 declares `unsigned long long landed[kMaxPieces]` with
// kMaxPieces = 8 beside `T warp_sums[BLOCK / 32]` of ints: PTX gives landed 64
// bytes, aligned 8; the trace's guess (the kernel's narrowest access, 4 bytes)
// made it landed[16]. From the source: 8 elements of 8 bytes. warp_sums at
// block 256 stays 8 ints. The trace itself carries the types (trace_version).
TEST(ViewerArrays, ReductionV10ShowsLandedAsDeclared)
{
    RunRequest req;
    req.version = "v10";
    req.n = 1 << 16;
    req.block = 256;
    req.type = "int";
    req.backend = BackendChoice::Cpu;
    const TracedRun run = trace_version(*find_lab("reduction"), req);
    const auto find = [&](const std::string& name) {
        for (const auto& a : run.block.shared_arrays)
            if (a.name == name) return a;
        ADD_FAILURE() << "no array " << name;
        return wl::trace::SharedArrayInfo{};
    };
    EXPECT_EQ(find("landed").elem_size, 8u);
    EXPECT_EQ(find("landed").count, 8u);
    EXPECT_EQ(find("landed").type, "unsigned long long");
    EXPECT_EQ(find("landed").line, 161u);  // its declaration's, where PTX names the kernel's (157)
    EXPECT_EQ(find("warp_sums").elem_size, 4u);
    EXPECT_EQ(find("warp_sums").count, 8u);
    EXPECT_EQ(find("warp_sums").type, "int");  // T, the run's type
    // The trace's JSON carries them, so the CLI's --json and a browser's viewer read the same.
    const nlohmann::json arrays = trace_document(*find_lab("reduction"), req, run)["blocks"][0]["shared_arrays"];
    const auto landed = std::find_if(arrays.begin(), arrays.end(), [](const nlohmann::json& a) { return a["name"] == "landed"; });
    ASSERT_NE(landed, arrays.end());
    EXPECT_EQ((*landed)["type"], "unsigned long long");
    EXPECT_EQ((*landed)["count"], 8);
    EXPECT_EQ(traced_run_from_json(trace_document(*find_lab("reduction"), req, run), run_extras(run)).block.shared_arrays,
              run.block.shared_arrays);
    ASSERT_EQ(run.shared_after.size(), run.steps.size());
    for (const auto& snapshot : run.shared_after)
        for (const auto& a : run.block.shared_arrays)
            if (snapshot.count(a.id)) EXPECT_EQ(snapshot.at(a.id).size(), a.count) << a.name;  // replayed in the new elements
}

// Transpose v2's column read: lane l reads word 32l, all in bank 0 -> one row,
// 32 wavefronts for 32 words, lanes 0-31. Stride 2 words: lanes l and l + 16
// share bank 2l mod 32 -> 16 rows of 2 words each, banks 0, 2, ..., 30.
TEST(ViewerArrays, CompactBankRows)
{
    const auto column = bank_rows(bank_view(shared_access(Kind::Load, 4, 32, 128)));
    ASSERT_EQ(column.size(), 1u);
    EXPECT_EQ(column[0].bank, 0u);
    EXPECT_EQ(column[0].ways, 32u);
    EXPECT_EQ(column[0].words, 32u);
    EXPECT_EQ(lanes_text(column[0].lanes), "0-31");

    const auto stride2 = bank_rows(bank_view(shared_access(Kind::Load, 4, 32, 8)));
    ASSERT_EQ(stride2.size(), 16u);
    for (std::size_t i = 0; i < 16; ++i) {
        EXPECT_EQ(stride2[i].bank, 2 * i);
        EXPECT_EQ(stride2[i].ways, 2u);
        EXPECT_EQ(stride2[i].lanes, (std::vector<unsigned>{unsigned(i), unsigned(i + 16)}));
    }
    EXPECT_EQ(lanes_text({0, 4, 8, 12, 16}), "0, 4, ..., 16");
    EXPECT_EQ(lanes_text({0, 1, 2, 3, 8, 9, 10, 11}), "0-3, 8-11");
    EXPECT_EQ(lanes_text({5}), "5");
    EXPECT_EQ(a_ways_text(8), "an 8-way");
    EXPECT_EQ(a_ways_text(2), "a 2-way");
    EXPECT_EQ(a_ways_text(11), "an 11-way");
}

}  // namespace
}  // namespace warplab::viewer
