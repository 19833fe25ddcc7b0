// Global memory: one warp instruction's lanes, each joined to the 32-byte
// sector its bytes fall in. Sectors per request, actual against ideal.
#include <imgui.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "viewer/panels/draw_util.h"
#include "viewer/model/format.h"
#include "viewer/panels/panels.h"
#include "viewer/model/step_model.h"

namespace warplab::viewer {

namespace {

void step_summary(const wl::trace::StepMetrics& m)
{
    const unsigned requests = m.global_load.requests + m.global_store.requests;
    const unsigned sectors = m.global_load.sectors + m.global_store.sectors;
    const unsigned ideal = m.global_load.ideal + m.global_store.ideal;
    wrapped_text(palette().muted, printf_string("this step: %u request%s, %u sectors (ideal %u): %.1f sectors/request", requests,
                                                requests == 1 ? "" : "s", sectors, ideal, requests ? double(sectors) / requests : 0.0));
}

// One column per lane of the warp (`warp_size` lanes), each joined to the sectors its bytes touch.
void lanes_to_sectors(App& app, const SectorView& v, unsigned warp_size)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImFont* small = fonts(app).small;
    const Palette& pal = palette();
    const ImVec2 avail = ImGui::GetContentRegionAvail(), top = ImGui::GetCursorScreenPos();
    const float lane_w = std::floor(avail.x / float(warp_size));
    // Lanes, then joins, then sectors 1.6 lanes tall: as tall as the panel leaves room for, 4 pixels at least.
    const float lane_h = std::max(4.0f, std::min({lane_w, px(small) * 1.4f, (avail.y - px(small)) / 4.6f}));
    const float sector_y = top.y + px(small) + lane_h + std::max(lane_h, avail.y - px(small) - lane_h * 2.6f);
    const float sector_w = std::min(lane_w * 8, std::floor(avail.x / float(std::max<std::size_t>(1, v.sectors.size()))));
    const float sectors_x = top.x + (avail.x - sector_w * float(v.sectors.size())) * 0.5f;
    const auto sector_colour = [&](std::size_t s) { return pal.sector[s % pal.sector.size()]; };
    const unsigned last = warp_size - 1;
    for (unsigned lane = 0; lane < warp_size; ++lane) {
        const ImVec2 a(top.x + lane * lane_w, top.y + px(small));
        const bool on = !v.lane_sectors[lane].empty();
        dl->AddRectFilled(a, ImVec2(a.x + lane_w - 2, a.y + lane_h), on ? sector_colour(v.lane_sectors[lane][0]) : pal.idle);
        if (lane % (warp_size / 4) == 0 || lane == last) {  // the last ends at its lane's edge
            const std::string text = std::to_string(lane);
            const float x = lane == last ? a.x + lane_w - 2 - small->CalcTextSizeA(px(small), 1e9f, 0, text.c_str()).x : a.x;
            dl->AddText(small, px(small), ImVec2(x, top.y), pal.muted, text.c_str());
        }
        for (std::uint32_t s : v.lane_sectors[lane])
            dl->AddLine(ImVec2(a.x + lane_w * 0.5f - 1, a.y + lane_h), ImVec2(sectors_x + (float(s) + 0.5f) * sector_w, sector_y),
                        sector_colour(s), 1.5f);
    }
    for (std::size_t s = 0; s < v.sectors.size(); ++s) {
        const ImVec2 a(sectors_x + float(s) * sector_w, sector_y);
        dl->AddRectFilled(a, ImVec2(a.x + sector_w - 3, a.y + lane_h * 1.6f), sector_colour(s));
        const std::string label = printf_string("%llu-%llu", static_cast<unsigned long long>(v.sectors[s] * 32),
                                                static_cast<unsigned long long>(v.sectors[s] * 32 + 31));
        const ImVec2 ls = small->CalcTextSizeA(px(small), 1e9f, 0, label.c_str());
        if (ls.x < sector_w - 4 && ls.y <= lane_h * 1.6f)
            text_centered(dl, small, px(small), ImVec2(a.x + (sector_w - 3) * 0.5f, a.y + lane_h * 0.8f), pal.panel, label);
    }
    const ImVec2 end(top.x + avail.x, sector_y + lane_h * 1.6f);
    add_region(app, "global.sectors", top, end);
    ImGui::Dummy(ImVec2(avail.x, end.y - top.y));
}

void instruction_view(App& app, const wl::trace::WarpEvent& e, unsigned warp_size)
{
    const SectorView v = sector_view(e);
    const unsigned lanes = unsigned(std::popcount(e.mask));
    const unsigned bytes = lanes * e.size;
    ImGui::TextWrapped("%u lane%s x %u bytes = %u bytes: %u sector%s, ideal %u", lanes, lanes == 1 ? "" : "s", unsigned(e.size),
                       bytes, v.cost.sectors, v.cost.sectors == 1 ? "" : "s", v.cost.ideal);
    help_marker("Global memory moves in 32-byte sectors. One warp instruction is one request; it costs every sector "
                "its active lanes' bytes touch. The ideal is the bytes requested / 32, rounded up: 4 sectors for 32 "
                "lanes reading consecutive 4-byte words. Scattered or misaligned addresses touch more.");
    lanes_to_sectors(app, v, warp_size);
}

}  // namespace

void global_panel(App& app)
{
    if (begin_panel(app, Panel::Global, "Global memory: lanes to 32-byte sectors")) {
        if (!no_trace_note(app)) {
            const TracedRun& run = *current_run(app);
            const auto events = memory_events(run.block, app.sel.step, wl::trace::Space::Global);
            if (events.empty()) {
                ImGui::TextDisabled("No global-memory access in this step.");
            } else {
                instruction_picker("global", events, app.focus.global_event);
                if (app.focus.global_event) {
                    const auto& e = run.block.events[*app.focus.global_event];
                    wrapped_text_after(palette().text, instruction_label(app, e));
                    if (!app.presenter) step_summary(run.steps[app.sel.step]);
                    instruction_view(app, e, run.block.warp_size);
                }
            }
        }
    }
    end_panel();
}

}  // namespace warplab::viewer
