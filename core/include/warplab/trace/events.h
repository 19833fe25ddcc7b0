// Warp-level events: the lanes of one warp that did the same access.
//
// Grouping rule (the same for every backend): within one block, one warp and
// one step, the k-th record of lane a at source site S belongs to the same
// event as the k-th record of lane b at S. This is SIMT's view of an
// instruction: after a divergent branch reconverges, lanes meet again at the
// same site, however many accesses each made on its own path.
#pragma once
#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "warplab/trace/mix.h"
#include "warplab/trace/record.h"

namespace wl::trace {

// The warp width is the trace's own (BlockTrace::warp_size): 32, NVIDIA's
// warp, by default; 64 for AMD's wavefront. Lane masks and per-lane arrays
// hold the widest; lanes at and beyond a trace's width are never active.
constexpr unsigned kDefaultWarpSize = 32;
constexpr unsigned kMaxWarpSize = 64;
constexpr bool valid_warp_size(unsigned width) { return width == 32 || width == 64; }
// Why a front end cannot run warps of `width` lanes, one line; empty where it can.
inline std::string warp_size_refusal(unsigned width)
{
    if (valid_warp_size(width)) return {};
    return "warp size " + std::to_string(width) + ": a warp is 32 lanes (NVIDIA's) or 64 (an emulated AMD wavefront)";
}
// What front ends call a run's warps wherever they are not NVIDIA's (tables'
// headings, status lines, the grade report): empty at 32.
inline std::string warp_width_label(unsigned width) { return width == 64 ? "emulated 64-wide wavefront" : ""; }

using LaneMask = std::uint64_t;
// Lanes 0..n-1.
constexpr LaneMask first_lanes_mask(unsigned n) { return n >= 64 ? ~LaneMask(0) : (LaneMask(1) << n) - 1; }
// Calls f(lane) for each lane of the mask, ascending.
template <class F>
void for_each_lane(LaneMask mask, F f)
{
    for (; mask; mask &= mask - 1) f(static_cast<unsigned>(std::countr_zero(mask)));
}

struct Site {
    std::uint32_t file_hash = 0;
    std::uint32_t line = 0;
    bool operator==(const Site&) const = default;
    auto operator<=>(const Site&) const = default;
};

// One step of the algorithm as a student sees it: a barrier interval of the
// block, and inside it each warp-collective interval.
struct StepKey {
    std::uint32_t epoch = 0;
    std::uint32_t sub = 0;
    bool operator==(const StepKey&) const = default;
    auto operator<=>(const StepKey&) const = default;
};

struct WarpEvent {
    std::uint32_t block = 0;
    std::uint32_t warp = 0;
    std::uint32_t step = 0;  // dense index into the block's sorted step keys
    StepKey key;
    Site site;
    Kind kind = Kind::Load;
    Space space = Space::None;
    std::uint8_t size = 0;
    std::uint8_t array = 0;
    LaneMask mask = 0;        // active lanes
    LaneMask existing = 0;    // lanes that exist in this warp (block size may be partial)
    std::array<std::uint64_t, kMaxWarpSize> offset{};
    std::array<std::array<std::uint64_t, 2>, kMaxWarpSize> value{};
    bool operator==(const WarpEvent&) const = default;
};

struct SharedArrayInfo {
    std::uint8_t id = 0;
    std::string name;        // up to 16 characters, as declared
    std::uint32_t elem_size = 0;
    std::uint64_t count = 0;
    std::uint32_t line = 0;
    std::string file;  // the file that declares it, where not the kernel's own (a base name: "tiles.cuh")
    // The element type the source declares it with ("unsigned long long"; a
    // template's T as the run's type), where wl::ptx::declare_array_types
    // found one; elem_size and count are then in it. Empty: unknown, and
    // elem_size is the trace's guess (the kernel's narrowest shared access).
    std::string type;
    // An array declared with two or more dimensions, with a known type: its extents as
    // declared ({8, 8} of `float Mds[TILE][TILE]`), whose product is count. Empty otherwise.
    std::vector<std::uint64_t> dims;
    bool operator==(const SharedArrayInfo&) const = default;
};

// How every front end names an array: "unsigned long long landed[8]" where
// its type is known, "float Mds[8][8]" with its declared dimensions,
// "landed[16]" where elem_size is the trace's guess.
std::string array_text(const SharedArrayInfo& a);

// Where a block's trace ends: with the block's run, or before it because the
// records or the trace reached their memory cap (the block ran on).
enum class TraceEnd : std::uint8_t {
    Whole,
    AfterLastStep,  // the steps shown are whole; later ones are not shown
    InLastStep,     // the last step shown holds only its first events
};

struct BlockTrace {
    std::uint32_t block = 0;
    std::uint32_t threads = 0;               // threads in the block
    std::uint32_t warp_size = kDefaultWarpSize;  // lanes a warp: thread t is lane t % warp_size of warp t / warp_size
    std::vector<StepKey> steps;              // sorted; index = WarpEvent::step
    std::vector<WarpEvent> events;           // sorted by (step, first appearance)
    std::vector<SharedArrayInfo> shared_arrays;
    // The instruction mix (mix.h), by step and warp; empty where the backend
    // did not count (the GPU trace). Instructions of a step with no access of
    // its own (after a block's last barrier, say) count in the step before.
    std::vector<MixCount> mix;
    TraceEnd end = TraceEnd::Whole;
};

// The warps of a block, the last one perhaps partial.
inline std::uint32_t warps_of(const BlockTrace& b) { return (b.threads + b.warp_size - 1) / b.warp_size; }
// The thread that is lane `lane` of the event's warp.
inline std::uint32_t thread_of(const BlockTrace& b, const WarpEvent& e, unsigned lane) { return e.warp * b.warp_size + lane; }

// The memory a block's trace may take: its events (a WarpEvent holds every
// lane's offset and value, 1.6 KB however few lanes are active) and, for each
// step, `per_shared_element` bytes per element of the block's shared memory
// (a front end keeps shared memory's contents after every step).
struct TraceBudget {
    std::uint64_t bytes = UINT64_MAX;
    std::uint64_t per_shared_element = 0;
};

// Groups one block's lane records (any order) into warp events of
// `warp_size` lanes (valid_warp_size; std::invalid_argument otherwise).
// Steps are taken in order while they fit the budget; the first that does
// not ends the trace (TraceEnd::AfterLastStep), or, when it is the first
// step, is kept in part (TraceEnd::InLastStep).
BlockTrace group_block(std::uint32_t block, std::uint32_t threads_in_block, std::vector<LaneRecord> records,
                       unsigned warp_size = kDefaultWarpSize, const TraceBudget& budget = {});

// Groups records of any number of blocks; result ordered by block.
std::vector<BlockTrace> group_records(const std::vector<LaneRecord>& records, std::uint32_t threads_in_block,
                                      unsigned warp_size = kDefaultWarpSize);

}  // namespace wl::trace
