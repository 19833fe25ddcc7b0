// Where each panel sits: a fixed layout computed from the window size, one for
// the desk and one for presenting. Tests read it back (--layout-json) to find
// a panel's pixels in a screenshot.
#pragma once
#include <array>
#include <map>
#include <string>

namespace warplab::viewer {

// Every panel, once: X(id, its name in the layout JSON, the function that
// draws it, what it shows). The Panel enum, the names, the declarations in
// viewer/panels.h and the frame's drawing order all come from this list.
// Drawing order matters once: the threads panel records the hovered thread
// that the shared-memory panels highlight.
#define WARPLAB_VIEWER_PANELS(X)                                                                                                  \
    X(Header, "header", header_panel, "lab and run settings; in presenter mode the version and a big step counter")               \
    X(Versions, "versions", versions_panel, "the lab's versions with their ideas; what changed in the selected one")               \
    X(Steps, "steps", steps_panel, "previous/next, play/pause, speed, slider")                                                    \
    X(Threads, "threads", threads_panel, "every thread of the block, by warp: active, idle, partially-active warps")              \
    X(SharedValues, "shared_values", shared_values_panel, "the shared arrays' values and the step's reads -> writes (the tree)")  \
    X(Banks, "banks", banks_panel, "one instruction's lanes over the 32 banks, n-way conflicts")                                 \
    X(Source, "source", source_panel, "the kernel source: changed lines, the step's lines")                                       \
    X(Global, "global", global_panel, "one instruction's lanes over 32-byte sectors")                                             \
    X(Metrics, "metrics", metrics_panel, "the per-step table and every version's totals")                                          \
    X(Time, "time", time_panel, "measured times: this version beside the previous one, and the reference")                        \
    X(Status, "status", status_panel, "where the trace came from, and what went wrong")                                           \
    X(BankPlayground, "bank_playground", bank_playground_panel, "the bank playground page: a pattern's lanes over the 32 banks")  \
    X(Coalescing, "coalescing", coalescing_panel,                                                                                 \
      "a lab's sweep (LabPanel::Sweep): sectors/request and GB/s over the setting, a slider to re-trace")                          \
    X(Occupancy, "occupancy", occupancy_panel, "registers, shared memory, resident warps per SM; what-if sliders")                \
    X(Timeline, "timeline", timeline_panel,                                                                                       \
      "a lab's timeline (LabPanel::Timeline): each recorded run as a Gantt chart, one row per engine per GPU")                    \
    X(Image, "image", image_panel, "the image lab (LabPanel::Image): the picture, the watched group's tile, the partials per pass")

#define WARPLAB_PANEL_ID(id, name, draw, what) id,
enum class Panel : int { WARPLAB_VIEWER_PANELS(WARPLAB_PANEL_ID) Count };
#undef WARPLAB_PANEL_ID
constexpr int kPanelCount = static_cast<int>(Panel::Count);

const char* panel_name(Panel p);  // "banks", as the layout JSON names it

struct Rect {
    float x = 0, y = 0, w = 0, h = 0;
};

struct Layout {
    std::array<Rect, kPanelCount> rects{};
    std::array<bool, kPanelCount> shown{};
    const Rect& operator[](Panel p) const { return rects[static_cast<int>(p)]; }
    bool has(Panel p) const { return shown[static_cast<int>(p)]; }
};

// header_h and status_h: heights of the top bar and the status line in
// pixels; steps_h: of the step controls (at the desk).
Layout desk_layout(float width, float height, float header_h, float status_h, float steps_h);
// step_reads_global: the step has global-memory accesses for its panel to draw.
Layout presenter_layout(float width, float height, float header_h, float status_h, bool step_reads_global = true);
// The bank playground page: the top bar and one panel.
Layout playground_layout(float width, float height, float header_h);
// A lab with a sweep (LabPanel::Sweep, the coalescing lab): its kernels use no
// shared memory, so the sweep panel takes the place of the shared-values and
// banks panels (where they are shown).
Layout sweep_layout(Layout l);
// A lab with a timeline (LabPanel::Timeline, the transfers lab): its versions are host programs with no trace, so the
// timeline takes the place of the step controls, threads, shared-values, banks
// and occupancy panels, and the time chart that of the metrics and global memory.
Layout timeline_layout(Layout l);
// The image lab (LabPanel::Image): its picture and partials take the place of
// the global-memory panel (the pixel loads are plain rows).
Layout image_layout(Layout l);

// Comparing warp widths (App::compare_widths): the threads panel holds two
// grids, so it takes the shared-values panel's place below it as well.
Layout compare_widths_layout(Layout l);

// Named rectangles drawn this frame inside panels ("banks.grid"), for tests.
using Regions = std::map<std::string, Rect>;

}  // namespace warplab::viewer
