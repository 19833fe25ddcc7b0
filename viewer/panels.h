// One function per panel, each over the one app state.
#pragma once
#include "viewer/app.h"

namespace warplab::viewer {

void header_panel(App& app);         // lab and run settings; in presenter mode the version and a big step counter
void versions_panel(App& app);       // the lab's versions with their ideas; what changed in the selected one
void source_panel(App& app);         // the kernel source: changed lines, the step's lines
void steps_panel(App& app);          // previous/next, play/pause, speed, slider
void threads_panel(App& app);        // every thread of the block, by warp: active, idle, partially-active warps
void shared_values_panel(App& app);  // the shared arrays' values and the step's reads -> writes (the tree)
void banks_panel(App& app);          // one instruction's lanes over the 32 banks, n-way conflicts
void global_panel(App& app);         // one instruction's lanes over 32-byte sectors
void metrics_panel(App& app);        // the per-step table and every version's totals
void time_panel(App& app);           // measured times: this version beside the previous one, and the reference
void coalescing_panel(App& app);     // coalescing lab: sectors/request and GB/s over the setting, a slider to re-trace
void bank_playground_panel(App& app);  // the bank playground page: a pattern's lanes over the 32 banks
void timeline_panel(App& app);      // transfers lab: each recorded run as a Gantt chart, one row per engine per GPU
void occupancy_panel(App& app);     // registers, shared memory, resident warps per SM; what-if sliders
void status_panel(App& app);         // where the trace came from, and what went wrong

// The 32-bank picture of one instruction (the banks panel and the bank playground draw it).
struct BankView;
void bank_picture(App& app, const BankView& v);

// The status line's text: the trace's source and result, or the error.
std::string status_text(App& app);
std::string warning_text(App& app);  // empty: the run raised no warning

// All panels of the current layout, in order; computes the layout first.
void draw_frame(App& app);

}  // namespace warplab::viewer
