// Shared memory, two panels over the same events.
//  Values: each shared array's cells, 32 to a row (one row = one pass over
//   the 32 banks), with the values after the step and arrows from each cell a
//   thread read to the cell it wrote: Harris's tree picture, drawn from the
//   trace and animated when the step changes.
//  Banks: one warp instruction at a time: which lanes hit which word of which
//   bank, each bank coloured by how many distinct words it must deliver.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "viewer/panels/draw_util.h"
#include "viewer/model/format.h"
#include "viewer/panels/panels.h"
#include "viewer/model/step_model.h"

namespace warplab::viewer {

namespace {

struct ArrayGrid {
    ImVec2 origin;
    float cell_w = 0, cell_h = 0;
    unsigned columns = kBanks;
    ImVec2 cell_min(std::uint64_t elem) const
    {
        return ImVec2(origin.x + float(elem % columns) * cell_w, origin.y + float(elem / columns) * cell_h);
    }
    ImVec2 center(std::uint64_t elem) const
    {
        const ImVec2 p = cell_min(elem);
        return ImVec2(p.x + cell_w * 0.5f, p.y + cell_h * 0.5f);
    }
};

using Values = std::vector<std::optional<std::uint64_t>>;

// Numbers under three quarters of the small font are not drawn: too small to
// read from a seat; the colours and the tooltip still tell.
bool legible(float text_size, float small) { return text_size >= small * 0.75f; }

// What an array's values are read as: its declared type where the trace has it, else the run's.
std::string value_type(const App& app, const wl::trace::SharedArrayInfo& info)
{
    return info.type.empty() ? element_type(app) : info.type;
}

const Values* values_of(const TracedRun& run, std::uint32_t step, std::uint8_t array)
{
    if (step >= run.shared_after.size()) return nullptr;
    const auto it = run.shared_after[step].find(array);
    return it == run.shared_after[step].end() ? nullptr : &it->second;
}

std::optional<std::uint64_t> value_at(const Values* v, std::uint64_t elem)
{
    return v && elem < v->size() ? (*v)[elem] : std::nullopt;
}

// ---- values ----

// The value shown in a cell: a cell written in this step changes half-way through the arrows' animation.
std::optional<std::uint64_t> shown_value(const ArrayStep& st, std::uint64_t i, const Values* before, const Values* after, float progress)
{
    return st.written[i] && progress < 0.5f ? value_at(before, i) : value_at(after, i);
}

ImU32 cell_fill(const ArrayStep& st, std::uint64_t i, const Values* after)
{
    const Palette& pal = palette();
    return st.written[i] ? pal.written_cell : st.read[i] ? pal.read_cell : value_at(after, i) ? pal.panel : pal.unwritten_cell;
}

// Cells [first, last) in reading order, in one colour.
void fill_run(ImDrawList* dl, const ArrayGrid& g, std::uint64_t first, std::uint64_t last, ImU32 fill)
{
    const auto row_span = [&](std::uint64_t from, std::uint64_t to) {  // within one row
        const ImVec2 a = g.cell_min(from);
        dl->AddRectFilled(a, ImVec2(a.x + g.cell_w * float(to - from), a.y + g.cell_h), fill);
    };
    const std::uint64_t first_row_end = std::min(last, (first / g.columns + 1) * g.columns);
    row_span(first, first_row_end);
    if (first_row_end == last) return;
    const std::uint64_t whole_end = last / g.columns * g.columns;
    if (whole_end > first_row_end) {
        const ImVec2 a = g.cell_min(first_row_end);
        dl->AddRectFilled(a, ImVec2(a.x + g.cell_w * float(g.columns), a.y + g.cell_h * float((whole_end - first_row_end) / g.columns)), fill);
    }
    if (last > whole_end && whole_end >= first_row_end) row_span(whole_end, last);
}

// Grid lines are the gaps between cells over one background rectangle: only
// axis-aligned rectangles, which SDL's software renderer fills fastest.
void draw_cell_backgrounds(const ArrayGrid& g, const wl::trace::SharedArrayInfo& info, const ArrayStep& st, const Values* after)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const Palette& pal = palette();
    const float gap = g.cell_h >= 6 ? 1.0f : 0.0f;
    const std::uint64_t rows = (info.count + g.columns - 1) / g.columns;
    if (gap > 0)
        dl->AddRectFilled(ImVec2(g.origin.x - gap, g.origin.y - gap),
                          ImVec2(g.origin.x + g.cell_w * float(std::min<std::uint64_t>(info.count, g.columns)), g.origin.y + g.cell_h * float(rows)),
                          pal.grid_line);
    if (gap > 0) {  // cells big enough to see apart: few of them
        for (std::uint64_t i = 0; i < info.count; ++i) {
            const ImVec2 a = g.cell_min(i), b(a.x + g.cell_w - gap, a.y + g.cell_h - gap);
            dl->AddRectFilled(a, b, cell_fill(st, i, after));
        }
        return;
    }
    // Thin rows (a ring of 196608 bytes): each run of cells of one colour is
    // at most three rectangles (its first row's tail, whole rows, its last row's head).
    for (std::uint64_t i = 0; i < info.count;) {
        const ImU32 fill = cell_fill(st, i, after);
        std::uint64_t j = i + 1;
        while (j < info.count && cell_fill(st, j, after) == fill) ++j;
        fill_run(dl, g, i, j, fill);
        i = j;
    }
}

// Drawn over the arrows, so the numbers stay readable.
void draw_cell_values(App& app, const ArrayGrid& g, const wl::trace::SharedArrayInfo& info, const ArrayStep& st,
                      const Values* before, const Values* after, float progress)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImFont* small = fonts(app).small;
    const float text_size = std::min(px(small), g.cell_h * 0.8f);
    if (!legible(text_size, px(small))) return;  // the tooltip tells the value
    const std::string type = value_type(app, info);
    const auto fits = [&](const std::string& text) { return small->CalcTextSizeA(text_size, 1e9f, 0, text.c_str()).x < g.cell_w - 2; };
    for (std::uint64_t i = 0; i < info.count; ++i) {
        const auto value = shown_value(st, i, before, after, progress);
        if (!value) continue;
        const std::string text = fitting_number(value_as(*value, info.elem_size, type), fits);
        if (text.empty()) continue;
        const ImVec2 ts = small->CalcTextSizeA(text_size, 1e9f, 0, text.c_str());
        const ImVec2 a = g.cell_min(i), c(a.x + g.cell_w * 0.5f, a.y + g.cell_h * 0.5f);
        // The cell's own colour under the digits: the arrows pass behind them, not through them.
        dl->AddRectFilled(ImVec2(std::floor(c.x - ts.x * 0.5f) - 1, std::floor(c.y - ts.y * 0.5f)),
                          ImVec2(std::ceil(c.x + ts.x * 0.5f) + 1, std::ceil(c.y + ts.y * 0.5f)), cell_fill(st, i, after));
        text_centered(dl, small, text_size, c, palette().text, text);
    }
}

