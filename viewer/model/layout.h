// Where each panel sits: a fixed layout computed from the window size, one for
// the desk and one for presenting. Tests read it back (--layout-json) to find
// a panel's pixels in a screenshot.
#pragma once
#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warplab::viewer {

// The room a lab's own panel takes (the lab names it: Lab::panel): that of
// the panels the lab has no use for.
enum class Room {
    None,    // not a lab's panel: the layouts place it
    Shared,  // shared memory's panels, values and banks (a sweep of a kernel without shared arrays)
    Global,  // global memory's panel (a picture of the data)
    Trace,   // every trace panel (host programs: nothing to step through); the time chart grows
};

// Every panel, once: X(id, its name in the layout JSON, the function that
// draws it, the room it takes as a lab's own panel, what it shows). The Panel
// enum, the names, the declarations in viewer/panels/panels.h and the frame's
// drawing order all come from this list; a lab names its own panel here by
// its name (Lab::panel), and needs no other line in viewer/ but its drawing.
// Drawing order matters once: the threads panel records the hovered thread
// that the shared-memory panels highlight.
#define WARPLAB_VIEWER_PANELS(X)                                                                                                                       \
    X(Header, "header", header_panel, Room::None, "lab and run settings; in presenter mode the version and a big step counter")                        \
    X(Versions, "versions", versions_panel, Room::None, "the lab's versions with their ideas; what changed in the selected one")                       \
    X(Steps, "steps", steps_panel, Room::None, "previous/next, play/pause, speed, slider")                                                             \
    X(Threads, "threads", threads_panel, Room::None, "every thread of the block, by warp: active, idle, partially-active warps")                       \
    X(SharedValues, "shared_values", shared_values_panel, Room::None, "the shared arrays' values and the step's reads -> writes (the tree)")           \
    X(Banks, "banks", banks_panel, Room::None, "one instruction's lanes over the 32 banks, n-way conflicts")                                           \
    X(Source, "source", source_panel, Room::None, "the kernel source: changed lines, the step's lines")                                                \
    X(Global, "global", global_panel, Room::None, "one instruction's lanes over 32-byte sectors")                                                      \
    X(Metrics, "metrics", metrics_panel, Room::None, "the per-step table and every version's totals")                                                  \
    X(Time, "time", time_panel, Room::None, "measured times: this version beside the previous one, and the reference")                                 \
    X(Status, "status", status_panel, Room::None, "where the trace came from, and what went wrong")                                                    \
    X(BankPlayground, "bank_playground", bank_playground_panel, Room::None, "the bank playground page: a pattern's lanes over the 32 banks")           \
    X(Coalescing, "coalescing", coalescing_panel, Room::Shared,                                                                                        \
      "a lab's sweep (coalescing): sectors/request and GB/s over the setting, a slider to re-trace")                                                   \
    X(Occupancy, "occupancy", occupancy_panel, Room::None, "registers, shared memory, resident warps per SM; what-if sliders")                         \
    X(Timeline, "timeline", timeline_panel, Room::Trace,                                                                                               \
      "a lab's timeline (transfers): each recorded run as a Gantt chart, one row per engine per GPU")                                                  \
    X(Image, "image", image_panel, Room::Global, "the image lab's: the picture, the watched group's tile, the partials per pass")                      \
    X(Lesson, "lesson", lesson_panel, Room::None, "a lesson's slide (--lesson): its caption, question, the learner's answer, the trace's once revealed") \
    X(Compare, "compare", compare_panel, Room::None, "this version's steps beside the previous version's (D): where they differ, and the first step that does") \
    X(Mix, "mix", mix_panel, Room::None, "the instruction mix: the step's and the block's warp instructions by class")

#define WARPLAB_PANEL_ID(id, name, draw, room, what) id,
enum class Panel : int { WARPLAB_VIEWER_PANELS(WARPLAB_PANEL_ID) Count };
#undef WARPLAB_PANEL_ID
constexpr int kPanelCount = static_cast<int>(Panel::Count);

const char* panel_name(Panel p);  // "banks", as the layout JSON names it
Room panel_room(Panel p);         // Room::None but for a lab's own panel
// The lab's own panel its registry entry names (Lab::panel: "coalescing");
// none for an empty name, or one that names no lab's panel.
std::optional<Panel> lab_panel(std::string_view name);

struct Rect {
    float x = 0, y = 0, w = 0, h = 0;
};

struct Layout {
    std::array<Rect, kPanelCount> rects{};
    std::array<bool, kPanelCount> shown{};
    // A size too small for every panel at once shows them in turns: the
    // arrangements' names ("step", "memory", "time"), which one this is (V
    // switches); one arrangement: no names.
    std::vector<const char*> views;
    int view = 0;
    const Rect& operator[](Panel p) const { return rects[static_cast<int>(p)]; }
    bool has(Panel p) const { return shown[static_cast<int>(p)]; }
};

// What the frame's contents ask of the layout.
struct LayoutNeeds {
    std::optional<Panel> lab_panel;  // the lab's own panel (lab_panel(Lab::panel)); none: the trace's panels
    bool step_reads_global = true;   // the step has global-memory accesses for its panel to draw
    bool faulted = false;            // the threads panel holds a fault's text and its buttons
    bool uses_shared = true;         // the kernel has shared arrays; without, the mix takes their panels' room
    int view = 0;                    // the arrangement asked for (App::view), taken modulo their number
};

// Whether a window is too small, for the fonts of its mode, to show every
// panel at once: presenting at 4:3 (a projector) or under 800 pixels of
// height (720p); at the desk under 1500x800.
bool compact(float width, float height, bool presenter);

// header_h and status_h: heights of the top bar and the status line in
// pixels; steps_h: of the step controls (at the desk). A lab's own panel
// (LayoutNeeds::lab_panel) takes the room of those it has no use for (its
// Room): the sweep (coalescing, no shared memory) that of the shared-values
// and banks panels, the image lab's picture that of global memory (plain
// rows), and the timeline (transfers: host programs, no trace) that of every
// trace panel, the time chart then taking the metrics' and global memory's room.
// A kernel without shared memory (LayoutNeeds::uses_shared) gives the
// shared-memory panels' room to the instruction mix, what a class then
// reasons about (the method lab); the mix's own room goes to the time chart.
// Presenting (not compact), global memory moves under the mix, so that its
// picture is large enough to read, and the source takes its place.
Layout desk_layout(float width, float height, float header_h, float status_h, float steps_h, const LayoutNeeds& needs = {});
// Fewer, bigger panels; no step controls or lists (the keyboard drives it).
Layout presenter_layout(float width, float height, float header_h, float status_h, const LayoutNeeds& needs = {});
// The bank playground page: the top bar and one panel.
Layout playground_layout(float width, float height, float header_h);

// The arrangements' names a compact window shows a lab in, its first shown first ("step", "memory", "time").
std::vector<const char*> arrangements(std::optional<Panel> lab_panel);

// A lesson's bar (the slide's caption and question) between the body and the
// status line: `layout` was made with the status line lesson_h taller.
Layout with_lesson_bar(Layout l, float lesson_h);

// Comparing warp widths (App::compare_widths): the threads panel holds two
// grids, so it takes the shared-values panel's place below it as well.
Layout compare_widths_layout(Layout l);

// Comparing versions (App::compare_versions): the step table of two versions
// takes the place of the column the threads panel heads (the step's pictures;
// in a compact window, the arrangement beside the source).
Layout compare_versions_layout(Layout l);

// Named rectangles drawn this frame inside panels ("banks.grid"), for tests.
using Regions = std::map<std::string, Rect>;

}  // namespace warplab::viewer
