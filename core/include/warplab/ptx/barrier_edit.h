// "What if this barrier were gone": a module's PTX with the barriers of one
// source line removed, the rest unchanged, for a rerun that shows what the
// barrier was there for (a race it opens, a wrong result, or nothing).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wl::ptx {

struct BarrierEdit {
    std::string ptx;       // the text, each removed barrier blanked (line numbers kept)
    unsigned removed = 0;  // barrier instructions removed
    // Every line of the file that has a barrier, ascending: what a front end
    // offers, and names when `line` has none.
    std::vector<std::uint32_t> barrier_lines;
};

// Removes the block and warp barriers (bar.sync, barrier.sync, bar.warp.sync:
// __syncthreads(), __syncwarp(), cooperative groups' sync()) whose source
// line, the innermost frame outside the CUDA toolkit's headers as the
// interpreter names an instruction's line, is `line` of `file` (matched by
// its file name: "03_sequential_addressing.cuh"). Reductions over a barrier
// (bar.red: __syncthreads_count) and arrivals stay: they give values or pair
// with a wait. Reads only what statements.h reads; throws nothing.
BarrierEdit without_barriers(std::string_view ptx, std::string_view file, std::uint32_t line);

}  // namespace wl::ptx
