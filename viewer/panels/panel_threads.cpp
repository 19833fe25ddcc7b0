// Every thread of the watched block as a cell, one row per warp (32 lanes, or
// the trace's own warp width): active
// or idle at this step, partially-active warps outlined. Hover a cell for the
// thread's accesses; click a row to show that warp's instructions in the bank
// and sector panels. Where the block writes a 2D tile of its output (a matrix
// multiply's C), a map beside the grid shows which elements each thread owns.
// When the launch failed, the panel shows why instead. Comparing widths (C),
// the panel holds two columns, the step at warp width 32 and at 64, each with
// its grid or its fault.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "viewer/panels/draw_util.h"
#include "viewer/model/format.h"
#include "viewer/panels/panels.h"
#include "viewer/model/step_model.h"
#include "warplab/trace/json.h"

namespace warplab::viewer {

namespace {

struct Grid {
    ImVec2 origin;  // top-left of lane 0 of warp 0
    float cell_w = 0, cell_h = 0, gap = 0, label_w = 0;
    std::uint32_t warps = 0;
    unsigned lanes = wl::trace::kDefaultWarpSize;  // a row: the trace's warp width
    ImVec2 cell_min(std::uint32_t warp, unsigned lane) const
    {
        return ImVec2(origin.x + lane * cell_w, origin.y + warp * cell_h);
    }
    ImVec2 cell_max(std::uint32_t warp, unsigned lane) const
    {
        const ImVec2 p = cell_min(warp, lane);
        return ImVec2(p.x + cell_w - gap, p.y + cell_h - gap);
    }
};

std::string access_text(App& app, const Access& a)
{
    using wl::trace::Kind;
    const std::string type = element_type(app);
    const std::string value = access_value_text(a.value, a.size, type);
    if (a.kind == Kind::Shuffle) return printf_string("shuffle: gives %s (line %u)", value.c_str(), a.line);
    if (a.kind == Kind::Vote) return printf_string("vote (line %u)", a.line);
    const unsigned elem = std::max(1u, std::min(unsigned(a.size), type_size(type)));
    return printf_string("%s %s[%llu] = %s (line %u)", wl::trace::kind_name(a.kind), array_name(app, a.space, a.array).c_str(),
                         static_cast<unsigned long long>(a.offset / elem), value.c_str(), a.line);
}

void thread_tooltip(App& app, const TracedRun& run, std::uint32_t thread, const std::optional<OutputTile>& tile)
{
    ImGui::BeginTooltip();
    const std::vector<unsigned>& dim = run.result.block_dim;
    const std::uint32_t width = run.block.warp_size;
    if (dim.size() >= 2 && dim[1] > 1 && dim[0] > 0)
        ImGui::Text("thread %u = (%u, %u) · warp %u · lane %u", thread, thread % dim[0], thread / dim[0], thread / width,
                    thread % width);
    else
        ImGui::Text("thread %u · warp %u · lane %u", thread, thread / width, thread % width);
    const auto accesses = thread_accesses(run.block, app.sel.step, thread);
    if (accesses.empty()) ImGui::TextDisabled("idle in this step");
    for (std::size_t i = 0; i < accesses.size() && i < 8; ++i) ImGui::TextUnformatted(access_text(app, accesses[i]).c_str());
    if (accesses.size() > 8) ImGui::TextDisabled("... %zu more", accesses.size() - 8);
    if (tile) {
        const auto owned = owned_elements(*tile, thread);
        const std::string name = array_name(app, wl::trace::Space::Global, tile->array);
        for (std::size_t i = 0; i < owned.size() && i < 4; ++i) {
            if (tile->pitch)
                ImGui::Text("owns %s[%llu][%llu]", name.c_str(), static_cast<unsigned long long>(tile->row_of(owned[i])),
                            static_cast<unsigned long long>(tile->col_of(owned[i])));
            else
                ImGui::Text("writes %s[%llu]", name.c_str(), static_cast<unsigned long long>(owned[i]));
        }
        if (owned.size() > 4) ImGui::TextDisabled("... %zu elements in all", owned.size());
    }
    ImGui::EndTooltip();
}

std::optional<std::uint32_t> focused_warp(App& app, const TracedRun& run)
{
    if (app.focus.shared_event) return run.block.events[*app.focus.shared_event].warp;
    if (app.focus.global_event) return run.block.events[*app.focus.global_event].warp;
    return std::nullopt;
}

// A partially-active warp: its row outlined, or, when rows are too thin to
// outline without hiding the cells, a bar on each side of the row.
void partial_mark(const Grid& g, std::uint32_t w)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 a = g.cell_min(w, 0), b = g.cell_max(w, g.lanes - 1);
    if (g.cell_h >= 10) {
        const float t = std::clamp(g.cell_h * 0.18f, 2.0f, 4.0f);
        dl->AddRect(ImVec2(a.x - t * 0.5f - 1, a.y - t * 0.5f + 1), ImVec2(b.x + t * 0.5f + 1, b.y + t * 0.5f - 1),
                    palette().partial_outline, 0, 0, t);
        return;
    }
    dl->AddRectFilled(ImVec2(a.x - 5, a.y), ImVec2(a.x - 1, b.y), palette().partial_outline);
    dl->AddRectFilled(ImVec2(b.x + 1, a.y), ImVec2(b.x + 5, b.y), palette().partial_outline);
}

void draw_cells(App& app, const Grid& g, const BlockActivity& act, std::optional<std::uint32_t> focus)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const Palette& pal = palette();
    ImFont* small = fonts(app).small;
    for (std::uint32_t w = 0; w < g.warps; ++w) {
        const ImVec2 row = g.cell_min(w, 0);
        if (g.cell_h >= px(small) * 0.8f)
            dl->AddText(small, std::min(px(small), g.cell_h), ImVec2(row.x - g.label_w + 2, row.y), pal.muted,  // 'w' reaches left of its pen
                        printf_string("w%u", w).c_str());
        if (focus && *focus == w) {
            const float m = g.cell_h * 0.5f;
            dl->AddTriangleFilled(ImVec2(row.x - 7, row.y + m - 4), ImVec2(row.x - 7, row.y + m + 4), ImVec2(row.x - 2, row.y + m),
                                  pal.focus_outline);
        }
        for (unsigned lane = 0; lane < g.lanes; ++lane) {
            const LaneState s = act.lanes[w * g.lanes + lane];
            if (s == LaneState::Absent) {
                dl->AddRect(g.cell_min(w, lane), g.cell_max(w, lane), pal.absent);
                continue;
            }
            dl->AddRectFilled(g.cell_min(w, lane), g.cell_max(w, lane), s == LaneState::Active ? pal.active : pal.idle);
        }
        if (act.partial[w]) partial_mark(g, w);
    }
}

