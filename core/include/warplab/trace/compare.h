// Two traces of one problem side by side (two versions of a lab, or a
// version and the user's kernel in its launch): steps aligned by index, and
// which steps' accesses differ.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "warplab/trace/events.h"

namespace wl::trace {

// Per step, as many as the longer trace has: whether the two blocks' accesses
// in it differ. A step's accesses are its warp events of work (memory,
// shuffles, votes; not barriers) as a multiset of kind,
// space, array, size, active lanes and each active lane's offset; source
// lines and values are left out (two versions' lines differ, and their sums
// may while they touch the same words). A step only one trace has differs.
std::vector<bool> differing_steps(const BlockTrace& a, const BlockTrace& b);

// The first step whose accesses differ; nullopt where none does.
std::optional<std::uint32_t> first_differing_step(const std::vector<bool>& differing);

}  // namespace wl::trace
