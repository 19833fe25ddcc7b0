// Grouping of lane records into warp events (events.h): the k-th record of each
// lane at one site, in one warp and one step, is one event.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <tuple>

#include "warplab/trace/block_analysis.h"
#include "warplab/trace/events.h"

namespace {

using namespace wl::trace;

constexpr std::uint32_t kHash = file_hash("kernel.cuh");

// Emits records as a kernel would: per-thread seq counters, a current step key.
struct Recorder {
    std::uint32_t block = 0;
    StepKey key;
    std::map<std::uint32_t, std::uint32_t> seq;
    std::vector<LaneRecord> records;

    LaneRecord& add(std::uint32_t thread, std::uint32_t line, Kind kind, Space space, std::uint64_t offset = 0,
                    std::uint8_t size = 4, std::uint8_t array = 0, std::uint64_t value = 0)
    {
        LaneRecord r{};
        r.block = block;
        r.thread = thread;
        r.seq = seq[thread]++;
        r.epoch = key.epoch;
        r.sub = key.sub;
        r.line = line;
        r.file_hash = kHash;
        r.kind = kind;
        r.space = space;
        r.size = size;
        r.array = array;
        r.offset = offset;
        r.value[0] = value;
        records.push_back(r);
        return records.back();
    }

    void declare(std::uint32_t thread, std::uint8_t id, const char* name, std::uint8_t elem, std::uint64_t count)
    {
        LaneRecord& r = add(thread, 7, Kind::Declare, Space::Shared, count, elem, id);
        r.value[0] = 0;
        std::memcpy(r.value, name, std::min<std::size_t>(std::strlen(name), 16));
    }
};

const WarpEvent* find_event(const BlockTrace& b, std::uint32_t warp, std::uint32_t line, std::uint32_t nth = 0)
{
    for (const WarpEvent& e : b.events)
        if (e.warp == warp && e.site.line == line && nth-- == 0) return &e;
    return nullptr;
}

TEST(Grouping, DivergedBranchesReconvergeIntoOneEvent)
{
    // if (lane even) { two loads at line 10 } else { one load at line 20 }; then
    // every lane loads at line 30. Even lanes reach line 30 as their 3rd record,
    // odd lanes as their 2nd, but both as their first record at line 30, so:
    //   line 10 #0 mask 0x55555555, line 10 #1 mask 0x55555555,
    //   line 20    mask 0xAAAAAAAA, line 30    mask 0xFFFFFFFF.
    Recorder rec;
    for (std::uint32_t t = 0; t < 32; ++t) {
        if (t % 2 == 0) {
            rec.add(t, 10, Kind::Load, Space::Shared, 4 * t);
            rec.add(t, 10, Kind::Load, Space::Shared, 4 * t + 128);
        } else {
            rec.add(t, 20, Kind::Load, Space::Shared, 4 * t);
        }
        rec.add(t, 30, Kind::Load, Space::Shared, 1000 + t);
    }
    const BlockTrace b = group_block(0, 32, rec.records);
    ASSERT_EQ(b.events.size(), 4u);
    // Order (step, warp, smallest seq, site): line 10 #0 (seq 0, line 10), line 20
    // (seq 0, line 20), line 10 #1 (seq 1, line 10), line 30 (seq 1 from odd lanes, line 30).
    EXPECT_EQ(b.events[0].site.line, 10u);
    EXPECT_EQ(b.events[1].site.line, 20u);
    EXPECT_EQ(b.events[2].site.line, 10u);
    EXPECT_EQ(b.events[3].site.line, 30u);
    EXPECT_EQ(b.events[0].mask, 0x55555555u);
    EXPECT_EQ(b.events[2].mask, 0x55555555u);
    EXPECT_EQ(b.events[1].mask, 0xAAAAAAAAu);
    EXPECT_EQ(b.events[3].mask, 0xFFFFFFFFu);
    // The second even-lane load kept its own offsets: lane 2 -> 4*2 + 128 = 136.
    EXPECT_EQ(b.events[2].offset[2], 136u);
    // Reconverged event: lane 5 -> 1000 + 5.
    EXPECT_EQ(b.events[3].offset[5], 1005u);
    EXPECT_EQ(b.events[3].existing, 0xFFFFFFFFu);
}

// A small two-warp kernel with three steps, collectives and a declaration.
std::vector<LaneRecord> sample_records()
{
    Recorder rec;
    rec.block = 3;
    for (std::uint32_t t = 0; t < 64; ++t) rec.declare(t, 0, "sdata", 4, 64);
    for (std::uint32_t t = 0; t < 64; ++t) {
        rec.key = {0, 0};
        rec.add(t, 11, Kind::Load, Space::Global, 4 * t, 4, 1, t * 7);
        rec.add(t, 12, Kind::Store, Space::Shared, 4 * t, 4, 0, t * 7);
        rec.add(t, 13, Kind::SyncThreads, Space::None);
        rec.key = {1, 0};
        if (t % 3 != 0) rec.add(t, 20, Kind::Load, Space::Shared, 8 * t % 256);
        if (t % 2 == 0) {  // a loop: two records of one lane at one site
            rec.add(t, 24, Kind::Load, Space::Shared, 4 * t);
            rec.add(t, 24, Kind::Load, Space::Shared, 4 * t + 256);
        }
        rec.add(t, 21, Kind::SyncWarp, Space::None);
        rec.key = {1, 1};
        rec.add(t, 22, Kind::Shuffle, Space::None, 0, 4, 0, t);
        if (t < 40) rec.add(t, 23, Kind::Vote, Space::None, 0, 4, 0, t & 1);
    }
    return rec.records;
}

bool same_arrays(const std::vector<SharedArrayInfo>& a, const std::vector<SharedArrayInfo>& b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
        return x.id == y.id && x.name == y.name && x.elem_size == y.elem_size && x.count == y.count &&
               x.line == y.line;
    });
}