// focus_warp: a warp of `warp_size` lanes whose arrows stand out.
void draw_flows(App& app, const ArrayGrid& g, const ArrayStep& st, std::optional<std::uint32_t> focus_warp, unsigned warp_size,
                float progress)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const Palette& pal = palette();
    const bool crowded = std::count_if(st.flows.begin(), st.flows.end(), [&](const Flow& f) {
                             return focus_warp && f.thread / warp_size == *focus_warp;
                         }) > 16;  // a warp's 32 arrows in one bundle: thinner and see-through, so they read as a bundle
    const float thick = std::clamp(g.cell_w * 0.08f, 1.0f, 3.0f) * (crowded ? 0.6f : 1.0f);
    const ImU32 strong_colour = crowded ? (pal.read_arrow & 0x00FFFFFFu) | (170u << IM_COL32_A_SHIFT) : pal.read_arrow;
    for (int pass = 0; pass < 2; ++pass)  // faint ones first, so the focused warp's lie on top
        for (const Flow& f : st.flows) {
            const bool hovered = app.focus.hovered_thread == f.thread;
            const bool strong = hovered || (focus_warp && f.thread / warp_size == *focus_warp);
            if (strong != (pass == 1)) continue;
            const ImU32 colour = hovered ? pal.step_marker : strong ? strong_colour : pal.read_arrow_faint;
            const ImVec2 from = g.center(f.from), to = g.center(f.to);
            const bool same_row = f.from / g.columns == f.to / g.columns;
            const float bend = same_row ? std::min(g.cell_h * 0.9f, std::fabs(to.x - from.x) * 0.35f) * (to.x < from.x ? 1.0f : -1.0f)
                                        : g.cell_w * 0.6f;
            curved_arrow(dl, from, to, bend, colour, hovered ? thick * 1.6f : thick, progress);
        }
}

