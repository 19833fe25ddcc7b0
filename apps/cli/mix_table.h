// The instruction mix as `warplab trace --mix` prints it (warplab/trace/mix.h).
#pragma once
#include <string>

#include "warplab/trace/events.h"

namespace warplab::cli {

// One row a step and a total: the block's warp instructions in each class
// that has any (all warps together), each class's share of the whole, and a
// line saying what is counted. Where the backend did not count (the GPU
// trace), one line saying so.
std::string mix_table(const wl::trace::BlockTrace& block);

}  // namespace warplab::cli