TEST(Grouping, ShuffledRecordsGiveIdenticalEvents)
{
    // GPU records arrive in any order; the events must not depend on it.
    const std::vector<LaneRecord> ordered = sample_records();
    const BlockTrace expected = group_block(3, 64, ordered);
    std::mt19937 rng(7);
    for (int round = 0; round < 20; ++round) {
        std::vector<LaneRecord> shuffled = ordered;
        std::shuffle(shuffled.begin(), shuffled.end(), rng);
        const BlockTrace got = group_block(3, 64, shuffled);
        EXPECT_EQ(got.steps, expected.steps);
        EXPECT_TRUE(got.events == expected.events);
        EXPECT_TRUE(same_arrays(got.shared_arrays, expected.shared_arrays));
    }
}

// The sample as the emulator delivers it: steps in order, each warp's records
// of a step before the next warp's, an instruction's records lane by lane, and
// the instruction counts (Mix records, seq 0) last.
std::vector<LaneRecord> in_emulator_order(std::vector<LaneRecord> records)
{
    std::stable_sort(records.begin(), records.end(), [](const LaneRecord& a, const LaneRecord& b) {
        return std::make_tuple(a.epoch, a.sub, a.thread / 32, a.seq, a.thread) <
               std::make_tuple(b.epoch, b.sub, b.thread / 32, b.seq, b.thread);
    });
    for (std::uint32_t warp = 0; warp < 2; ++warp) {
        LaneRecord mix{};
        mix.block = 3;
        mix.thread = warp * 32;
        mix.epoch = 1;
        mix.kind = Kind::Mix;
        mix.array = 0;
        mix.offset = 5 + warp;
        records.push_back(mix);
    }
    return records;
}

