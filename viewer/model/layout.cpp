#include "viewer/model/layout.h"

#include <algorithm>
#include <cmath>

namespace warplab::viewer {

namespace {

void place(Layout& l, Panel p, float x, float y, float w, float h)
{
    l.rects[static_cast<int>(p)] = {std::floor(x), std::floor(y), std::floor(w), std::floor(h)};
    l.shown[static_cast<int>(p)] = true;
}

}  // namespace

const char* panel_name(Panel p)
{
#define WARPLAB_PANEL_NAME(id, name, draw, room, what) name,
    static constexpr std::array<const char*, kPanelCount> names = {WARPLAB_VIEWER_PANELS(WARPLAB_PANEL_NAME)};
#undef WARPLAB_PANEL_NAME
    return names[static_cast<int>(p)];
}

Room panel_room(Panel p)
{
#define WARPLAB_PANEL_ROOM(id, name, draw, room, what) room,
    static constexpr std::array<Room, kPanelCount> rooms = {WARPLAB_VIEWER_PANELS(WARPLAB_PANEL_ROOM)};
#undef WARPLAB_PANEL_ROOM
    return rooms[static_cast<int>(p)];
}

std::optional<Panel> lab_panel(std::string_view name)
{
    for (int p = 0; p < kPanelCount; ++p)
        if (panel_room(Panel(p)) != Room::None && name == panel_name(Panel(p))) return Panel(p);
    return std::nullopt;
}

bool compact(float width, float height, bool presenter)
{
    // Presenting, the fonts follow the height (viewer/panels/draw_util.h's
    // font_scale), so the width sets how many columns of text fit: 16:9 holds
    // the two columns of panels, 4:3 does not. Under 800 pixels (720p, a
    // common projector) the panels' fixed padding, titles and legends leave
    // the full layout's source a few rows: matmul's wrapped tile loads do not
    // fit. At the desk the fonts keep their size: pixels decide.
    if (presenter) return width < 1.5f * height || height < 800;
    return width < 1500 || height < 800;
}

namespace {

// The panel drawn right below `p` in its column (same x and width), if any.
int panel_below(const Layout& l, Panel p)
{
    const Rect r = l[p];
    for (int q = 0; q < kPanelCount; ++q)
        if (l.shown[q] && q != int(p) && l.rects[q].x == r.x && l.rects[q].w == r.w && std::abs(l.rects[q].y - (r.y + r.h)) <= 1)
            return q;
    return -1;
}

// A lab's own panel in the room of those it has no use for (see desk_layout).
Layout in_shared_room(Layout l, Panel own)
{
    if (!l.has(Panel::SharedValues) || !l.has(Panel::Banks)) return l;
    const Rect top = l[Panel::SharedValues], bottom = l[Panel::Banks];
    place(l, own, top.x, top.y, top.w, bottom.y + bottom.h - top.y);
    l.shown[static_cast<int>(Panel::SharedValues)] = l.shown[static_cast<int>(Panel::Banks)] = false;
    return l;
}

Layout in_global_room(Layout l, Panel own)
{
    if (!l.has(Panel::Global)) return l;
    const Rect r = l[Panel::Global];
    place(l, own, r.x, r.y, r.w, r.h);
    l.shown[static_cast<int>(Panel::Global)] = false;
    return l;
}

Layout in_trace_room(Layout l, Panel own)
{
    if (!l.has(Panel::Threads) || !l.has(Panel::Banks) || !l.has(Panel::Time)) return l;
    const Rect top = l.has(Panel::Steps) ? l[Panel::Steps] : l[Panel::Threads];
    const Rect bottom = l.has(Panel::Occupancy) ? l[Panel::Occupancy] : l[Panel::Banks];
    place(l, own, top.x, top.y, top.w, bottom.y + bottom.h - top.y);
    // Global memory's room goes to the source where it sits under it (presenting: the host code is what
    // a slide points at), else to the time chart, which takes the metrics' room as well.
    const Rect source = l[Panel::Source], global = l[Panel::Global];
    const bool source_above = l.has(Panel::Source) && panel_below(l, Panel::Source) == int(Panel::Global);
    if (source_above) place(l, Panel::Source, source.x, source.y, source.w, global.y + global.h - source.y);
    const Rect time = l[Panel::Time];
    const Rect first = l.has(Panel::Metrics) ? l[Panel::Metrics] : l.has(Panel::Global) && !source_above ? l[Panel::Global] : time;
    place(l, Panel::Time, time.x, first.y, time.w, time.y + time.h - first.y);
    for (Panel p : {Panel::Steps, Panel::Threads, Panel::SharedValues, Panel::Banks, Panel::Occupancy, Panel::Metrics, Panel::Global,
                    Panel::Mix})
        l.shown[static_cast<int>(p)] = false;
    return l;
}

Layout without_shared_layout(Layout l)
{
    const bool values = l.has(Panel::SharedValues), banks = l.has(Panel::Banks);
    if (!values && !banks) return l;
    if (l.has(Panel::Mix)) {  // its room goes to the panel under it (the desk's time chart)
        const Rect mix = l[Panel::Mix];
        if (const int below = panel_below(l, Panel::Mix); below >= 0) {
            const Rect b = l.rects[below];
            place(l, Panel(below), b.x, mix.y, b.w, b.y + b.h - mix.y);
        }
    }
    Rect room = values ? l[Panel::SharedValues] : l[Panel::Banks];
    if (values && banks && panel_below(l, Panel::SharedValues) == int(Panel::Banks)) room.h = l[Panel::Banks].y + l[Panel::Banks].h - room.y;
    else if (values && banks) l.shown[static_cast<int>(Panel::Mix)] = false;  // apart: keep to the shared-values room alone
    place(l, Panel::Mix, room.x, room.y, room.w, room.h);
    l.shown[static_cast<int>(Panel::SharedValues)] = l.shown[static_cast<int>(Panel::Banks)] = false;
    return l;
}

Layout with_lab_panel(Layout l, std::optional<Panel> own)
{
    switch (own ? panel_room(*own) : Room::None) {
    case Room::Shared: return in_shared_room(l, *own);
    case Room::Global: return in_global_room(l, *own);
    case Room::Trace: return in_trace_room(l, *own);
    case Room::None: break;
    }
    return l;
}

// The room the lab's own panel takes, if it has one.
Room lab_room(const LayoutNeeds& needs) { return needs.lab_panel ? panel_room(*needs.lab_panel) : Room::None; }

// The room of panels the kernel has no use for (a lab's own panel has taken it already).
Layout for_kernel(Layout l, const LayoutNeeds& needs)
{
    return needs.uses_shared || needs.lab_panel ? l : without_shared_layout(l);
}

// The lab's own panel, then what the kernel needs.
Layout with_needs(Layout l, const LayoutNeeds& needs) { return for_kernel(with_lab_panel(l, needs.lab_panel), needs); }

// One arrangement of a compact window: its name and the panels of its column.
struct View {
    const char* name;
    std::vector<std::pair<Panel, float>> column;
};

// The arrangements of a compact window, each a column beside the source.
// What a class must see of a step comes first: its threads (with a fault's
// text and buttons, which then take most of the column) and the values they
// wrote; then the memory instructions; then the times. The desk adds its
// tables: the metrics beside global memory, the instruction mix and the
// occupancy under the times.
std::vector<View> compact_views(const LayoutNeeds& needs, bool presenter)
{
    const float threads = needs.faulted ? 0.6f : presenter ? 0.34f : 0.3f;
    const Room room = lab_room(needs);
    const Panel shared = room == Room::Shared ? *needs.lab_panel : Panel::SharedValues;
    std::vector<std::pair<Panel, float>> step = {{Panel::Threads, threads}, {shared, 0}};
    if (!presenter && shared == Panel::SharedValues && !needs.faulted) step = {{Panel::Threads, threads}, {shared, 0.38f}, {Panel::Banks, 0}};
    std::vector<std::pair<Panel, float>> memory;
    const Panel global = room == Room::Global ? *needs.lab_panel : Panel::Global;
    if (presenter && shared == Panel::SharedValues) memory = {{Panel::Banks, global != Panel::Global ? 0.4f : 0.5f}, {global, 0}};
    if (presenter && shared != Panel::SharedValues) memory = {{global, 0}};
    if (!presenter) memory = {{global, global != Panel::Global ? 0.55f : 0.4f}, {Panel::Metrics, 0}};
    std::vector<std::pair<Panel, float>> time = {{Panel::Time, 0}};
    if (!presenter) time = {{Panel::Time, 0.36f}, {Panel::Mix, 0.28f}, {Panel::Occupancy, 0}};
    if (room == Room::Trace) return {{"runs", {{*needs.lab_panel, 0}}}, {"time", {{Panel::Time, 0}}}};
    return {{"step", step}, {"memory", memory}, {"time", time}};
}

void column(Layout& l, float x, float y, float w, float h, const std::vector<std::pair<Panel, float>>& shares)
{
    float top = y;
    for (std::size_t i = 0; i < shares.size(); ++i) {
        const float ph = i + 1 == shares.size() ? y + h - top : std::floor(h * shares[i].second);
        place(l, shares[i].first, x, top, w, ph);
        top += ph;
    }
}

// A compact window: the source always (a class follows the code), and one
// arrangement of the rest beside it; at the desk the versions above the
// source and the step controls above the rest.
// | versions | steps            |        presenting: | rest of view | source |
// | source   | rest of the view |
Layout compact_layout(float width, float height, float header_h, float status_h, float steps_h, const LayoutNeeds& needs, bool presenter)
{
    Layout l;
    const std::vector<View> views = compact_views(needs, presenter);
    for (const View& v : views) l.views.push_back(v.name);
    l.view = ((needs.view % int(views.size())) + int(views.size())) % int(views.size());
    const float body_y = header_h, body_h = height - header_h - status_h;
    place(l, Panel::Header, 0, 0, width, header_h);
    place(l, Panel::Status, 0, height - status_h, width, status_h);
    const View& view = views[std::size_t(l.view)];
    if (presenter) {
        const float source_w = std::floor(width * 0.47f), rest_w = width - source_w;
        column(l, 0, body_y, rest_w, body_h, view.column);
        place(l, Panel::Source, rest_w, body_y, source_w, body_h);
        return for_kernel(l, needs);
    }
    const float left_w = std::floor(width * 0.4f), rest_w = width - left_w;
    column(l, 0, body_y, left_w, body_h, {{Panel::Versions, 0.3f}, {Panel::Source, 0}});
    const bool steps = lab_room(needs) != Room::Trace;  // host programs: nothing to step through
    if (steps) place(l, Panel::Steps, left_w, body_y, rest_w, steps_h);
    column(l, left_w, body_y + (steps ? steps_h : 0), rest_w, body_h - (steps ? steps_h : 0), view.column);
    return for_kernel(l, needs);
}

}  // namespace

// | versions | steps          | metrics |
// |          | threads        |         |
// |----------| shared values  | global  |
// | source   | banks          | mix     |
// |          | occupancy      | time    |
Layout desk_layout(float width, float height, float header_h, float status_h, float steps_h, const LayoutNeeds& needs)
{
    if (compact(width, height, false)) return compact_layout(width, height, header_h, status_h, steps_h, needs, false);
    Layout l;
    const float body_y = header_h, body_h = height - header_h - status_h;
    const float left_w = std::floor(width * 0.26f), right_w = std::floor(width * 0.31f);
    const float center_w = width - left_w - right_w;
    place(l, Panel::Header, 0, 0, width, header_h);
    column(l, 0, body_y, left_w, body_h, {{Panel::Versions, 0.36f}, {Panel::Source, 0}});
    place(l, Panel::Steps, left_w, body_y, center_w, steps_h);
    const float threads = needs.faulted ? 0.4f : 0.22f;
    column(l, left_w, body_y + steps_h, center_w, body_h - steps_h,
           {{Panel::Threads, threads}, {Panel::SharedValues, 0.49f - threads}, {Panel::Banks, 0.31f}, {Panel::Occupancy, 0}});
    // A step without global accesses leaves the global panel one line ("no access"): the time chart gets the room.
    const float global = needs.step_reads_global ? 0.24f : 0.08f;
    column(l, left_w + center_w, body_y, right_w, body_h,
           {{Panel::Metrics, 0.38f}, {Panel::Global, global}, {Panel::Mix, 0.16f}, {Panel::Time, 0}});
    place(l, Panel::Status, 0, height - status_h, width, status_h);
    return with_needs(l, needs);
}

// | threads        | source |     without shared memory: | threads | source |
// | shared values  | global |                            | mix     |        |
// | banks          | time   |                            | global  | time   |
Layout presenter_layout(float width, float height, float header_h, float status_h, const LayoutNeeds& needs)
{
    if (compact(width, height, true)) return compact_layout(width, height, header_h, status_h, 0, needs, true);
    Layout l;
    const float body_y = header_h, body_h = height - header_h - status_h;
    const float left_w = std::floor(width * 0.58f), right_w = width - left_w;
    place(l, Panel::Header, 0, 0, width, header_h);
    // A fault's text and its buttons take the room of the values it never wrote.
    const float threads = needs.faulted ? 0.5f : 0.26f;
    place(l, Panel::Status, 0, height - status_h, width, status_h);
    if (!needs.uses_shared && !needs.lab_panel) {
        // Without shared memory the instruction mix and global memory share the
        // left column under the threads: the lanes-to-sectors picture (the
        // subject of a naive matmul or transpose) gets room to be read; the
        // source takes global memory's place over the time chart.
        const float global = needs.step_reads_global ? 0.25f : 0.09f;
        column(l, 0, body_y, left_w, body_h, {{Panel::Threads, threads}, {Panel::Mix, 1 - threads - global}, {Panel::Global, 0}});
        column(l, left_w, body_y, right_w, body_h, {{Panel::Source, 0.66f}, {Panel::Time, 0}});
        return l;
    }
    column(l, 0, body_y, left_w, body_h, {{Panel::Threads, threads}, {Panel::SharedValues, 0.66f - threads}, {Panel::Banks, 0}});
    // A step without global accesses leaves the global panel one line ("no
    // access"): the source gets the room, so that more of the step's lines fit.
    const float global = needs.step_reads_global ? 0.18f : 0.09f;
    column(l, left_w, body_y, right_w, body_h, {{Panel::Source, 0.66f - global}, {Panel::Global, global}, {Panel::Time, 0}});
    return with_needs(l, needs);
}

std::vector<const char*> arrangements(std::optional<Panel> lab_panel)
{
    LayoutNeeds needs;
    needs.lab_panel = lab_panel;
    std::vector<const char*> names;
    for (const View& v : compact_views(needs, true)) names.push_back(v.name);
    return names;
}

Layout with_lesson_bar(Layout l, float lesson_h)
{
    const Rect both = l[Panel::Status];
    place(l, Panel::Lesson, both.x, both.y, both.w, lesson_h);
    place(l, Panel::Status, both.x, both.y + lesson_h, both.w, both.h - lesson_h);
    return l;
}

Layout compare_widths_layout(Layout l)
{
    if (!l.has(Panel::Threads) || !l.has(Panel::SharedValues)) return l;
    const Rect top = l[Panel::Threads], below = l[Panel::SharedValues];
    if (below.x != top.x || below.w != top.w || below.y < top.y) return l;  // not stacked under it (no room to take)
    place(l, Panel::Threads, top.x, top.y, top.w, below.y + below.h - top.y);
    l.shown[static_cast<int>(Panel::SharedValues)] = false;
    return l;
}

Layout compare_versions_layout(Layout l)
{
    constexpr Panel kFrame[] = {Panel::Header, Panel::Status, Panel::Source, Panel::Versions, Panel::Steps, Panel::Lesson};
    const auto framing = [&](int p) { return std::find(std::begin(kFrame), std::end(kFrame), Panel(p)) != std::end(kFrame); };
    int anchor = l.has(Panel::Threads) ? int(Panel::Threads) : -1;
    for (int p = 0; p < kPanelCount && anchor < 0; ++p)
        if (l.shown[p] && !framing(p)) anchor = p;
    if (anchor < 0) return l;
    const Rect a = l.rects[anchor];
    float top = a.y, bottom = a.y + a.h;
    for (int p = 0; p < kPanelCount; ++p)
        if (l.shown[p] && !framing(p) && l.rects[p].x == a.x && l.rects[p].w == a.w) {
            top = std::min(top, l.rects[p].y), bottom = std::max(bottom, l.rects[p].y + l.rects[p].h);
            l.shown[p] = false;
        }
    place(l, Panel::Compare, a.x, top, a.w, bottom - top);
    return l;
}

Layout playground_layout(float width, float height, float header_h)
{
    Layout l;
    place(l, Panel::Header, 0, 0, width, header_h);
    place(l, Panel::BankPlayground, 0, header_h, width, height - header_h);
    return l;
}

}  // namespace warplab::viewer
