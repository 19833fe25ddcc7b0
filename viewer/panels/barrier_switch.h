// "What if this barrier were gone" in the source panel: a switch at the end
// of each line that calls a barrier; switched off, the version's trace is the
// rerun without that line's barriers (App::sel.without_barrier, the CLI's
// trace --without-barrier), labelled as such, the kernel's own trace kept.
#pragma once
#include <cstdint>
#include <string_view>

#include <imgui.h>

#include "viewer/app/app.h"

namespace warplab::viewer {

// Whether a line of CUDA calls a barrier the switch can remove:
// __syncthreads(), __syncwarp() or a cooperative group's sync(); a comment
// that names one does not count. (The PTX says for sure: a line without one
// is refused in the status line.)
bool calls_barrier(std::string_view line);

// The switch of a line that calls a barrier, at the right end of its row
// (`row_min`, `row_max` on screen): "barrier" while on, "off" while off; a
// click flips it (toggle_barrier).
void barrier_switch(App& app, std::uint32_t line, ImVec2 row_min, ImVec2 row_max);
float barrier_switch_width();  // what it takes of the row's right end, in the current font

// Above the code while a line's barriers are off: that the trace is a
// modified run, and what followed (a fault, a wrong result, the same
// accesses as the kernel's own or how many steps); nothing while none is off.
void without_barrier_banner(App& app);

}  // namespace warplab::viewer
