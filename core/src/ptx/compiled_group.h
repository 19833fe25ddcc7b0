// The fast engine's interface between the interpreter and a kernel compiled to
// host code (interp_compiled.cpp writes the code; the host compiler builds it).
// The compiled code includes this header and values.h, nothing else of
// warplab's, so the two sides agree on this struct by construction.
//
// A compiled kernel runs one group of a warp pass (the lanes of a warp at one
// pc) as the interpreter's run_group does: the register forms of ops.def and
// the branches, barriers and budget in its own code, every other instruction
// through `step`, which runs it in the interpreter for the executing lanes.
#pragma once
#include <cstddef>
#include <cstdint>

namespace wl::ptx::detail {

struct LaneRun;  // a lane's interpreter state (interp.h), which the compiled code never reads

// One lane of a warp-major pass (Interpreter::run_warp): the compiled code
// reads the pass's lanes where the interpreter keeps them.
struct PassLane {
    LaneRun* run;
    std::uint64_t* r;      // its register slots
    unsigned char* param;  // its parameter space
    unsigned flat;         // its index in the block
};

struct CompiledGroup {
    const PassLane* pass;              // the pass's lanes: bit k of a lane mask is pass[k]
    std::uint64_t lanes;               // in: the group; out: the lanes to go on in the interpreter
    std::size_t pc;                    // in: where it starts; out: where the interpreter goes on
    std::uint64_t* lane_instructions;  // the host thread's count (emu::detail::tls_lane_instructions)
    std::uint64_t* budget_used;        // the warp's instructions, counted at backward branches
    std::uint64_t max_instructions;
    void* host;
    // The instruction at `at`, for the lanes `exec` of `*live`, as the interpreter
    // runs it; returns where the group goes on (*live: the lanes that do).
    std::size_t (*step)(void* host, std::size_t at, std::uint64_t exec, std::uint64_t* live);
    // Lanes a branch at `at` sends to `target` wait their turn as a group.
    void (*diverge)(void* host, std::size_t target, std::uint64_t lanes);
    // bar.sync at `at`: the lanes `exec` arrive.
    void (*arrive)(void* host, std::size_t at, std::uint64_t exec);
    // The budget ran out at the backward branch at `at` (never returns).
    void (*budget_spent)(void* host, std::size_t at, std::uint64_t exec);
};

// A compiled kernel: true when the interpreter must go on with the group at
// (pc, lanes) (a pc the compiled code has no entry for); false when the group's
// lanes all wait or ended.
using CompiledKernel = bool (*)(CompiledGroup& g);

}  // namespace wl::ptx::detail
