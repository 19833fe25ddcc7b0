#include "viewer/layout.h"

#include <cmath>

namespace warplab::viewer {

namespace {

void place(Layout& l, Panel p, float x, float y, float w, float h)
{
    l.rects[static_cast<int>(p)] = {std::floor(x), std::floor(y), std::floor(w), std::floor(h)};
    l.shown[static_cast<int>(p)] = true;
}

// Stacks panels down a column, each taking its share of the height (the last takes the rest).
void column(Layout& l, float x, float y, float w, float h, std::initializer_list<std::pair<Panel, float>> shares)
{
    float top = y;
    std::size_t i = 0;
    for (const auto& [panel, share] : shares) {
        const bool last = ++i == shares.size();
        const float ph = last ? y + h - top : std::floor(h * share);
        place(l, panel, x, top, w, ph);
        top += ph;
    }
}

}  // namespace

const char* panel_name(Panel p)
{
#define WARPLAB_PANEL_NAME(id, name, draw, what) name,
    static constexpr std::array<const char*, kPanelCount> names = {WARPLAB_VIEWER_PANELS(WARPLAB_PANEL_NAME)};
#undef WARPLAB_PANEL_NAME
    return names[static_cast<int>(p)];
}

// | versions | steps          | metrics |
// |          | threads        |         |
// |----------| shared values  | global  |
// | source   | banks          | time    |
// |          | occupancy      |         |
Layout desk_layout(float width, float height, float header_h, float status_h, float steps_h)
{
    Layout l;
    const float body_y = header_h, body_h = height - header_h - status_h;
    const float left_w = std::floor(width * 0.26f), right_w = std::floor(width * 0.31f);
    const float center_w = width - left_w - right_w;
    place(l, Panel::Header, 0, 0, width, header_h);
    column(l, 0, body_y, left_w, body_h, {{Panel::Versions, 0.36f}, {Panel::Source, 0}});
    place(l, Panel::Steps, left_w, body_y, center_w, steps_h);
    column(l, left_w, body_y + steps_h, center_w, body_h - steps_h,
           {{Panel::Threads, 0.22f}, {Panel::SharedValues, 0.27f}, {Panel::Banks, 0.31f}, {Panel::Occupancy, 0}});
    column(l, left_w + center_w, body_y, right_w, body_h, {{Panel::Metrics, 0.38f}, {Panel::Global, 0.24f}, {Panel::Time, 0}});
    place(l, Panel::Status, 0, height - status_h, width, status_h);
    return l;
}

// Fewer, bigger panels; no step controls or lists (the keyboard drives it).
// | threads        | source |
// | shared values  | global |
// | banks          | time   |
Layout presenter_layout(float width, float height, float header_h, float status_h, bool step_reads_global)
{
    Layout l;
    const float body_y = header_h, body_h = height - header_h - status_h;
    const float left_w = std::floor(width * 0.58f), right_w = width - left_w;
    place(l, Panel::Header, 0, 0, width, header_h);
    column(l, 0, body_y, left_w, body_h, {{Panel::Threads, 0.26f}, {Panel::SharedValues, 0.40f}, {Panel::Banks, 0}});
    // A step without global accesses leaves the global panel one line ("no
    // access"): the source gets the room, so a small screen shows more code.
    const float global = step_reads_global ? 0.24f : 0.11f;
    column(l, left_w, body_y, right_w, body_h, {{Panel::Source, 0.59f - global}, {Panel::Global, global}, {Panel::Time, 0}});
    place(l, Panel::Status, 0, height - status_h, width, status_h);
    return l;
}

Layout sweep_layout(Layout l)
{
    if (!l.has(Panel::SharedValues) || !l.has(Panel::Banks)) return l;
    const Rect top = l[Panel::SharedValues], bottom = l[Panel::Banks];
    place(l, Panel::Coalescing, top.x, top.y, top.w, bottom.y + bottom.h - top.y);
    l.shown[static_cast<int>(Panel::SharedValues)] = l.shown[static_cast<int>(Panel::Banks)] = false;
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

Layout image_layout(Layout l)
{
    if (!l.has(Panel::Global)) return l;
    const Rect r = l[Panel::Global];
    place(l, Panel::Image, r.x, r.y, r.w, r.h);
    l.shown[static_cast<int>(Panel::Global)] = false;
    return l;
}

Layout timeline_layout(Layout l)
{
    if (!l.has(Panel::Threads) || !l.has(Panel::Banks) || !l.has(Panel::Time)) return l;
    const Rect top = l.has(Panel::Steps) ? l[Panel::Steps] : l[Panel::Threads];
    const Rect bottom = l.has(Panel::Occupancy) ? l[Panel::Occupancy] : l[Panel::Banks];
    place(l, Panel::Timeline, top.x, top.y, top.w, bottom.y + bottom.h - top.y);
    // No trace, so nothing to step through or count: the time chart takes the
    // column the metrics and global-memory panels had.
    const Rect time = l[Panel::Time];
    const Rect first = l.has(Panel::Metrics) ? l[Panel::Metrics] : l.has(Panel::Global) ? l[Panel::Global] : time;
    place(l, Panel::Time, time.x, first.y, time.w, time.y + time.h - first.y);
    for (Panel p : {Panel::Steps, Panel::Threads, Panel::SharedValues, Panel::Banks, Panel::Occupancy, Panel::Metrics, Panel::Global})
        l.shown[static_cast<int>(p)] = false;
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