// Each quarter of a row over the grid, and its last lane: lanes 0, 8, 16, 24
// and 31 of a 32-lane warp ("lane 8" where there is room, else "8"; only the
// first and last where not even that fits); the last ends at the grid's edge.
void lane_ruler(App& app, const Grid& g)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImFont* small = fonts(app).small;
    const unsigned quarter = g.lanes / 4, last = g.lanes - 1;
    // From the last quarter's lane to the grid's end: room for its label and the right-aligned last one.
    const float size = px(small), room = float(quarter) * g.cell_w - size * 0.5f;
    const auto fits = [&](const std::string& a, const std::string& b) {
        return small->CalcTextSizeA(size, 1e9f, 0, a.c_str()).x + small->CalcTextSizeA(size, 1e9f, 0, b.c_str()).x < room;
    };
    const bool words = fits(printf_string("lane %u", 3 * quarter), printf_string("lane %u", last));
    const bool every = words || fits(std::to_string(3 * quarter), std::to_string(last));
    for (unsigned lane : {0u, quarter, 2 * quarter, 3 * quarter, last}) {
        if (!every && lane != 0 && lane != last) continue;
        const std::string text = words ? printf_string("lane %u", lane) : std::to_string(lane);
        const float w = small->CalcTextSizeA(size, 1e9f, 0, text.c_str()).x;
        const ImVec2 p = g.cell_min(0, lane);
        const float x = lane == last ? g.cell_max(0, last).x - w : p.x;
        dl->AddText(small, size, ImVec2(x, p.y - size - 1), palette().muted, text.c_str());
    }
}

