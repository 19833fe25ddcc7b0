// One function per panel, each over the one app state.
#pragma once
#include "viewer/app/app.h"

namespace warplab::viewer {

// One function per panel of the list in viewer/model/layout.h: void header_panel(App& app), ...
#define WARPLAB_PANEL_FUNCTION(id, name, draw, room, what) void draw(App& app);
WARPLAB_VIEWER_PANELS(WARPLAB_PANEL_FUNCTION)
#undef WARPLAB_PANEL_FUNCTION

// The 32-bank picture of one instruction (the banks panel and the bank playground draw it).
struct BankView;
void bank_picture(App& app, const BankView& v);

// The status line's text: the trace's source and result, or the error.
std::string status_text(App& app);
std::string warning_text(App& app);  // empty: the run raised no warning

// The recorded (or measured) table of the lab the time panel shows, if any (timing_model's default_table).
struct TimingTable;
const TimingTable* shown_table(const App& app);
// A lab of host programs (transfers) where there is no GPU: nothing runs here; its panels show the recording.
bool recording_only(const App& app);

// The lesson bar's height at a window width (its caption and question wrapped); 0 without a lesson.
float lesson_bar_height(App& app, float width);

// All panels of the current layout, in order; computes the layout first.
void draw_frame(App& app);
// After the last item: where the window shows its panels in turns
// (Layout::views), "V  step  memory  time", the shown one in colour; a
// click on a name shows it. Nothing where every panel fits at once.
void view_switch(App& app);

}  // namespace warplab::viewer