void cell_tooltip(App& app, const ArrayGrid& g, const wl::trace::SharedArrayInfo& info, const ArrayStep& st,
                  const Values* after)
{
    if (!ImGui::IsWindowHovered()) return;
    const ImVec2 m = ImGui::GetMousePos();
    if (m.x < g.origin.x || m.y < g.origin.y || m.x >= g.origin.x + g.cell_w * g.columns) return;
    const auto elem = std::uint64_t((m.y - g.origin.y) / g.cell_h) * g.columns + std::uint64_t((m.x - g.origin.x) / g.cell_w);
    if (elem >= info.count) return;
    ImGui::BeginTooltip();
    const auto v = value_at(after, elem);
    ImGui::Text("%s[%llu] = %s", info.name.c_str(), static_cast<unsigned long long>(elem),
                v ? compact_number(value_as(*v, info.elem_size, value_type(app, info))).c_str() : "never written");
    ImGui::TextDisabled("bank %llu", static_cast<unsigned long long>((elem * info.elem_size / 4) % kBanks));
    for (const Flow& f : st.flows)
        if (f.to == elem) ImGui::Text("thread %u added %s[%llu]", f.thread, info.name.c_str(), static_cast<unsigned long long>(f.from));
    ImGui::EndTooltip();
}

// One array in its rectangle: a title line, then its cells 32 to a row.
void draw_array(App& app, const TracedRun& run, const wl::trace::SharedArrayInfo& info, ImVec2 min, ImVec2 size)
{
    const ArrayStep st = array_step(run.block, app.sel.step, info.id, info.elem_size, info.count);
    const Values* after = values_of(run, app.sel.step, info.id);
    const Values* before = app.sel.step ? values_of(run, app.sel.step - 1, info.id) : nullptr;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const std::string title = wl::trace::array_text(info);
    dl->AddText(min, palette().text, title.c_str());
    const std::size_t written = std::size_t(std::count(st.written.begin(), st.written.end(), 1));
    const std::size_t read = std::size_t(std::count(st.read.begin(), st.read.end(), 1));
    // The counts beside the name; where both do not fit, the ones that are not zero; else none.
    const float counts_x = min.x + ImGui::CalcTextSize(title.c_str()).x + 10;
    std::string counts = printf_string("%zu written, %zu read", written, read);
    if (counts_x + ImGui::CalcTextSize(counts.c_str()).x > min.x + size.x)
        counts = written && read ? printf_string("%zu w, %zu r", written, read) : written ? printf_string("%zu written", written) : read ? printf_string("%zu read", read) : "";
    if (counts_x + ImGui::CalcTextSize(counts.c_str()).x <= min.x + size.x) dl->AddText(ImVec2(counts_x, min.y), palette().muted, counts.c_str());
    ArrayGrid g;
    g.columns = unsigned(std::min<std::uint64_t>(kBanks, std::max<std::uint64_t>(info.count, 1)));
    const std::uint64_t rows = (info.count + g.columns - 1) / g.columns;
    const float title_h = ImGui::GetTextLineHeightWithSpacing();
    g.cell_w = std::floor(size.x / kBanks);
    // Rows may be under a pixel: a large array still shows whole, in its rectangle.
    const float fit = std::max(0.01f, (size.y - title_h - 2) / float(rows));
    g.cell_h = std::min(fit >= 3 ? std::floor(fit) : fit, std::max(1.0f, g.cell_w * 1.1f));
    g.origin = ImVec2(min.x + 1, min.y + title_h);
    const float progress = animation_progress(app);
    draw_cell_backgrounds(g, info, st, after);
    std::optional<std::uint32_t> warp;
    if (app.focus.shared_event) warp = run.block.events[*app.focus.shared_event].warp;
    draw_flows(app, g, st, warp, run.block.warp_size, progress);
    draw_cell_values(app, g, info, st, before, after, progress);
    cell_tooltip(app, g, info, st, after);
    add_region(app, "shared_values." + info.name, g.origin,
               ImVec2(g.origin.x + g.cell_w * g.columns, g.origin.y + g.cell_h * float(rows)));
}

