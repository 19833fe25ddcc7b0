// Per-step metrics, totals, shared contents and the JSON round trip, on traces
// built from lane records as a backend would emit them.
#include <gtest/gtest.h>

#include <iomanip>
#include <map>
#include <sstream>

#include "warplab/trace/analysis.h"
#include "warplab/trace/json.h"

namespace {

using namespace wl::trace;

// Per-thread seq counters and the current step, as a backend keeps them.
struct Recorder {
    std::map<std::uint32_t, std::uint32_t> seq;
    std::vector<LaneRecord> records;

    void add(std::uint32_t thread, StepKey key, std::uint32_t line, Kind kind, Space space, std::uint64_t offset = 0,
             std::uint8_t size = 4, std::uint8_t array = 0, std::uint64_t v0 = 0, std::uint64_t v1 = 0)
    {
        LaneRecord r{};
        r.thread = thread;
        r.seq = seq[thread]++;
        r.epoch = key.epoch;
        r.sub = key.sub;
        r.line = line;
        r.file_hash = file_hash("02_strided_index.cuh");
        r.kind = kind;
        r.space = space;
        r.size = size;
        r.array = array;
        r.offset = offset;
        r.value[0] = v0;
        r.value[1] = v1;
        records.push_back(r);
    }

    void declare(std::uint32_t thread, std::uint8_t id, std::uint8_t elem, std::uint64_t count)
    {
        add(thread, {0, 0}, 3, Kind::Declare, Space::Shared, count, elem, id, 0x61746164'73ull);  // "sdata"
    }
};

// Source lines of the kernel below.
enum Line : std::uint32_t {
    kLoadIn = 10, kStoreS = 11, kSync = 12, kTree = 20, kTreeSync = 21, kOutRead = 30, kOut = 31
};

// Harris v2 (strided index) on one block of 64 ints, cut after two tree steps:
//   sdata[t] = in[t];                          // in[t] = t + 1        step 0
//   for s = 1, 2: i = 2*s*t; if (i < 64) sdata[i] += sdata[i + s];    steps 1, 2
//   if (t == 0) out[0] = sdata[0];             // step 3
// The recorder simulates the values so that the replay has something to check.
BlockTrace strided_reduction_trace()
{
    Recorder rec;
    std::vector<std::uint64_t> sdata(64);
    for (std::uint32_t t = 0; t < 64; ++t) rec.declare(t, 0, 4, 64);
    for (std::uint32_t t = 0; t < 64; ++t) {
        sdata[t] = t + 1;
        rec.add(t, {0, 0}, kLoadIn, Kind::Load, Space::Global, 4 * t, 4, 1, t + 1);
        rec.add(t, {0, 0}, kStoreS, Kind::Store, Space::Shared, 4 * t, 4, 0, t + 1);
        rec.add(t, {0, 0}, kSync, Kind::SyncThreads, Space::None);
    }
    for (std::uint32_t s = 1, epoch = 1; s <= 2; s *= 2, ++epoch) {
        for (std::uint32_t t = 0; t < 64; ++t) {
            const std::uint32_t i = 2 * s * t;
            if (i < 64) {
                rec.add(t, {epoch, 0}, kTree, Kind::Load, Space::Shared, 4 * i, 4, 0, sdata[i]);
                rec.add(t, {epoch, 0}, kTree, Kind::Load, Space::Shared, 4 * (i + s), 4, 0, sdata[i + s]);
                sdata[i] += sdata[i + s];
                rec.add(t, {epoch, 0}, kTree, Kind::Store, Space::Shared, 4 * i, 4, 0, sdata[i]);
            }
            rec.add(t, {epoch, 0}, kTreeSync, Kind::SyncThreads, Space::None);
        }
    }
    rec.add(0, {3, 0}, kOutRead, Kind::Load, Space::Shared, 0, 4, 0, sdata[0]);
    rec.add(0, {3, 0}, kOut, Kind::Store, Space::Global, 0, 4, 2, sdata[0]);
    return group_block(0, 64, rec.records);
}

TEST(Analysis, StridedReductionStepZero)
{
    const std::vector<StepMetrics> m = analyze_steps(strided_reduction_trace());
    ASSERT_EQ(m.size(), 4u);
    // Step 0: all 64 threads load in[t] and store sdata[t]: 2 warps, none partial.
    EXPECT_EQ(m[0].active_threads, 64u);
    EXPECT_EQ(m[0].active_warps, 2u);
    EXPECT_EQ(m[0].partial_warps, 0u);
    EXPECT_EQ(m[0].lines, (std::vector<std::uint32_t>{kLoadIn, kStoreS}));
    // Global load: 2 requests (one per warp) x 4 sectors (128 contiguous bytes) = 8, ideal 8.
    EXPECT_EQ(m[0].global_load.requests, 2u);
    EXPECT_EQ(m[0].global_load.sectors, 8u);
    EXPECT_EQ(m[0].global_load.ideal, 8u);
    // Shared store sdata[t]: stride 1 -> 1 wavefront per warp -> 2, ideal 2, worst 1-way.
    EXPECT_EQ(m[0].shared_store.requests, 2u);
    EXPECT_EQ(m[0].shared_store.wavefronts, 2u);
    EXPECT_EQ(m[0].shared_store.ideal, 2u);
    EXPECT_DOUBLE_EQ(m[0].shared_store.worst_ways, 1.0);
    EXPECT_EQ(m[0].shared_load.requests, 0u);
    EXPECT_TRUE(m[0].has_barrier_end);
    EXPECT_EQ(m[0].collectives, 0u);
}

TEST(Analysis, StridedReductionTreeSteps)
{
    const std::vector<StepMetrics> m = analyze_steps(strided_reduction_trace());
    ASSERT_EQ(m.size(), 4u);
    // s = 1: i = 2t < 64 for t < 32 -> warp 0 fully active, warp 1 idle (not partial).
    EXPECT_EQ(m[1].active_threads, 32u);
    EXPECT_EQ(m[1].active_warps, 1u);
    EXPECT_EQ(m[1].partial_warps, 0u);
    // Loads of words 2t and 2t+1: stride 2 -> 2-way each; 2 requests, 4 wavefronts, ideal 2.
    EXPECT_EQ(m[1].shared_load.requests, 2u);
    EXPECT_EQ(m[1].shared_load.wavefronts, 4u);
    EXPECT_EQ(m[1].shared_load.ideal, 2u);
    EXPECT_EQ(m[1].shared_load_ways, (std::vector<double>{2.0, 2.0}));
    // Store of word 2t: 2-way.
    EXPECT_EQ(m[1].shared_store.wavefronts, 2u);
    EXPECT_DOUBLE_EQ(m[1].shared_store.worst_ways, 2.0);
    // s = 2: i = 4t < 64 for t < 16 -> warp 0 lanes 0-15 (mask 0xFFFF != existing) -> partial.
    EXPECT_EQ(m[2].active_threads, 16u);
    EXPECT_EQ(m[2].partial_warps, 1u);
    // Words 4t for t = 0..15 are 0..60: banks 0,4,..,28 each hold 2 words -> 2-way;
    // words 4t+2 likewise -> loads [2, 2].
    EXPECT_EQ(m[2].shared_load_ways, (std::vector<double>{2.0, 2.0}));
    EXPECT_EQ(m[2].lines, (std::vector<std::uint32_t>{kTree}));
    EXPECT_TRUE(m[2].has_barrier_end);
}

TEST(Analysis, StridedReductionLastStepAndTotals)
{
    const std::vector<StepMetrics> m = analyze_steps(strided_reduction_trace());
    // Step 3: thread 0 alone reads sdata[0] (1 wavefront) and stores out[0] (1 sector);
    // warp 0 has 1 of 32 lanes -> partial; no barrier ends it.
    EXPECT_EQ(m[3].active_threads, 1u);
    EXPECT_EQ(m[3].partial_warps, 1u);
    EXPECT_EQ(m[3].global_store.sectors, 1u);
    EXPECT_EQ(m[3].global_store.ideal, 1u);
    EXPECT_FALSE(m[3].has_barrier_end);

    const Totals t = totals(m);
    EXPECT_EQ(t.steps, 4u);
    // Shared loads: steps 0..3 -> 0 + 2 + 2 + 1 = 5 requests; wavefronts 0 + 4 + 4 + 1 = 9;
    // ideal 0 + 2 + 2 + 1 = 5; worst 2-way.
    EXPECT_EQ(t.shared_load.requests, 5u);
    EXPECT_EQ(t.shared_load.wavefronts, 9u);
    EXPECT_EQ(t.shared_load.ideal, 5u);
    EXPECT_DOUBLE_EQ(t.shared_load.worst_ways, 2.0);
    // Shared stores: 2 + 1 + 1 = 4 requests; wavefronts 2 + 2 + 2 = 6; ideal 2 + 1 + 1 = 4.
    EXPECT_EQ(t.shared_store.requests, 4u);
    EXPECT_EQ(t.shared_store.wavefronts, 6u);
    EXPECT_EQ(t.shared_store.ideal, 4u);
    // Global: loads 2 requests / 8 sectors; store 1 / 1.
    EXPECT_EQ(t.global_load.sectors, 8u);
    EXPECT_DOUBLE_EQ(t.global_load.sectors_per_request(), 4.0);
    EXPECT_EQ(t.global_store.requests, 1u);
    // Partial warps: 0 + 0 + 1 + 1 = 2.
    EXPECT_EQ(t.partial_warp_steps, 2u);
}

TEST(Analysis, StridedReductionSharedContents)
{
    const std::vector<SharedSnapshot> s = shared_contents(strided_reduction_trace());
    ASSERT_EQ(s.size(), 4u);
    const auto& a0 = s[0].at(0);
    ASSERT_EQ(a0.size(), 64u);
    // After step 0: sdata[i] = i + 1.
    EXPECT_EQ(a0[0], 1u);
    EXPECT_EQ(a0[63], 64u);
    // After s = 1: sdata[2t] = (2t+1) + (2t+2) = 4t + 3; odd elements keep i + 1.
    EXPECT_EQ(s[1].at(0)[0], 3u);
    EXPECT_EQ(s[1].at(0)[1], 2u);
    EXPECT_EQ(s[1].at(0)[62], 4u * 31 + 3);
    // After s = 2: sdata[4t] = (4*2t + 3) + (4*(2t+1) + 3) = 16t + 10; sdata[2] keeps 7.
    EXPECT_EQ(s[2].at(0)[0], 10u);
    EXPECT_EQ(s[2].at(0)[4], 26u);
    EXPECT_EQ(s[2].at(0)[2], 7u);
    // Step 3 writes no shared memory.
    EXPECT_EQ(s[3], s[2]);
}

TEST(Analysis, AtomicsCountAsStores)
{
    // 32 lanes atomicAdd one shared word: a store-side request, broadcast word -> 1 wavefront.
    Recorder rec;
    for (std::uint32_t t = 0; t < 32; ++t) rec.add(t, {0, 0}, 5, Kind::Atomic, Space::Shared, 0, 4, 0, t);
    const std::vector<StepMetrics> m = analyze_steps(group_block(0, 32, rec.records));
    ASSERT_EQ(m.size(), 1u);
    EXPECT_EQ(m[0].shared_store.requests, 1u);
    EXPECT_EQ(m[0].shared_store.wavefronts, 1u);
    EXPECT_EQ(m[0].shared_load.requests, 0u);
    EXPECT_EQ(m[0].active_threads, 32u);
}

TEST(Analysis, WarpTailCollectives)
{
    // Step (0,0): 32 lanes shuffle (work, collective); step (0,1): only __syncwarp.
    Recorder rec;
    for (std::uint32_t t = 0; t < 32; ++t) rec.add(t, {0, 0}, 40, Kind::Shuffle, Space::None, 0, 4, 0, t);
    for (std::uint32_t t = 0; t < 16; ++t) rec.add(t, {0, 1}, 41, Kind::SyncWarp, Space::None);
    const std::vector<StepMetrics> m = analyze_steps(group_block(0, 32, rec.records));
    ASSERT_EQ(m.size(), 2u);
    // Shuffle: 32 active threads, 1 collective, no memory traffic.
    EXPECT_EQ(m[0].active_threads, 32u);
    EXPECT_EQ(m[0].collectives, 1u);
    EXPECT_EQ(m[0].shared_load.requests + m[0].shared_store.requests, 0u);
    // Syncwarp of 16 lanes: no work (0 threads, and not partial: sync is not work), 1 collective.
    EXPECT_EQ(m[1].active_threads, 0u);
    EXPECT_EQ(m[1].partial_warps, 0u);
    EXPECT_EQ(m[1].collectives, 1u);
    EXPECT_TRUE(m[1].lines.empty());
    EXPECT_FALSE(m[1].has_barrier_end);
}

TEST(Analysis, SharedContentsWideAndNarrowWrites)
{
    // int arr[8] declared. Lane 0 stores an int4 at byte 0: elements 0..3 = 1, 2, 3, 4
    // (value[0] = 1 | 2 << 32, value[1] = 3 | 4 << 32). Then lane 0 stores one byte 0xFF
    // at byte 5: element 1's low bytes 02 00 -> byte 1 becomes FF -> 0xFF02.
    Recorder rec;
    rec.declare(0, 0, 4, 8);
    rec.add(0, {0, 0}, 5, Kind::Store, Space::Shared, 0, 16, 0, 1 | (2ull << 32), 3 | (4ull << 32));
    rec.add(0, {1, 0}, 6, Kind::Store, Space::Shared, 5, 1, 0, 0xFF);
    // Array 1 was never declared: element size from the 2-byte store, grows to index 3.
    rec.add(0, {1, 0}, 7, Kind::Store, Space::Shared, 6, 2, 1, 0xBEEF);
    const std::vector<SharedSnapshot> s = shared_contents(group_block(0, 1, rec.records));
    ASSERT_EQ(s.size(), 2u);
    const auto& a = s[0].at(0);
    ASSERT_EQ(a.size(), 8u);
    EXPECT_EQ(a[0], 1u);
    EXPECT_EQ(a[3], 4u);
    EXPECT_EQ(a[4], std::nullopt);
    EXPECT_EQ(s[1].at(0)[1], 0xFF02u);
    EXPECT_EQ(s[0].count(1), 0u);
    ASSERT_EQ(s[1].at(1).size(), 4u);
    EXPECT_EQ(s[1].at(1)[3], 0xBEEFu);
    EXPECT_EQ(s[1].at(1)[0], std::nullopt);
}

TEST(TraceJson, RoundTrip)
{
    const BlockTrace b = strided_reduction_trace();
    const std::vector<StepMetrics> m = analyze_steps(b);
    const std::vector<SharedSnapshot> s = shared_contents(b);
    // Through text, as a file would go.
    const nlohmann::json j = nlohmann::json::parse(block_to_json(b, m, s).dump());

    const BlockTrace back = block_from_json(j);
    EXPECT_EQ(back.block, b.block);
    EXPECT_EQ(back.threads, b.threads);
    EXPECT_EQ(back.steps, b.steps);
    EXPECT_TRUE(back.events == b.events);
    ASSERT_EQ(back.shared_arrays.size(), 1u);
    EXPECT_EQ(back.shared_arrays[0].name, "sdata");
    EXPECT_EQ(back.shared_arrays[0].file, "");
    BlockTrace included = b;  // declared in a header the kernel's file includes
    included.shared_arrays[0].file = "tile_reduce.cuh";
    EXPECT_EQ(block_from_json(nlohmann::json::parse(block_to_json(included, m, s).dump())).shared_arrays[0].file, "tile_reduce.cuh");

    const std::vector<StepMetrics> m2 = steps_from_json(j);
    ASSERT_EQ(m2.size(), m.size());
    for (std::size_t i = 0; i < m.size(); ++i) {
        EXPECT_EQ(m2[i].key, m[i].key);
        EXPECT_EQ(m2[i].lines, m[i].lines);
        EXPECT_EQ(m2[i].partial_warps, m[i].partial_warps);
        EXPECT_EQ(m2[i].shared_load.wavefronts, m[i].shared_load.wavefronts);
        EXPECT_EQ(m2[i].shared_load_ways, m[i].shared_load_ways);
        EXPECT_EQ(m2[i].global_load.sectors, m[i].global_load.sectors);
        EXPECT_EQ(m2[i].has_barrier_end, m[i].has_barrier_end);
    }
    EXPECT_EQ(shared_after_from_json(j), s);
}

TEST(TraceJson, FieldNames)
{
    const BlockTrace b = strided_reduction_trace();
    const nlohmann::json j = block_to_json(b, analyze_steps(b), shared_contents(b));
    // First event: warp 0's global load of in[t], lane 2 -> [2, offset 8, value 3, 0].
    const nlohmann::json& e = j.at("events").at(0);
    EXPECT_EQ(e.at("kind"), "load");
    EXPECT_EQ(e.at("space"), "global");
    EXPECT_EQ(e.at("mask"), 0xFFFFFFFFu);
    EXPECT_EQ(e.at("lanes").at(2), nlohmann::json({2, 8, 3, 0}));
    // Step 2's shared load ways and the first element after it (10, see above).
    EXPECT_EQ(j.at("steps").at(2).at("shared_load_ways"), nlohmann::json({2.0, 2.0}));
    EXPECT_EQ(j.at("steps").at(2).at("shared_after").at("0").at(0), 10);
    EXPECT_EQ(j.at("totals").at("partial_warp_steps"), 2);
    EXPECT_THROW(kind_from_name("jump"), std::invalid_argument);
}

// write_document gives the text `out << std::setw(1) << document` gives, byte
// for byte: a document around one block (a header, a string to escape, the
// block's steps, shared contents and totals), with events of full, partial and
// no lanes (an empty list), and a 64-lane warp's lanes beyond 32.
TEST(TraceJson, WrittenDocumentIsTheDocumentsIndentedText)
{
    BlockTrace b = strided_reduction_trace();
    WarpEvent wide = b.events.front();
    wide.mask = (LaneMask(1) << 63) | (LaneMask(1) << 40) | 1u;
    wide.offset[63] = std::uint64_t(1) << 40;
    wide.value[63] = {~std::uint64_t(0), 7};
    b.events.push_back(wide);
    WarpEvent none = b.events.front();
    none.mask = 0;
    b.events.push_back(none);
    const std::vector<StepMetrics> m = analyze_steps(b);
    const std::vector<SharedSnapshot> s = shared_contents(b);
    const auto document = [&](Events events) {
        nlohmann::json doc = {{"lab", "reduction"}, {"note", "a \"quoted\" line\tand a tab"}, {"n", 64}};
        doc["blocks"] = nlohmann::json::array({block_to_json(b, m, s, events)});
        return doc;
    };
    std::ostringstream expected, written;
    expected << std::setw(1) << document(Events::InJson);
    write_document(written, document(Events::Written), b);
    EXPECT_EQ(written.str(), expected.str());
    // A block without events writes them as [] too.
    b.events.clear();
    std::ostringstream expected_empty, written_empty;
    expected_empty << std::setw(1) << document(Events::InJson);
    write_document(written_empty, document(Events::Written), b);
    EXPECT_EQ(written_empty.str(), expected_empty.str());
    EXPECT_NE(written_empty.str().find("\"events\": []"), std::string::npos);
}

}  // namespace
