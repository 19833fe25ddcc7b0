// Per-step metrics from warp events. Pure functions: no
// backend, no I/O. Each consumer (bank model, coalescing, divergence) is a
// separate small function over the same events.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "warplab/trace/events.h"

namespace wl::trace {

// ---- which lanes count as active ----
// A lane is active in a step when it did work there: a load, store or atomic,
// a shuffle or a vote (a barrier or __syncwarp alone is not work). The step
// metrics, the viewer's thread grid and the grader all count by this rule.
// (is_work(kind): kinds.h.)
inline bool lane_active(LaneMask mask, unsigned lane) { return lane < 64 && ((mask >> lane) & 1u); }
// The lanes of an event that did work: its mask, or 0 when the event is no work.
LaneMask working_lanes(const WarpEvent& e);
// A warp is partially active at a work event whose active lanes are fewer than the lanes it has.
bool partially_active(const WarpEvent& e);

// ---- hardware model: shared memory banks (32 banks x 4 bytes) ----
// Word w (byte offset / 4) lives in bank w % 32. A warp instruction is served
// in phases: a wavefront returns 128 bytes of registers, so the whole warp for
// accesses of up to 4 bytes, a half-warp for 8 bytes, a quarter-warp for 16.
// A load whose lanes agree in pairs (every active lane l reads what lane l ^ 1,
// active too, reads, or what lane l ^ 2 reads: a broadcast is one such)
// has its registers packed two lanes to a slot and is served twice as many
// lanes a phase (as an NVIDIA engineer describes it on the NVIDIA Developer
// Forums, "Unexpected shared memory bank conflict"; Nsight Compute's counts on
// an H100 agree, results/fidelity: LDS.128 of matmul v3, v6, v7 and v8's A
// tile, pairs agreeing, 2 wavefronts; v8's B tile, lanes l and l + 4 agreeing,
// 4). A phase takes as many wavefronts as the most distinct words one bank
// must deliver; lanes touching the same word share it (broadcast).
//
// A warp wider than the banks (AMD's 64-lane wavefront) is served one 32-lane
// half at a time, each half by the rule above on its own, and its costs add.
// AMD's "AMD Accelerated Parallel Processing OpenCL Programming Guide" says so
// of GCN's local data share (32 banks of 4 bytes, as here): conflicts are
// checked per half-wavefront, lanes 0-31 and lanes 32-63 apart. At 32 lanes
// the whole warp is one half.
constexpr unsigned kBanks = 32;
constexpr unsigned kBankWidth = 4;
constexpr unsigned kBankLanes = 32;  // lanes the banks check together: a warp, or half a wavefront

// Each lane's byte offset, lane i at [i]; the lanes of a warp of any width
// (a WarpEvent's offset, or 32 of them). Lanes of the mask beyond it are ignored.
using LaneOffsets = std::span<const std::uint64_t>;

// Lanes of one 32-lane half served together: 32, 16 or 8 (see above).
unsigned lanes_per_phase(LaneMask mask, LaneOffsets offset, unsigned size, Kind kind = Kind::Load);

struct BankCost {
    std::uint32_t wavefronts = 0;  // actual
    std::uint32_t ideal = 0;       // minimum for this access and lane count: one per phase with an active lane
    // n-way = wavefronts / ideal (>= 1); 0 when no lane is active
    double ways() const { return ideal ? double(wavefronts) / ideal : 0.0; }
};
// offsets are byte offsets of each active lane (mask) from a 4-byte aligned base;
// size is 1, 2, 4, 8 or 16 bytes; kind Load or Store (an atomic counts as a store).
BankCost shared_bank_cost(LaneMask mask, LaneOffsets offset, unsigned size, Kind kind = Kind::Load);

// The same model, with what a picture of the instruction needs.
struct BankDetail {
    BankCost cost;
    // Per bank: the distinct words it delivers to the phase that needs most
    // from it (0: untouched, 1: no conflict, n: n wavefronts for that phase).
    std::array<std::uint32_t, kBanks> ways{};
    std::map<std::uint64_t, std::vector<unsigned>> lanes_by_word;  // 4-byte word -> the lanes touching it, ascending
};
BankDetail shared_bank_detail(LaneMask mask, LaneOffsets offset, unsigned size, Kind kind = Kind::Load);

// ---- hardware model: global memory sectors (32 bytes) ----
// One request a warp instruction, whatever its width: the sectors its active lanes' bytes touch.
struct SectorCost {
    std::uint32_t sectors = 0;  // distinct 32-byte sectors touched by the active lanes
    std::uint32_t ideal = 0;    // ceil(bytes requested / 32), bytes of distinct addresses
};
SectorCost global_sector_cost(LaneMask mask, LaneOffsets offset, unsigned size);

// ---- hardware model: constant memory ----
// The constant cache gives one address to the whole warp at a time: a warp
// instruction whose lanes read n different addresses is served n times over,
// serialised ("a request is split into as many separate requests as there are
// different memory addresses in the initial request": NVIDIA, "CUDA C++
// Programming Guide", Constant Memory). A warp-uniform index reads one.
std::uint32_t constant_addresses(LaneMask mask, LaneOffsets offset);

struct ConstantStats {
    std::uint32_t requests = 0;   // warp instructions that load constant memory
    std::uint32_t addresses = 0;  // their distinct addresses, summed: the requests the cache serves
    std::uint32_t worst = 0;      // the most distinct addresses of one instruction (n-way; 0 if none)
};

struct SharedStats {
    std::uint32_t requests = 0;    // warp instructions
    std::uint32_t wavefronts = 0;
    std::uint32_t ideal = 0;
    double worst_ways = 0;         // worst n-way of any instruction (0 if none)
};

struct GlobalStats {
    std::uint32_t requests = 0;
    std::uint32_t sectors = 0;
    std::uint32_t ideal = 0;
    double sectors_per_request() const { return requests ? double(sectors) / requests : 0.0; }
};

struct StepMetrics {
    std::uint32_t step = 0;
    StepKey key;
    std::vector<std::uint32_t> lines;   // distinct source lines of the step's work, ascending
    std::uint32_t active_threads = 0;   // threads that did work (memory, shuffle, vote)
    std::uint32_t active_warps = 0;
    std::uint32_t partial_warps = 0;    // warps with an event whose mask < existing lanes
    SharedStats shared_load, shared_store;  // atomics count as stores
    GlobalStats global_load, global_store;
    std::vector<double> shared_load_ways;   // n-way of each shared load instruction, event order
    ConstantStats constant_load;           // __constant__ loads and their serialisation
    bool has_barrier_end = false;          // step ended at __syncthreads()
    std::uint32_t collectives = 0;          // warp collective events (shuffle, vote, syncwarp)
};

struct Totals {
    std::uint32_t steps = 0;
    SharedStats shared_load, shared_store;
    GlobalStats global_load, global_store;
    std::uint32_t partial_warp_steps = 0;  // sum over steps of partial_warps
    ConstantStats constant_load;
};

std::vector<StepMetrics> analyze_steps(const BlockTrace& block);
Totals totals(const std::vector<StepMetrics>& steps);

// Shared-memory contents after each step, replayed from the stores and atomics
// (value bytes of the last write to each element; nullopt = never written).
using SharedSnapshot = std::map<std::uint8_t, std::vector<std::optional<std::uint64_t>>>;
std::vector<SharedSnapshot> shared_contents(const BlockTrace& block);

}  // namespace wl::trace