// Rectangles for the arrays: stacked, or in two columns when that gives bigger
// cells (matmul's two 32x32 tiles side by side).
std::vector<std::pair<ImVec2, ImVec2>> plan_arrays(const std::vector<wl::trace::SharedArrayInfo>& arrays, ImVec2 min, ImVec2 size,
                                                   float title_h)
{
    const auto rows_of = [](const wl::trace::SharedArrayInfo& a) { return float((a.count + kBanks - 1) / kBanks); };
    std::vector<std::pair<ImVec2, ImVec2>> best;
    float best_cell = -1e9f;  // a panel shorter than its titles still gets a plan, every cell of it tiny
    for (unsigned columns = 1; columns <= std::min<std::size_t>(2, arrays.size()); ++columns) {
        const float col_w = (size.x - float(columns - 1) * title_h) / float(columns);
        std::vector<float> col_rows(columns, 0.0f), col_titles(columns, 0.0f);
        for (std::size_t i = 0; i < arrays.size(); ++i) col_rows[i % columns] += rows_of(arrays[i]), col_titles[i % columns] += title_h + 4;
        std::vector<std::pair<ImVec2, ImVec2>> plan;
        std::vector<float> col_y(columns, min.y);
        float smallest = 1e9f;
        for (std::size_t i = 0; i < arrays.size(); ++i) {
            const unsigned c = unsigned(i % columns);
            const float cells_h = size.y - col_titles[c];
            const float h = title_h + 4 + cells_h * rows_of(arrays[i]) / std::max(1.0f, col_rows[c]);
            plan.push_back({ImVec2(min.x + float(c) * (col_w + title_h), col_y[c]), ImVec2(col_w, h)});
            col_y[c] += h;
            smallest = std::min(smallest, std::min(col_w / kBanks * 1.1f, cells_h / std::max(1.0f, col_rows[c])));
        }
        if (smallest > best_cell) best_cell = smallest, best = std::move(plan);
    }
    return best;
}

// ---- banks ----

// A word cell's lanes: "5", or "5+2" (lane 5 and two more).
std::string cell_lanes_text(const std::vector<unsigned>& lanes)
{
    if (lanes.size() == 1) return std::to_string(lanes[0]);
    return std::to_string(lanes[0]) + "+" + std::to_string(lanes.size() - 1);
}

// Numbers in bank and word cells: the small font, larger in large cells (the
// bank playground's page), smaller in short ones.
float cell_text_size(float small, float cell_w, float cell_h)
{
    return std::min({std::max(small, std::min(cell_h * 0.45f, cell_w * 0.3f)), cell_h * 0.85f});
}


// The 32 banks in a row, each coloured by its ways; numbered where the numbers fit.
void bank_header(App& app, ImVec2 origin, float cell_w, float cell_h, const BankView& v)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImFont* small = fonts(app).small;
    const float text_size = cell_text_size(px(small), cell_w, cell_h);
    const bool numbered = legible(text_size, px(small)) && small->CalcTextSizeA(text_size, 1e9f, 0, "31").x < cell_w - 2;
    for (unsigned b = 0; b < kBanks; ++b) {
        const ImVec2 a(origin.x + b * cell_w, origin.y);
        const ImU32 fill = v.ways[b] ? palette().conflict[conflict_level(v.ways[b])] : palette().untouched_word;
        dl->AddRectFilled(a, ImVec2(a.x + cell_w - 1, a.y + cell_h - 1), fill);
        if (numbered)
            text_centered(dl, small, text_size, ImVec2(a.x + cell_w * 0.5f, a.y + cell_h * 0.5f), palette().text, std::to_string(b));
    }
}

