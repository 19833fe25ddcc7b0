// One function per panel, each over the one app state.
#pragma once
#include "viewer/app.h"

namespace warplab::viewer {

// One function per panel of the list in viewer/layout.h: void header_panel(App& app), ...
#define WARPLAB_PANEL_FUNCTION(id, name, draw, what) void draw(App& app);
WARPLAB_VIEWER_PANELS(WARPLAB_PANEL_FUNCTION)
#undef WARPLAB_PANEL_FUNCTION

// The 32-bank picture of one instruction (the banks panel and the bank playground draw it).
struct BankView;
void bank_picture(App& app, const BankView& v);

// The status line's text: the trace's source and result, or the error.
std::string status_text(App& app);
std::string warning_text(App& app);  // empty: the run raised no warning

// All panels of the current layout, in order; computes the layout first.
void draw_frame(App& app);

}  // namespace warplab::viewer