void handle_mouse(App& app, const TracedRun& run, const Grid& g, const std::optional<OutputTile>& tile)
{
    const ImVec2 m = ImGui::GetMousePos();
    if (!ImGui::IsWindowHovered() || m.x < g.origin.x || m.y < g.origin.y) return;
    const auto lane = unsigned((m.x - g.origin.x) / g.cell_w), warp = std::uint32_t((m.y - g.origin.y) / g.cell_h);
    if (lane >= g.lanes || warp >= g.warps) return;
    const std::uint32_t thread = warp * g.lanes + lane;
    if (thread >= run.block.threads) return;
    app.focus.hovered_thread = thread;
    thread_tooltip(app, run, thread, tile);
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
        if (auto e = worst_shared_event(run.block, app.sel.step, warp)) app.focus.shared_event = e;
        if (auto e = worst_global_event(run.block, app.sel.step, warp)) app.focus.global_event = e;
    }
}

// The output elements the block writes, as a tile coloured by the owner's
// warp (of `warp_size` lanes); the hovered thread's elements stand out.
// One-dimensional outputs are drawn 32 to a row.
void ownership_map(App& app, const OutputTile& tile, unsigned warp_size, ImVec2 min, ImVec2 max)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const std::uint64_t first = tile.owners.front().first;
    const std::uint64_t cols = tile.pitch ? tile.cols : std::min<std::uint64_t>(tile.cols, 32);
    const std::uint64_t rows = tile.pitch ? tile.rows : (tile.cols + 31) / 32;
    const std::string name = array_name(app, wl::trace::Space::Global, tile.array);
    const auto ull = [](std::uint64_t v) { return static_cast<unsigned long long>(v); };
    const std::string title = tile.pitch ? printf_string("%s rows %llu-%llu, cols %llu-%llu", name.c_str(), ull(tile.first_row),
                                                         ull(tile.first_row + rows - 1), ull(tile.first_col), ull(tile.first_col + cols - 1))
                                         : printf_string("%s[%llu..%llu]", name.c_str(), ull(first), ull(tile.owners.back().first));
    dl->AddText(ImGui::GetFont(), ImGui::GetFontSize(), min, palette().text, title.c_str(), nullptr, max.x - min.x);
    const float title_h = ImGui::CalcTextSize(title.c_str(), nullptr, false, max.x - min.x).y + ImGui::GetStyle().ItemSpacing.y;
    // Cells may be under a pixel: a 128x128 tile in a small panel still shows whole.
    const float cell = std::max(0.25f, std::min((max.x - min.x) / float(cols), (max.y - min.y - title_h) / float(rows)));
    const float gap = cell >= 4 ? 1.0f : 0.0f;
    const auto place = [&](std::uint64_t elem) {
        const std::uint64_t r = tile.pitch ? tile.row_of(elem) - tile.first_row : (elem - first) / 32;
        const std::uint64_t c = tile.pitch ? tile.col_of(elem) - tile.first_col : (elem - first) % 32;
        return ImVec2(min.x + float(c) * cell, min.y + title_h + float(r) * cell);
    };
    const auto colour = [&](std::uint32_t owner) {
        return app.focus.hovered_thread == owner ? palette().focus_outline : palette().sector[(owner / warp_size) % palette().sector.size()];
    };
    // Neighbours of one colour in a row are drawn as one rectangle: a 128x128 tile is 16384 cells.
    for (std::size_t i = 0; i < tile.owners.size();) {
        const ImVec2 a = place(tile.owners[i].first);
        const ImU32 c = colour(tile.owners[i].second);
        std::size_t j = i + 1;
        while (j < tile.owners.size() && tile.owners[j].first == tile.owners[j - 1].first + 1 && place(tile.owners[j].first).y == a.y &&
               colour(tile.owners[j].second) == c && gap == 0)
            ++j;
        const ImVec2 b = place(tile.owners[j - 1].first);
        dl->AddRectFilled(a, ImVec2(b.x + cell - gap, b.y + cell - gap), c);
        i = j;
    }
    add_region(app, "threads.ownership", min, max);
}