// The compact form (8-way and up): the bank strip, then one line per bank
// that serves more than one word, in the panel's own font, most ways first.
void compact_bank_picture(App& app, const BankView& v)
{
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float cell_w = std::floor(avail.x / kBanks), cell_h = std::floor(ImGui::GetTextLineHeight() * 1.1f);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    bank_header(app, origin, cell_w, cell_h, v);
    add_region(app, "banks.grid", origin, ImVec2(origin.x + cell_w * kBanks, origin.y + cell_h));
    ImGui::Dummy(ImVec2(cell_w * kBanks, cell_h));
    ImGui::BeginChild("bank_rows", ImVec2(0, std::max(ImGui::GetContentRegionAvail().y, ImGui::GetFrameHeight() * 2)), false);
    const auto rows = bank_rows(v);
    std::size_t single = 0;
    for (const BankRow& r : rows) {
        if (r.ways < 2) {
            ++single;
            continue;
        }
        legend_swatch(palette().conflict[conflict_level(r.ways)], printf_string("bank %u:", r.bank).c_str());
        ImGui::SameLine(0, 6);
        ImGui::TextWrapped("%u wavefronts for %u words; lanes %s", r.ways, r.words, lanes_text(r.lanes).c_str());
    }
    const std::size_t unused = kBanks - rows.size();
    if (single)
        wrapped_text(palette().muted, printf_string("%zu%s bank%s: one word each", single, single < rows.size() ? " more" : "", single == 1 ? "" : "s"));
    if (unused) wrapped_text(palette().muted, printf_string("%zu bank%s unused", unused, unused == 1 ? "" : "s"));
    ImGui::EndChild();
}

void bank_rows(App& app, ImVec2 origin, float cell_w, float cell_h, float label_w, const BankView& v)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImFont* small = fonts(app).small;
    const float text_size = cell_text_size(px(small), cell_w, cell_h);
    for (std::size_t r = 0; r < v.rows.size(); ++r) {
        const float y = origin.y + float(r) * cell_h;
        dl->AddText(small, text_size, ImVec2(origin.x - label_w, y + (cell_h - text_size) * 0.5f), palette().muted,
                    std::to_string(v.rows[r] * kBanks).c_str());
        if (r > 0 && v.rows[r] != v.rows[r - 1] + 1)  // rows left out in between
            dl->AddLine(ImVec2(origin.x, y - 1), ImVec2(origin.x + cell_w * kBanks, y - 1), palette().muted, 2.0f);
        for (unsigned b = 0; b < kBanks; ++b) {
            const ImVec2 a(origin.x + b * cell_w, y);
            const auto it = v.lanes_by_word.find(v.rows[r] * kBanks + b);
            const bool hit = it != v.lanes_by_word.end();
            dl->AddRectFilled(a, ImVec2(a.x + cell_w - 1, a.y + cell_h - 1),
                              hit ? palette().conflict[conflict_level(v.ways[b])] : palette().untouched_word);
            if (hit && legible(text_size, px(small)) && small->CalcTextSizeA(text_size, 1e9f, 0, cell_lanes_text(it->second).c_str()).x < cell_w - 2)
                text_centered(dl, small, text_size, ImVec2(a.x + cell_w * 0.5f, a.y + cell_h * 0.5f), palette().text,
                              cell_lanes_text(it->second));
        }
    }
}

void bank_legend()
{
    for (int level = 0; level < int(palette().conflict.size()); ++level)
        legend_swatch(palette().conflict[level], conflict_label(level));
    end_line();
}

}  // namespace