TEST(Grouping, RecordsInEmulatorOrderGiveTheEventsOfAnyOrder)
{
    // The emulator's order takes a quicker way (occurrences counted as the
    // records come, each warp's records of a step sorted on their own, the
    // Mix records merged in); any order takes the general one. A lane that
    // records one seq number twice, with another offset (a duplicate, as a
    // GPU buffer may hold), counts it as its next occurrence either way.
    std::vector<LaneRecord> sample = sample_records();
    LaneRecord twice = sample.back();
    twice.offset += 4;
    sample.push_back(twice);
    const std::vector<LaneRecord> ordered = in_emulator_order(sample);
    const BlockTrace got = group_block(3, 64, ordered);
    std::mt19937 rng(49);
    for (int round = 0; round < 10; ++round) {
        std::vector<LaneRecord> shuffled = ordered;
        std::shuffle(shuffled.begin(), shuffled.end(), rng);
        const BlockTrace expected = group_block(3, 64, shuffled);
        EXPECT_EQ(got.steps, expected.steps);
        EXPECT_TRUE(got.events == expected.events);
        EXPECT_TRUE(got.mix == expected.mix);
    }
    // The duplicate joined its twin's event as the lane's next occurrence:
    // thread 63's vote at line 23 is not recorded (t < 40 only), so the last
    // record is its shuffle at line 22, and its copy makes a second event there.
    const WarpEvent* second = find_event(got, 1, 22, 1);
    ASSERT_NE(second, nullptr);
    EXPECT_EQ(second->mask, LaneMask(1) << 31);
    EXPECT_EQ(second->offset[31], 4u);
}

// A loop of 300 barrier intervals on a block of 96 threads (three warps), each
// thread loading twice at line 40 and then storing at line 39 (its loop's head)
// an interval, in the emulator's order (a warp's interval at a time, an
// instruction lane by lane; the store sorts first, so no interval is in order):
// 300 x 96 x 3 = 86,400 records, more than one core's share (2^16), so the
// warps' steps are sorted in parts on the host's cores; the events are those
// of the same records shuffled, sorted as one.
TEST(Grouping, ALargeTraceSortedInPartsGivesTheEventsOfAnyOrder)
{
    Recorder rec;
    for (std::uint32_t epoch = 0; epoch < 300; ++epoch) {
        rec.key = {epoch, 0};
        for (std::uint32_t warp = 0; warp < 3; ++warp)
            for (std::uint32_t k = 0; k < 3; ++k)
                for (std::uint32_t lane = 0; lane < 32; ++lane) {
                    const std::uint32_t t = warp * 32 + lane;
                    rec.add(t, k < 2 ? 40 : 39, k < 2 ? Kind::Load : Kind::Store, Space::Shared, 4 * ((t + 7 * epoch + k) % 96), 4, 0,
                            epoch * 1000 + t);
                }
    }
    ASSERT_GT(rec.records.size(), std::size_t(1) << 16);
    const BlockTrace got = group_block(0, 96, rec.records);
    std::vector<LaneRecord> shuffled = rec.records;
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(49));
    const BlockTrace expected = group_block(0, 96, shuffled);
    EXPECT_EQ(got.steps.size(), 300u);
    // Each warp's interval: two loads (occurrences 0 and 1) and a store: 300 x 3 x 3 events.
    EXPECT_EQ(got.events.size(), 2700u);
    EXPECT_EQ(got.steps, expected.steps);
    EXPECT_TRUE(got.events == expected.events);
}

TEST(Grouping, SampleKernelEventsAndSteps)
{
    const BlockTrace b = group_block(3, 64, sample_records());
    // Step keys (0,0), (1,0), (1,1) -> dense indices 0, 1, 2; declarations add none.
    ASSERT_EQ(b.steps.size(), 3u);
    EXPECT_EQ(b.steps[2], (StepKey{1, 1}));
    // Per warp: step 0 has 3 events (lines 11, 12, 13), step 1 four (20, 24 twice, 21),
    // step 2 the shuffle and, for warp 0 (all lanes < 40) and warp 1 (lanes 0-7), the
    // vote -> 9 per warp, 18 in all.
    EXPECT_EQ(b.events.size(), 18u);
    // Line 24: the first record of each even lane is one event, the second another.
    // Warp 1 lane 4 is thread 36 -> offsets 144 and 144 + 256 = 400.
    const WarpEvent* first = find_event(b, 1, 24, 0);
    const WarpEvent* second = find_event(b, 1, 24, 1);
    ASSERT_NE(first, nullptr);
    ASSERT_NE(second, nullptr);
    EXPECT_EQ(first->mask, 0x55555555u);
    EXPECT_EQ(first->offset[4], 144u);
    EXPECT_EQ(second->offset[4], 400u);
    // Line 20 skips t % 3 == 0: warp 0 lanes 0,3,..,30 off -> mask bit l set iff l % 3 != 0.
    const WarpEvent* load = find_event(b, 0, 20);
    ASSERT_NE(load, nullptr);
    std::uint32_t want = 0;
    for (unsigned l = 0; l < 32; ++l)
        if (l % 3 != 0) want |= 1u << l;
    EXPECT_EQ(load->mask, want);
    EXPECT_EQ(load->step, 1u);
    // Warp 1 vote: threads 32..39 -> lanes 0..7 -> 0xFF; value = t & 1, lane 3 (t 35) -> 1.
    const WarpEvent* vote = find_event(b, 1, 23);
    ASSERT_NE(vote, nullptr);
    EXPECT_EQ(vote->mask, 0xFFu);
    EXPECT_EQ(vote->value[3][0], 1u);
    EXPECT_EQ(vote->space, Space::None);
    EXPECT_EQ(vote->block, 3u);
    // Sync events are kept as events (space None, full mask).
    const WarpEvent* sync = find_event(b, 1, 13);
    ASSERT_NE(sync, nullptr);
    EXPECT_EQ(sync->kind, Kind::SyncThreads);
    EXPECT_EQ(sync->mask, 0xFFFFFFFFu);
}

