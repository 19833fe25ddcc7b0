// Where each panel sits: a fixed layout computed from the window size, one for
// the desk and one for presenting. Tests read it back (--layout-json) to find
// a panel's pixels in a screenshot.
#pragma once
#include <array>
#include <map>
#include <string>

namespace warplab::viewer {

enum class Panel : int { Header, Versions, Source, Steps, Threads, SharedValues, Banks, Global, Metrics, Time, Status, BankPlayground, Coalescing, Occupancy, Timeline, Count };
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
Layout presenter_layout(float width, float height, float header_h, float status_h);
// The bank playground page: the top bar and one panel.
Layout playground_layout(float width, float height, float header_h);
// The coalescing lab's: its kernels use no shared memory, so its sweep panel
// takes the place of the shared-values and banks panels (where they are shown).
Layout coalescing_layout(Layout l);
// The transfers lab's: its versions are host programs with no trace, so the
// timeline takes the place of the step controls, threads, shared-values, banks
// and occupancy panels, and the time chart that of the metrics and global memory.
Layout timeline_layout(Layout l);

// Named rectangles drawn this frame inside panels ("banks.grid"), for tests.
using Regions = std::map<std::string, Rect>;

}  // namespace warplab::viewer
