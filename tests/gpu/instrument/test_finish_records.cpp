// The host half of the GPU trace, without a GPU: raw records as the
// instrumented kernel writes them (raw addresses) become the emulator's
// records (array, offset), with thread 0's declarations, in (block, thread,
// seq) order.
#include <gtest/gtest.h>

#include <cstring>

#include "ptx_instrument.h"

namespace {

using wl::cuda::detail::finish_records;
using wl::cuda::detail::LaunchFacts;
using wl::cuda::detail::PointerArg;
using wl::trace::Kind;
using wl::trace::LaneRecord;
using wl::trace::Space;

LaneRecord raw(std::uint32_t thread, std::uint32_t seq, Kind kind, Space space, std::uint64_t address)
{
    LaneRecord r{};
    r.block = 3;
    r.thread = thread;
    r.seq = seq;
    r.kind = kind;
    r.space = space;
    r.size = 4;
    r.offset = address;
    return r;
}

// A kernel with two shared arrays: sdata (1024 bytes of 4-byte elements) at
// window address 0 and flags (16 bytes, one 16-byte element) at 1024; and
// three parameters: in (pointer), out (pointer into the same allocation as
// in, 0x110 further on), n (not a pointer). One more allocation, at 0x5000,
// is nobody's argument.
struct Fixture {
    LaunchFacts facts;
    static constexpr std::uint64_t kIn = 0x7f0000000000, kOut = 0x7f0000000110, kEnd = 0x7f0000001000;
    Fixture()
    {
        facts.shared = {{0, 1024, 4, "sdata"}, {1024, 16, 16, "flags"}};
        facts.pointers = {PointerArg{0, kIn, kEnd}, PointerArg{1, kOut, kEnd}};
        facts.allocation_of = [](std::uint64_t a, std::uint64_t& base) {
            if (a < 0x5000 || a >= 0x6000) return false;
            base = 0x5000;
            return true;
        };
        facts.watched_blocks = {3};
    }
};

TEST(FinishRecords, SharedAddressesNameTheirVariable)
{
    Fixture f;
    // 1028 = flags (base 1024) + 4; 1020 = sdata + 1020 (its last word).
    auto out = finish_records({raw(5, 0, Kind::Load, Space::Shared, 1028), raw(5, 1, Kind::Store, Space::Shared, 1020)},
                              f.facts);
    ASSERT_EQ(out.size(), 4u);  // two declarations first (thread 0), then thread 5's records
    EXPECT_EQ(out[2].array, 1);
    EXPECT_EQ(out[2].offset, 4u);
    EXPECT_EQ(out[3].array, 0);
    EXPECT_EQ(out[3].offset, 1020u);
}

TEST(FinishRecords, GlobalAddressesNameTheClosestPointerBelowThem)
{
    Fixture f;
    // kIn + 0x20: only in lies at or below it -> array 0, offset 0x20 (+ kIn % 256 = 0).
    // kOut + 0x30: both lie below; out (0x110) is the larger -> array 1, offset
    // 0x30 + kOut % 256 = 0x30 + 0x10 = 0x40.
    // 0x5010: no parameter's memory, the allocation at 0x5000 -> array 0xFF,
    // offset 0x10 + 0x5000 % 256 = 0x10.
    // 0x1000: no allocation at all (as a cooperative launch's grid barrier
    // word) -> array 0xFF, as the emulator names memory outside the arguments, the raw address kept.
    auto out = finish_records({raw(7, 0, Kind::Load, Space::Global, Fixture::kIn + 0x20),
                               raw(7, 1, Kind::Store, Space::Global, Fixture::kOut + 0x30),
                               raw(7, 2, Kind::Load, Space::Global, 0x5010),
                               raw(7, 3, Kind::Load, Space::Global, 0x1000)},
                              f.facts);
    ASSERT_EQ(out.size(), 6u);
    EXPECT_EQ(out[2].array, 0);
    EXPECT_EQ(out[2].offset, 0x20u);
    EXPECT_EQ(out[3].array, 1);
    EXPECT_EQ(out[3].offset, 0x40u);
    EXPECT_EQ(out[4].array, 0xFF);
    EXPECT_EQ(out[4].offset, 0x10u);
    EXPECT_EQ(out[5].array, 0xFF);
    EXPECT_EQ(out[5].offset, 0x1000u);
    // Past the end of the arguments' allocation: not theirs either.
    auto past = finish_records({raw(7, 0, Kind::Load, Space::Global, Fixture::kEnd)}, f.facts);
    EXPECT_EQ(past.back().offset, Fixture::kEnd);
}

// Thread 0 declares the two arrays as its records 0 and 1 on the emulator, so
// its own first access is seq 2; other threads keep theirs.
TEST(FinishRecords, ThreadZeroDeclaresFirst)
{
    Fixture f;
    auto out = finish_records({raw(1, 0, Kind::SyncThreads, Space::None, 0), raw(0, 0, Kind::SyncThreads, Space::None, 0)},
                              f.facts);
    ASSERT_EQ(out.size(), 4u);
    EXPECT_EQ(out[0].kind, Kind::Declare);
    EXPECT_EQ(out[0].seq, 0u);
    EXPECT_EQ(out[0].block, 3u);
    EXPECT_EQ(out[0].size, 4);        // sdata: 4-byte elements
    EXPECT_EQ(out[0].offset, 256u);   // 1024 bytes / 4
    char name[17] = {};
    std::memcpy(name, out[0].value, 16);
    EXPECT_STREQ(name, "sdata");
    EXPECT_EQ(out[1].kind, Kind::Declare);
    EXPECT_EQ(out[1].array, 1);
    EXPECT_EQ(out[1].offset, 1u);     // 16 bytes / 16
    EXPECT_EQ(out[2].thread, 0u);
    EXPECT_EQ(out[2].seq, 2u);
    EXPECT_EQ(out[3].thread, 1u);
    EXPECT_EQ(out[3].seq, 0u);
}

TEST(FinishRecords, SortedByBlockThreadSeq)
{
    Fixture f;
    f.facts.watched_blocks = {};
    f.facts.shared.clear();
    std::vector<LaneRecord> in{raw(9, 4, Kind::Load, Space::None, 0), raw(2, 7, Kind::Load, Space::None, 0),
                               raw(9, 1, Kind::Load, Space::None, 0), raw(2, 3, Kind::Load, Space::None, 0)};
    in[0].block = 1;
    auto out = finish_records(in, f.facts);
    ASSERT_EQ(out.size(), 4u);
    EXPECT_EQ(out[0].block, 1u);
    EXPECT_EQ((std::pair{out[1].thread, out[1].seq}), (std::pair{2u, 3u}));
    EXPECT_EQ((std::pair{out[2].thread, out[2].seq}), (std::pair{2u, 7u}));
    EXPECT_EQ((std::pair{out[3].thread, out[3].seq}), (std::pair{9u, 1u}));
}

// The emulator's numbering and element sizes: statics in declaration order,
// then the dynamic area, only when the launch sizes it.
TEST(SharedSlots, StaticsThenTheDynamicArea)
{
    wl::ptx::KernelInfo k;
    // declared: dyn (extern, align 8), bytes (64 x 1, align 1), tile (96 bytes, align 16)
    k.shared = {{"dyn", 0, 8, true}, {"bytes", 64, 1, false}, {"tile", 96, 16, false}};
    wl::cuda::detail::InstrumentedPtx ptx;
    ptx.narrowest_shared_access = 4;  // the kernel's narrowest explicit shared access: 4 bytes
    const std::vector<std::uint32_t> bases{128, 0, 64};
    // tile: min(align 16, narrowest 4) = 4, and 4 divides 96. bytes: align 1.
    // dyn: min(8, 4) = 4; 40 bytes given -> 10 elements of 4; 42 bytes -> 4 does
    // not divide 42, 2 does: 21 elements of 2.
    auto slots = wl::cuda::detail::shared_slots(k, ptx, bases, 40);
    ASSERT_EQ(slots.size(), 3u);
    EXPECT_EQ(slots[0].name, "bytes");
    EXPECT_EQ(slots[0].elem, 1u);
    EXPECT_EQ(slots[1].name, "tile");
    EXPECT_EQ(slots[1].elem, 4u);
    EXPECT_EQ(slots[1].base, 64u);
    EXPECT_EQ(slots[2].name, "dyn");
    EXPECT_EQ(slots[2].bytes, 40u);
    EXPECT_EQ(slots[2].elem, 4u);
    EXPECT_EQ(wl::cuda::detail::shared_slots(k, ptx, bases, 42)[2].elem, 2u);
    EXPECT_EQ(wl::cuda::detail::shared_slots(k, ptx, bases, 0).size(), 2u);  // no dynamic bytes, no slot
}

}  // namespace