void fault_banner(App& app, const TraceSlot& slot)
{
    if (slot.pending) {  // no fault yet: the trace's progress
        ImGui::TextDisabled("%s", pending_text(app, *slot.pending).c_str());
        return;
    }
    const VersionMeta& v = current_version(app);
    const std::string title = slot.gpu_deadline ? std::string(v.id) + " did not finish on the GPU"
                              : slot.fault      ? std::string(v.id) + " faulted: the launch stopped"
                                                : std::string(v.id) + (app.program ? " has no trace to show" : " cannot run with these settings");
    const float pad = ImGui::GetFontSize() * 0.6f;
    // a program's launch ran as it made it; a GPU's fault is no schedule's
    const bool offer_lockstep = slot.fault && !slot.gpu_deadline && app.sel.schedule == wl::emu::Schedule::Independent && !app.program;
    // The box is as tall as what it holds: the contents are laid out first (on
    // the draw list's upper channel), then the background drawn beneath them.
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float width = ImGui::GetContentRegionAvail().x;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->ChannelsSplit(2);
    dl->ChannelsSetCurrent(1);
    ImGui::SetCursorScreenPos(ImVec2(p.x + pad, p.y + pad));
    ImGui::BeginGroup();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width - 2 * pad);
    ImGui::PushStyleColor(ImGuiCol_Text, palette().fault_text);
    ImGui::TextUnformatted(title.c_str());
    ImGui::TextUnformatted(slot.error.c_str());
    ImGui::PopStyleColor();
    ImGui::PopTextWrapPos();
    if (slot.gpu_deadline && !app.program) {  // the emulator's instruction budget names the thread and line
        ImGui::Spacing();
        const bool pressed = ImGui::Button("Trace it on the emulator");
        add_region(app, "fault.emulator", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
        if (pressed) {
            Selection s = app.sel;
            s.backend = BackendChoice::Cpu;
            select_settings(app, s);
        }
    }
    if (offer_lockstep) {
        ImGui::Spacing();
        // The whole offer where it fits on one line (half a panel, side by side, may not hold it).
        const char* offer = "Run it with the lockstep schedule (pre-Volta warps)";
        if (ImGui::CalcTextSize(offer).x + 2 * ImGui::GetStyle().FramePadding.x > width - 2 * pad) offer = "Run it lockstep";
        const bool pressed = ImGui::Button(offer);
        add_region(app, "fault.lockstep", ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
        if (pressed) {
            Selection s = app.sel;
            s.schedule = wl::emu::Schedule::Lockstep;
            select_settings(app, s);
        }
    }
    ImGui::EndGroup();
    const ImVec2 end(p.x + width, ImGui::GetItemRectMax().y + pad);
    dl->ChannelsSetCurrent(0);
    dl->AddRectFilled(p, end, palette().fault_banner);
    dl->ChannelsMerge();
    ImGui::SetCursorScreenPos(p);
    ImGui::Dummy(ImVec2(width, end.y - p.y));
    add_region(app, "fault.banner", p, end);
}

void activity_legend()
{
    legend_swatch(palette().active, "active");
    legend_swatch(palette().idle, "idle");
    legend_swatch(0, "partially-active warp", palette().partial_outline);
    help_marker("A thread is active in a step when it accesses memory, shuffles or votes. A warp is partially "
                "active (divergent) when only some of its lanes take part in an access: the others wait, masked off. "
                "Click a warp to show its instructions in the bank and sector panels.");
    end_line();
}

// The grid of a trace that ran; `region` names it in the layout JSON.
void thread_grid(App& app, const TraceSlot& slot, const char* region)
{
    const TracedRun& run = *slot.run;
    const BlockActivity act = block_activity(run.block, app.sel.step);
    const std::optional<OutputTile>& tile = slot.output;
    const bool show_tile = tile && tile->owners.size() > 1;
    ImFont* small = fonts(app).small;
    const ImVec2 avail = ImGui::GetContentRegionAvail(), top = ImGui::GetCursorScreenPos();
    Grid g;
    g.warps = act.warps;
    g.lanes = act.warp_size;
    g.label_w = small->CalcTextSizeA(px(small), 1e9f, 0, "w31 ").x + 8;
    const float grid_w = (show_tile ? avail.x * 0.68f : avail.x) - g.label_w - 4;
    const float ruler_h = px(small) + 2;
    g.cell_w = std::floor(grid_w / float(g.lanes));
    // Square cells, except that narrow ones (64 lanes in half a panel) may grow as tall as a line of small text.
    const float tallest = std::max(g.cell_w, std::floor(px(small) * 1.2f));
    g.cell_h = std::max(3.0f, std::min(tallest, std::floor((avail.y - ruler_h - 4) / std::max(1u, g.warps))));
    g.gap = g.cell_w >= 10 && g.cell_h >= 8 ? 2.0f : 1.0f;
    g.origin = ImVec2(top.x + g.label_w, top.y + ruler_h);
    lane_ruler(app, g);
    draw_cells(app, g, act, focused_warp(app, run));
    // The partial-warp outlines reach 4 pixels beyond the cells.
    add_region(app, region, ImVec2(g.origin.x - 4, g.origin.y - 4),
               ImVec2(g.origin.x + g.cell_w * float(g.lanes) + 4, g.origin.y + g.cell_h * float(g.warps) + 4));
    handle_mouse(app, run, g, tile);
    if (show_tile)
        ownership_map(app, *tile, run.block.warp_size, ImVec2(top.x + avail.x * 0.70f, top.y), ImVec2(top.x + avail.x, top.y + avail.y));
    ImGui::Dummy(ImVec2(avail.x, ruler_h + g.cell_h * g.warps));
}

// One width's column of the comparison: what ran, the step's state (its
// counts, or the fault that stopped the launch), and its grid.
void width_column(App& app, unsigned width, ImVec2 size)
{
    const TraceSlot& slot = trace_at_width(app, app.sel.version, width);
    const std::string id = printf_string("##width%u", width);
    ImGui::BeginChild(id.c_str(), size, false);  // a tall fault or many warps scroll in half a panel
    const ImVec2 top = ImGui::GetCursorScreenPos();
    const std::string label = wl::trace::warp_width_label(width);
    ImGui::TextWrapped("%u lanes: %s", width, label.empty() ? "NVIDIA's warp" : label.c_str());
    if (!slot.run) {
        fault_banner(app, slot);
    } else if (app.sel.step >= slot.run->steps.size()) {
        wrapped_text(palette().muted, printf_string("no step %u at this width (it has steps 0-%zu)", app.sel.step, slot.run->steps.size() - 1));
    } else {
        const wl::trace::StepMetrics& m = slot.run->steps[app.sel.step];
        // A race or any other fault stops the launch: a trace that ran had none.
        wrapped_text(palette().muted, printf_string("step %u: %u warp%s, %u partial · no race%s", app.sel.step, m.active_warps,
                                                    m.active_warps == 1 ? "" : "s", m.partial_warps,
                                                    slot.run->result.ok ? "" : " · result WRONG"));
        thread_grid(app, slot, width == 64 ? "threads.grid64" : "threads.grid32");
    }
    add_region(app, width == 64 ? "threads.width64" : "threads.width32", top, ImVec2(top.x + size.x, top.y + size.y));
    ImGui::EndChild();
}

// The step at warp widths 32 and 64, side by side.
void width_comparison(App& app)
{
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    // Whole pixels: a window's clip edge is rounded, so a column starting between pixels cuts its first glyphs.
    const float gap = std::floor(ImGui::GetFontSize());
    const ImVec2 column(std::floor((avail.x - gap) * 0.5f), avail.y);
    width_column(app, 32, column);
    ImGui::SameLine(0, gap);
    width_column(app, 64, column);
}

std::string threads_title(App& app)
{
    const TracedRun* traced = current_run(app);
    if (app.compare_widths) return "Threads and warps of block 0 at warp widths 32 and 64###threads";
    if (!traced) return "Threads and warps###threads";
    const std::string width = wl::trace::warp_width_label(traced->block.warp_size);
    return printf_string("Threads and warps of block 0 (%u threads%s%s)###threads", traced->block.threads,
                         width.empty() ? "" : ", ", width.c_str());
}

}  // namespace

void threads_panel(App& app)
{
    const std::string title = threads_title(app);
    if (begin_panel(app, Panel::Threads, title.c_str())) {
        if (app.compare_widths) {
            activity_legend();
            width_comparison(app);
        } else if (current_run(app)) {
            activity_legend();
            thread_grid(app, current_trace(app), "threads.grid");
        } else {
            fault_banner(app, current_trace(app));
        }
    }
    end_panel();
}

}  // namespace warplab::viewer
