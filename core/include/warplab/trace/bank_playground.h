// The bank-conflict playground: one warp's shared-memory load, described by
// its pattern (element size, stride, offset, active lanes) instead of traced
// from a kernel. The pattern becomes the lane records that a kernel doing
//     T x = shared[offset + stride * lane];
// would leave, and those go through the same grouping and analysis as every
// lab's trace: the playground cannot disagree with the labs.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "warplab/trace/analysis.h"

namespace wl::trace {

// The playground's warp: one of the default width (NVIDIA's 32 lanes).
constexpr unsigned kPlaygroundLanes = kDefaultWarpSize;

struct BankPattern {
    unsigned size = 4;                 // bytes per element: 1, 2, 4, 8 or 16
    std::uint64_t stride = 1;          // elements from one lane to the next (0: every lane reads one element)
    std::uint64_t offset = 0;          // elements before lane 0's
    std::uint32_t mask = 0xFFFFFFFFu;  // active lanes
};

// Limits that keep every address small and every picture drawable.
constexpr std::uint64_t kMaxPlaygroundStride = 1024, kMaxPlaygroundOffset = 1024;

// What is wrong with an element size, in one line, or nullopt for 1, 2, 4, 8 or 16 bytes.
std::optional<std::string> element_size_problem(std::uint64_t size);
// What is wrong with a pattern, in one line ("size 3: ..."), or nullopt when it is valid.
std::optional<std::string> pattern_problem(const BankPattern& p);

// The first `count` lanes (0..kPlaygroundLanes).
std::uint32_t first_lanes(unsigned count);

struct PlaygroundLane {
    bool active = false;
    std::uint64_t address = 0;      // byte offset of the element
    std::uint64_t first_word = 0;   // the 4-byte words it covers: first_word .. last_word
    std::uint64_t last_word = 0;
    unsigned bank() const { return unsigned(first_word % kBanks); }
    unsigned last_bank() const { return unsigned(last_word % kBanks); }
};

struct BankPlayground {
    BankPattern pattern;
    std::array<PlaygroundLane, kPlaygroundLanes> lanes{};
    WarpEvent event;         // the load as the trace groups it
    SharedStats load;        // the step's shared loads as analyze_steps counts them: one request
    BankDetail detail;       // per bank, per word: the picture of the same event
    unsigned phase_lanes = kPlaygroundLanes;  // lanes served together (lanes_per_phase: 32, 16 or 8)
};

// Throws std::invalid_argument with pattern_problem's text for an invalid pattern.
BankPlayground bank_playground(const BankPattern& p);

// Named patterns worth looking at, with the answer derived in the description.
struct BankPreset {
    const char* name;
    const char* description;
    BankPattern pattern;
};
const std::vector<BankPreset>& bank_presets();
const BankPreset* find_bank_preset(const std::string& name);

}  // namespace wl::trace