void bank_picture(App& app, const BankView& v)
{
    const auto& c = v.cost;
    ImGui::Text("%u wavefront%s, ideal %u:", c.wavefronts, c.wavefronts == 1 ? "" : "s", c.ideal);
    if (c.ways() > 1)
        wrapped_text_after(palette().partial_outline, a_ways_text(c.ways()) + " bank conflict");
    else
        wrapped_text_after(palette().text, "no bank conflict");
    help_marker("Shared memory has 32 banks, 4 bytes wide: word w is in bank w mod 32. A warp instruction takes as "
                "many wavefronts as the most distinct words any one bank must deliver; lanes reading the same word "
                "share it. 8-byte accesses are served a half-warp at a time, 16-byte a quarter-warp, and loads whose "
                "lanes agree in pairs (lane l reads what l^1 or l^2 reads) twice as many lanes at a time: each phase "
                "costs at least one wavefront. Each cell is a word (rows of 32 words, labelled with the first word's index); the numbers "
                "are the lanes that touch it (5+2: lane 5 and two more). The bank numbers on top are coloured by how "
                "many ways that bank conflicts.");
    bank_legend();
    ImFont* small = fonts(app).small;
    // Rows of words too short for their lane numbers: the compact form tells the same per bank.
    const bool rows_legible = (ImGui::GetContentRegionAvail().y - 6) / float(v.rows.size() + 1) >= px(small) * 0.9f;
    if (c.ways() >= kCompactBankWays || !rows_legible) {
        compact_bank_picture(app, v);
        return;
    }
    const float label_w = small->CalcTextSizeA(px(small), 1e9f, 0, "00000 ").x;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float cell_w = std::floor((avail.x - label_w) / kBanks);
    const float cell_h = std::floor(std::clamp((avail.y - 6) / float(v.rows.size() + 1), 6.0f, std::max(6.0f, cell_w * 0.9f)));
    const ImVec2 origin(ImGui::GetCursorScreenPos().x + label_w, ImGui::GetCursorScreenPos().y);
    bank_header(app, origin, cell_w, cell_h, v);
    bank_rows(app, ImVec2(origin.x, origin.y + cell_h + 3), cell_w, cell_h, label_w, v);
    const ImVec2 end(origin.x + cell_w * kBanks, origin.y + cell_h * float(v.rows.size() + 1) + 3);
    add_region(app, "banks.grid", origin, end);
    ImGui::Dummy(ImVec2(avail.x, end.y - origin.y));
}

void shared_values_panel(App& app)
{
    if (begin_panel(app, Panel::SharedValues, "Shared memory: values after the step")) {
        if (!no_trace_note(app)) {
            const TracedRun* run = current_run(app);
            legend_swatch(palette().written_cell, "written in this step");
            legend_swatch(palette().read_cell, "read");
            legend_swatch(palette().unwritten_cell, "never written");
            help_marker("Each arrow goes from a value a thread read to the cell the same thread wrote in this step: "
                        "the reduction tree, one level per step. The focused warp's arrows are dark; hover a thread "
                        "in the grid above to see its own.");
            end_line();
            const auto arrays = shared_arrays(run->block);
            if (arrays.empty()) ImGui::TextDisabled("This version uses no shared memory.");
            const ImVec2 min = ImGui::GetCursorScreenPos(), size = ImGui::GetContentRegionAvail();
            const auto plan = plan_arrays(arrays, min, size, ImGui::GetTextLineHeightWithSpacing());
            for (std::size_t i = 0; i < arrays.size(); ++i) draw_array(app, *run, arrays[i], plan[i].first, plan[i].second);
        }
    }
    end_panel();
}

void banks_panel(App& app)
{
    if (begin_panel(app, Panel::Banks, "Shared memory banks: one warp instruction")) {
        if (!no_trace_note(app)) {
            const TracedRun* run = current_run(app);
            const auto events = memory_events(run->block, app.sel.step, wl::trace::Space::Shared);
            if (events.empty()) {
                ImGui::TextDisabled("No shared-memory access in this step.");
            } else {
                instruction_picker("banks", events, app.focus.shared_event);
                if (app.focus.shared_event) {
                    wrapped_text_after(palette().text, instruction_label(app, run->block.events[*app.focus.shared_event]));
                    bank_picture(app, bank_view(run->block.events[*app.focus.shared_event]));
                }
            }
        }
    }
    end_panel();
}

}  // namespace warplab::viewer