TEST(Grouping, EventsAreOrderedByStepThenWarpThenProgramOrder)
{
    const BlockTrace b = group_block(3, 64, sample_records());
    // Step 0: warp 0 lines 11, 12, 13, then warp 1 lines 11, 12, 13.
    const std::uint32_t lines[] = {11, 12, 13, 11, 12, 13};
    for (unsigned i = 0; i < 6; ++i) {
        EXPECT_EQ(b.events[i].step, 0u);
        EXPECT_EQ(b.events[i].warp, i / 3);
        EXPECT_EQ(b.events[i].site.line, lines[i]);
    }
}

TEST(Grouping, DeclarationsFillSharedArraysOnce)
{
    // 64 threads declare array 0 "sdata", int x 64: one entry.
    const BlockTrace b = group_block(3, 64, sample_records());
    ASSERT_EQ(b.shared_arrays.size(), 1u);
    EXPECT_EQ(b.shared_arrays[0].id, 0u);
    EXPECT_EQ(b.shared_arrays[0].name, "sdata");
    EXPECT_EQ(b.shared_arrays[0].elem_size, 4u);
    EXPECT_EQ(b.shared_arrays[0].count, 64u);
    EXPECT_EQ(b.shared_arrays[0].line, 7u);
    for (const WarpEvent& e : b.events) EXPECT_NE(e.kind, Kind::Declare);
}

TEST(Grouping, SixteenCharacterNameHasNoTerminator)
{
    // A name of exactly 16 characters fills value[0..1] with no NUL.
    Recorder rec;
    rec.declare(0, 2, "abcdefghijklmnop", 8, 10);
    const BlockTrace b = group_block(0, 1, rec.records);
    ASSERT_EQ(b.shared_arrays.size(), 1u);
    EXPECT_EQ(b.shared_arrays[0].name, "abcdefghijklmnop");
    EXPECT_TRUE(b.steps.empty());
    EXPECT_TRUE(b.events.empty());
}

TEST(Grouping, PartialLastWarp)
{
    // 40 threads: warp 0 = threads 0..31 (all exist), warp 1 = threads 32..39 -> lanes 0..7 = 0xFF.
    Recorder rec;
    for (std::uint32_t t = 0; t < 40; ++t) rec.add(t, 5, Kind::Load, Space::Global, 4 * t);
    const BlockTrace b = group_block(0, 40, rec.records);
    ASSERT_EQ(b.events.size(), 2u);
    EXPECT_EQ(b.events[0].existing, 0xFFFFFFFFu);
    EXPECT_EQ(b.events[1].existing, 0xFFu);
    EXPECT_EQ(b.events[1].mask, 0xFFu);
    // Thread 39 -> warp 1 lane 7, offset 4*39 = 156.
    EXPECT_EQ(b.events[1].offset[7], 156u);
}

