// One block of a run's trace, grouped into warp events and analysed step by
// step: the one post-processing path of every front end (CLI, viewer, tests,
// grader).
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "warplab/trace/analysis.h"
#include "warplab/trace/events.h"
#include "warplab/trace/machine_code.h"
#include "warplab/trace/record.h"

namespace wl::trace {

struct BlockAnalysis {
    BlockTrace block;
    std::vector<StepMetrics> steps;
    Totals totals;
    std::vector<SharedSnapshot> shared_after;  // shared memory's values after each step
    // Whether shared accesses are counted per machine instruction (a machine-code
    // listing was given), or per PTX instruction.
    bool per_machine_instruction = false;
};

// The memory a front end's analysis of one block may take at most (its
// events and per-step copies of shared memory): 256 MiB. With the emulator's
// cap on the records (384 MiB), a trace of any length peaks under 1 GB in the
// CLI (tests/matmul/test_matmul_record_cap.cpp).
inline constexpr std::uint64_t kAnalysisBytes = std::uint64_t(256) << 20;

// Block `block`'s records among a run's (which may hold other watched blocks),
// analysed: with `code`, shared accesses as the machine executes them
// (as_machine_instructions); without, as the PTX has them. Warps are
// `warp_size` lanes wide, as the run's were. `records_cut`: the recorder
// stopped before the block ended, so the last barrier interval it reached is
// incomplete and is left out where an earlier one exists (BlockTrace::end
// says where the trace ends). At most `budget_bytes` are analysed.
BlockAnalysis analyze_block(std::vector<LaneRecord> records, std::uint32_t block, std::uint32_t threads_in_block,
                            const MachineCode* code = nullptr, unsigned warp_size = kDefaultWarpSize, bool records_cut = false,
                            std::uint64_t budget_bytes = kAnalysisBytes);
// The same, with name_arrays(block) called before shared memory's values are
// replayed (a front end gives the shared arrays their declared types there:
// wl::ptx::declare_array_types), so that they are replayed once, in those types.
BlockAnalysis analyze_block(std::vector<LaneRecord> records, std::uint32_t block, std::uint32_t threads_in_block,
                            const MachineCode* code, unsigned warp_size, bool records_cut,
                            const std::function<void(BlockTrace&)>& name_arrays, std::uint64_t budget_bytes = kAnalysisBytes);

// The one line a front end shows when the counts are per PTX instruction.
inline constexpr const char* kPerPtxInstructionNote =
    "shared accesses counted per PTX instruction: no machine code of this kernel (ptxas may merge some into wider ones)";

}  // namespace wl::trace
