// "What if this barrier were gone" for a lab's run: the module a launch runs
// with the barriers of one source line removed (wl::ptx::without_barriers).
#pragma once
#include <cstdint>
#include <string>

#include "warplab/ptx/ptx.h"

namespace warplab {

// `module` parsed again without the barriers at `line` of `file` (the
// version's, or the user's --file); `lab` names a lab's module, whose
// parameters then take the source's names as parse_lab_ptx gives them, and
// is empty for a user's. Throws std::invalid_argument in one line where the
// line has no barrier, naming the lines that have one.
wl::ptx::Module module_without_barrier(const wl::ptx::Module& module, const std::string& file, std::uint32_t line,
                                       const std::string& lab);

// What a front end says above a run without a barrier: "what if the barrier at
// line 28 of 05_unroll_last_warp.cuh were gone: a modified run (...)".
std::string without_barrier_title(const std::string& file, std::uint32_t line);

}  // namespace warplab