TEST(Grouping, SameSiteDifferentKindOrSizeSplits)
{
    // Line 8 does a load and a store (a += b style): two events. Lanes 0-15 load
    // 4 bytes, lanes 16-31 load 8 bytes at line 9: split into two events by size.
    Recorder rec;
    for (std::uint32_t t = 0; t < 32; ++t) {
        rec.add(t, 8, Kind::Load, Space::Shared, 4 * t);
        rec.add(t, 8, Kind::Store, Space::Shared, 4 * t);
        rec.add(t, 9, Kind::Load, Space::Shared, 8 * t, t < 16 ? 4 : 8);
    }
    const BlockTrace b = group_block(0, 32, rec.records);
    ASSERT_EQ(b.events.size(), 4u);
    EXPECT_EQ(b.events[0].kind, Kind::Load);
    EXPECT_EQ(b.events[1].kind, Kind::Store);
    EXPECT_EQ(b.events[2].mask | b.events[3].mask, 0xFFFFFFFFu);
    EXPECT_EQ(b.events[2].mask & b.events[3].mask, 0u);
    EXPECT_NE(b.events[2].size, b.events[3].size);
}

TEST(Grouping, StepWithOnlySynchronisationExists)
{
    // Step (0,0) loads, step (0,1) only __syncwarp: both steps exist, index 1 has one event.
    Recorder rec;
    for (std::uint32_t t = 0; t < 32; ++t) rec.add(t, 1, Kind::Load, Space::Shared, 4 * t);
    rec.key = {0, 1};
    for (std::uint32_t t = 0; t < 32; ++t) rec.add(t, 2, Kind::SyncWarp, Space::None);
    const BlockTrace b = group_block(0, 32, rec.records);
    ASSERT_EQ(b.steps.size(), 2u);
    ASSERT_EQ(b.events.size(), 2u);
    EXPECT_EQ(b.events[1].step, 1u);
    EXPECT_EQ(b.events[1].kind, Kind::SyncWarp);
}

TEST(Grouping, GroupRecordsSplitsByBlockInOrder)
{
    // Records of blocks 5 and 2 interleaved -> two traces, block 2 first, each with its own events.
    Recorder b5, b2;
    b5.block = 5;
    b2.block = 2;
    for (std::uint32_t t = 0; t < 32; ++t) {
        b5.add(t, 1, Kind::Load, Space::Global, 4 * t);
        b2.add(t, 1, Kind::Load, Space::Global, 8 * t);
    }
    std::vector<LaneRecord> all;
    for (std::size_t i = 0; i < 32; ++i) {
        all.push_back(b5.records[i]);
        all.push_back(b2.records[i]);
    }
    const std::vector<BlockTrace> blocks = group_records(all, 32);
    ASSERT_EQ(blocks.size(), 2u);
    EXPECT_EQ(blocks[0].block, 2u);
    EXPECT_EQ(blocks[1].block, 5u);
    ASSERT_EQ(blocks[0].events.size(), 1u);
    EXPECT_EQ(blocks[0].events[0].block, 2u);
    EXPECT_EQ(blocks[0].events[0].offset[3], 24u);  // 8 * 3
    EXPECT_EQ(blocks[1].events[0].offset[3], 12u);  // 4 * 3
}

// ---- the budget (TraceBudget): steps in order while they fit ----

// One warp (32 threads) loading one word each at line 10 in each of `steps`
// barrier intervals: one event a step.
std::vector<LaneRecord> one_event_a_step(std::uint32_t steps)
{
    Recorder rec;
    for (std::uint32_t s = 0; s < steps; ++s) {
        rec.key = {s, 0};
        for (std::uint32_t t = 0; t < 32; ++t) rec.add(t, 10, Kind::Load, Space::Global, 4 * t);
    }
    return rec.records;
}

constexpr std::uint64_t kEvent = sizeof(WarpEvent);

// Three steps of one event each: room for three is the whole trace; room for
// two and a half keeps steps 0 and 1 whole and leaves step 2 out.
TEST(Grouping, ABudgetKeepsTheStepsThatFitWhole)
{
    const BlockTrace whole = group_block(0, 32, one_event_a_step(3), 32, TraceBudget{3 * kEvent});
    EXPECT_EQ(whole.steps.size(), 3u);
    EXPECT_EQ(whole.end, TraceEnd::Whole);
    const BlockTrace cut = group_block(0, 32, one_event_a_step(3), 32, TraceBudget{2 * kEvent + kEvent / 2});
    ASSERT_EQ(cut.steps.size(), 2u);
    ASSERT_EQ(cut.events.size(), 2u);
    EXPECT_EQ(cut.steps[1], (StepKey{1, 0}));
    EXPECT_EQ(cut.events[1].step, 1u);
    EXPECT_EQ(cut.end, TraceEnd::AfterLastStep);
}

