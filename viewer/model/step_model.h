// What the viewer shows of one step of a traced block, derived from its warp
// events. Pure functions over the trace (no ImGui, no SDL), so that tests can
// check them and every panel reads the same derivation.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "warplab/trace/analysis.h"
#include "warplab/trace/bank_playground.h"
#include "warplab/trace/events.h"

namespace warplab::viewer {

using wl::trace::BlockTrace;
using wl::trace::kMaxWarpSize;
using wl::trace::WarpEvent;

// ---- threads and warps ----

enum class LaneState : std::uint8_t { Absent, Idle, Active };

struct BlockActivity {
    std::uint32_t warps = 0;
    std::uint32_t warp_size = wl::trace::kDefaultWarpSize;  // the trace's: lanes a row
    std::vector<LaneState> lanes;        // warps * warp_size entries; thread t at index t
    std::vector<std::uint8_t> partial;   // per warp: an access by some, not all, of its lanes
};
// Active = the thread did work in the step (wl::trace::is_work), the rule the
// metrics' active threads and partial warps are counted by.
BlockActivity block_activity(const BlockTrace& block, std::uint32_t step);

// Indices into block.events of the step's events, in trace order.
struct EventRange {
    std::size_t begin = 0, end = 0;
};
EventRange step_events(const BlockTrace& block, std::uint32_t step);

// A load, store or atomic (wl::trace::is_memory) in a memory space.
bool is_memory_access(const WarpEvent& e);

// The step's loads, stores and atomics in one memory space, in trace order.
std::vector<std::size_t> memory_events(const BlockTrace& block, std::uint32_t step, wl::trace::Space space);

// The shared-memory instruction shown first: the step's worst bank conflict
// (the first of equals), optionally only among one warp's instructions.
std::optional<std::size_t> worst_shared_event(const BlockTrace& block, std::uint32_t step,
                                              std::optional<std::uint32_t> warp = std::nullopt);
// The global instruction shown first: the step's most sectors per request, or
// the atomic of that instruction's line (line_atomic).
std::optional<std::size_t> worst_global_event(const BlockTrace& block, std::uint32_t step,
                                              std::optional<std::uint32_t> warp = std::nullopt);
// What a panel shows for memory event `event` of a step: the same warp's atomic
// at the same source line where there is one, else `event`. On a line such as
// atomicAdd(out, in[i]) the atomic is what the line does; its load of in[i] is
// a plain read that feeds it, and counts more sectors only because the atomic's
// cost (lanes updating one address in turn) is not in sectors.
std::size_t line_atomic(const BlockTrace& block, std::uint32_t step, std::size_t event);

// ---- shared memory banks of one instruction ----

using wl::trace::kBanks;

// The bank model's own detail (cost, ways per bank, lanes per word), and the
// rows of 32 words it touches; nothing here is counted twice.
struct BankView : wl::trace::BankDetail {
    std::uint8_t array = 0;
    std::vector<std::uint64_t> rows;  // word / 32 of each row touched, ascending
};
BankView bank_view(const WarpEvent& e);
BankView bank_view(const wl::trace::BankDetail& detail, std::uint8_t array = 0);

// The compact form of a high-degree conflict: one row per bank the
// instruction touches, the most wavefronts first (then by bank number).
struct BankRow {
    unsigned bank = 0;
    std::uint32_t ways = 0;   // wavefronts this bank needs (its phase's distinct words)
    std::uint32_t words = 0;  // distinct words of this bank the instruction touches
    std::vector<unsigned> lanes;  // lanes served by this bank, ascending
};
std::vector<BankRow> bank_rows(const BankView& v);
// 8-way and up: 32 rows of 32 words no longer fit legibly; the rows do.
constexpr double kCompactBankWays = 8;

// The bank playground page: a pattern analysed by the core (the labs' own
// grouping and bank model), and the same picture as a traced instruction's.
struct PlaygroundView {
    wl::trace::BankPlayground play;
    BankView banks;
};
PlaygroundView playground_view(const wl::trace::BankPattern& pattern);

// ---- global memory sectors of one instruction ----

struct SectorView {
    wl::trace::SectorCost cost;
    std::vector<std::uint64_t> sectors;                          // distinct 32-byte sectors, ascending
    std::array<std::vector<std::uint32_t>, kMaxWarpSize> lane_sectors;  // per lane: indices into sectors
};
SectorView sector_view(const WarpEvent& e);

// ---- shared values and the data flow of a step (the tree picture) ----

struct Flow {
    std::uint32_t thread = 0;
    std::uint64_t from = 0, to = 0;  // element indices: the thread read `from` and wrote `to`
};

// A write is fed by the thread's reads since its previous write (a tree level
// reads two values and writes one). A thread that read more than
// kMaxFlowSources distinct elements before writing was computing, not
// folding (a matmul tile), and gets no arrows.
constexpr std::size_t kMaxFlowSources = 3;

// The elements [first, last) of an array that one lane's access of `size`
// bytes at `offset` covers: an ld.shared.v4 of floats covers four. Clipped to
// the array's `count` elements.
struct Covered {
    std::uint64_t first = 0, last = 0;
};
Covered covered_elements(std::uint64_t offset, unsigned size, std::uint32_t elem_size, std::uint64_t count);

struct ArrayStep {
    std::vector<Flow> flows;
    std::vector<std::uint8_t> read, written;  // per element, in this step
};
ArrayStep array_step(const BlockTrace& block, std::uint32_t step, std::uint8_t array, std::uint32_t elem_size,
                     std::size_t count);

// The shared arrays to draw: as declared, or as seen in the events when the
// backend recorded no declaration.
std::vector<wl::trace::SharedArrayInfo> shared_arrays(const BlockTrace& block);

// ---- one thread ----

struct Access {
    wl::trace::Kind kind{};
    wl::trace::Space space{};
    std::uint8_t array = 0, size = 0;
    std::uint64_t offset = 0;
    std::array<std::uint64_t, 2> value{};
    std::uint32_t line = 0;
};
std::vector<Access> thread_accesses(const BlockTrace& block, std::uint32_t step, std::uint32_t thread);

// ---- what each thread writes to global memory over the whole trace ----
// For a matrix multiply, the C elements each thread owns. Elements are counted
// in the lab's element type (a 16-byte store of floats writes four). The tile
// is two-dimensional when the lab gives the output's row length (pitch), or
// when the elements fall in equal runs at a constant distance.

struct OutputTile {
    std::uint8_t array = 0;  // kernel argument position
    std::vector<std::pair<std::uint64_t, std::uint32_t>> owners;  // element index -> writing thread, ascending
    std::uint64_t pitch = 0;  // elements from one row to the next; 0 when one-dimensional
    std::uint64_t first_row = 0, first_col = 0, rows = 1, cols = 0;  // the bounding box, in rows and columns of pitch
    std::uint64_t row_of(std::uint64_t elem) const { return pitch ? elem / pitch : 0; }
    std::uint64_t col_of(std::uint64_t elem) const { return pitch ? elem % pitch : elem; }
};
// elem_size: bytes of the lab's element type; pitch_hint: the output's row length in elements, 0 if unknown.
std::optional<OutputTile> output_tile(const BlockTrace& block, unsigned elem_size, std::uint64_t pitch_hint = 0);
std::vector<std::uint64_t> owned_elements(const OutputTile& tile, std::uint32_t thread);

// Value bytes as a number of the lab's element type ("int", "float", "double"...).
double value_as(const std::array<std::uint64_t, 2>& value, unsigned size, const std::string& type);
double value_as(std::uint64_t bits, unsigned size, const std::string& type);

}  // namespace warplab::viewer
