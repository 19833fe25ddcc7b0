// Warp-level events: the lanes of one warp that did the same access.
//
// Grouping rule (the same for every backend): within one block, one warp and
// one step, the k-th record of lane a at source site S belongs to the same
// event as the k-th record of lane b at S. This is SIMT's view of an
// instruction: after a divergent branch reconverges, lanes meet again at the
// same site, however many accesses each made on its own path.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "warplab/trace/record.h"

namespace wl::trace {

constexpr unsigned kWarpSize = 32;

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
    std::uint32_t mask = 0;        // active lanes
    std::uint32_t existing = 0;    // lanes that exist in this warp (block size may be partial)
    std::array<std::uint64_t, kWarpSize> offset{};
    std::array<std::array<std::uint64_t, 2>, kWarpSize> value{};
    bool operator==(const WarpEvent&) const = default;
};

struct SharedArrayInfo {
    std::uint8_t id = 0;
    std::string name;        // up to 16 characters, as declared
    std::uint32_t elem_size = 0;
    std::uint64_t count = 0;
    std::uint32_t line = 0;
};

struct BlockTrace {
    std::uint32_t block = 0;
    std::uint32_t threads = 0;               // threads in the block
    std::vector<StepKey> steps;              // sorted; index = WarpEvent::step
    std::vector<WarpEvent> events;           // sorted by (step, first appearance)
    std::vector<SharedArrayInfo> shared_arrays;
};

// Groups one block's lane records (any order) into warp events.
BlockTrace group_block(std::uint32_t block, std::uint32_t threads_in_block, std::vector<LaneRecord> records);

// Groups records of any number of blocks; result ordered by block.
std::vector<BlockTrace> group_records(const std::vector<LaneRecord>& records, std::uint32_t threads_in_block);

}  // namespace wl::trace