// A first step too large for the budget is kept in part, its events in
// reading order: thread 0 alone loads 5 times at line 10 (5 one-lane events,
// occurrences 0..4, offsets 0, 4, ..., 16); room for 2 keeps offsets 0 and 4.
TEST(Grouping, AFirstStepLargerThanTheBudgetIsKeptInPart)
{
    Recorder rec;
    for (std::uint32_t i = 0; i < 5; ++i) rec.add(0, 10, Kind::Load, Space::Global, 4 * i);
    rec.key = {1, 0};
    rec.add(0, 11, Kind::Load, Space::Global, 0);
    const BlockTrace b = group_block(0, 32, rec.records, 32, TraceBudget{2 * kEvent + 7});
    ASSERT_EQ(b.steps.size(), 1u);
    ASSERT_EQ(b.events.size(), 2u);
    EXPECT_EQ(b.events[0].offset[0], 0u);
    EXPECT_EQ(b.events[1].offset[0], 4u);
    EXPECT_EQ(b.events[1].mask, 1u);
    EXPECT_EQ(b.end, TraceEnd::InLastStep);
}

// Each step also pays for a copy of shared memory: a declared array of 8
// elements and an extern one written up to byte 40 in 4-byte words (10
// elements) make 18 elements, at 16 bytes each 288 bytes a step. Two steps of
// one event each cost 2 * (event + 288): exactly that keeps both, a byte less
// keeps one.
TEST(Grouping, EachStepPaysForItsCopyOfSharedMemory)
{
    Recorder rec;
    rec.declare(0, 0, "tile", 4, 8);
    for (std::uint32_t s = 0; s < 2; ++s) {
        rec.key = {s, 0};
        rec.add(0, 12, Kind::Store, Space::Shared, 36, 4, 1);  // array 1, bytes 36..39: its 10th element
    }
    const std::uint64_t step_cost = kEvent + 18 * 16;
    EXPECT_EQ(group_block(0, 32, rec.records, 32, TraceBudget{2 * step_cost, 16}).steps.size(), 2u);
    const BlockTrace cut = group_block(0, 32, rec.records, 32, TraceBudget{2 * step_cost - 1, 16});
    EXPECT_EQ(cut.steps.size(), 1u);
    EXPECT_EQ(cut.end, TraceEnd::AfterLastStep);
}

// Where the recorder stopped early (records_cut), the barrier interval it
// stopped in is incomplete: three intervals, the third holding only threads
// 0..9's loads, analyse as the first two, whole. With one interval only, it
// is kept and said to be incomplete.
TEST(Grouping, RecordsCutLeaveTheIncompleteIntervalOut)
{
    std::vector<LaneRecord> records = one_event_a_step(2);
    for (std::uint32_t t = 0; t < 10; ++t) {
        LaneRecord r = records[t];
        r.epoch = 2;
        r.seq = 2;  // the thread's third record
        records.push_back(r);
    }
    const BlockAnalysis a = analyze_block(records, 0, 32, nullptr, 32, true);
    EXPECT_EQ(a.block.steps.size(), 2u);
    EXPECT_EQ(a.steps.size(), 2u);
    EXPECT_EQ(a.block.end, TraceEnd::AfterLastStep);
    const BlockAnalysis uncut = analyze_block(records, 0, 32, nullptr, 32, false);
    EXPECT_EQ(uncut.block.steps.size(), 3u);
    EXPECT_EQ(uncut.block.end, TraceEnd::Whole);
    const BlockAnalysis one = analyze_block(one_event_a_step(1), 0, 32, nullptr, 32, true);
    EXPECT_EQ(one.block.steps.size(), 1u);
    EXPECT_EQ(one.block.end, TraceEnd::InLastStep);
}

}  // namespace
