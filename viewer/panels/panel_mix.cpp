// The instruction mix (warplab/trace/mix.h): the step's warp instructions by
// class beside the whole block's, each with a bar of its share, so that the
// arithmetic a kernel issues stands next to its loads and stores: what the
// bottleneck method reasons about.
#include <imgui.h>

#include <algorithm>
#include <string>

#include "viewer/model/format.h"
#include "viewer/model/theme.h"
#include "viewer/panels/draw_util.h"
#include "viewer/panels/panels.h"

namespace warplab::viewer {

namespace {

// One row: the class, its count in the step and in the block, and a bar of its share of the block.
void class_row(const char* word, std::uint64_t in_step, std::uint64_t in_block, std::uint64_t block_all)
{
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(word);
    ImGui::TableNextColumn();
    ImGui::Text("%llu", static_cast<unsigned long long>(in_step));
    ImGui::TableNextColumn();
    ImGui::Text("%llu", static_cast<unsigned long long>(in_block));
    ImGui::TableNextColumn();
    const float share = block_all ? float(double(in_block) / double(block_all)) : 0.0f;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float w = ImGui::GetContentRegionAvail().x, h = ImGui::GetTextLineHeight();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p, ImVec2(p.x + w, p.y + h), palette().bar_background);
    dl->AddRectFilled(p, ImVec2(p.x + w * share, p.y + h), in_step ? palette().bar_selected : palette().bar);
    const std::string pct = std::to_string(int(share * 100 + 0.5f)) + "%";
    dl->AddText(ImVec2(p.x + 4, p.y), palette().text, pct.c_str());
    ImGui::Dummy(ImVec2(w, h));
}

// A count of the step's and of the block's, on a row of the constant table.
void count_row(const char* what, std::uint32_t in_step, std::uint32_t in_block)
{
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(what);
    ImGui::TableNextColumn();
    ImGui::Text("%u", in_step);
    ImGui::TableNextColumn();
    ImGui::Text("%u", in_block);
}

// An n-way cell: a swatch in the bank conflicts' colour of its n, then n (none: "-").
void ways_cell(std::uint32_t ways)
{
    ImGui::TableNextColumn();
    if (ways) legend_swatch(palette().conflict[conflict_level(ways)], ways_text(ways).c_str());
    else ImGui::TextUnformatted(ways_text(ways).c_str());
}

// __constant__ loads, where the block has any (the method lab's v19 and v20):
// the constant cache serves a warp instruction once per distinct address, so
// the mix's ld.const count is not what they cost; n addresses are n-way, as
// warplab trace's constant table counts them. The step's beside the block's,
// above the mix: what a class reasons about in such a kernel.
void constant_table(App& app, const TracedRun& run)
{
    const wl::trace::ConstantStats& block = run.totals.constant_load;
    if (!block.requests) return;
    const wl::trace::ConstantStats step = app.sel.step < run.steps.size() ? run.steps[app.sel.step].constant_load : wl::trace::ConstantStats{};
    const ImVec2 top = ImGui::GetCursorScreenPos();
    ImGui::TextUnformatted("__constant__ loads: one address at a time");
    help_marker("The constant cache gives a warp one address at a time: an instruction whose lanes read n different "
                "addresses is served n times over (n-way), in the colours of the bank conflicts' n-way. A warp-uniform "
                "index reads one address: 1-way.");
    constexpr ImGuiTableFlags kFlags = ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
    if (ImGui::BeginTable("constant", 3, kFlags)) {
        ImGui::TableSetupColumn("##counted");
        ImGui::TableSetupColumn("step");
        ImGui::TableSetupColumn("block");
        ImGui::TableHeadersRow();
        count_row("ld.const instructions", step.requests, block.requests);
        count_row("addresses served", step.addresses, block.addresses);
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted("worst n-way");
        ways_cell(step.worst);
        ways_cell(block.worst);
        ImGui::EndTable();
    }
    add_region(app, "mix.constant", top, ImVec2(ImGui::GetItemRectMax().x, ImGui::GetItemRectMax().y));
    ImGui::Spacing();
}

}  // namespace

void mix_panel(App& app)
{
    if (begin_panel(app, Panel::Mix, "Instruction mix")) {
        const TracedRun* run = current_run(app);
        if (run) constant_table(app, *run);
        if (!run) {
            wrapped_text(palette().muted, std::string(current_version(app).id) + ": no trace");
        } else if (!wl::trace::has_mix(run->block.mix)) {
            wrapped_text(palette().muted, "Not counted in this trace: only the emulator counts instructions (a GPU trace records accesses).");
        } else {
            const std::vector<wl::trace::ClassCounts> by_step = wl::trace::mix_by_step(run->block);
            const wl::trace::ClassCounts total = wl::trace::mix_total(run->block);
            const wl::trace::ClassCounts step = app.sel.step < by_step.size() ? by_step[app.sel.step] : wl::trace::ClassCounts{};
            const std::uint64_t all = wl::trace::instructions(total);
            ImGui::Text("warp instructions: %llu this step, %llu in the block", static_cast<unsigned long long>(wl::trace::instructions(step)),
                        static_cast<unsigned long long>(all));
            help_marker("The instructions the block's warps issued, by class: a warp instruction counts once however many "
                        "of its lanes take part. Counted as ptxas compiles them where its code is fixed (sinf's FMUL, one "
                        "MUFU.RCP a divisor, -x inside its reader, short branches predicated); integer, move and branch "
                        "counts are PTX's. The bar is the class's share of the block; highlighted where this step has some.");
            constexpr ImGuiTableFlags kFlags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingStretchProp;
            if (ImGui::BeginTable("mix", 4, kFlags, ImGui::GetContentRegionAvail())) {
                ImGui::TableSetupScrollFreeze(0, 1);
                ImGui::TableSetupColumn("class", ImGuiTableColumnFlags_WidthFixed);
                ImGui::TableSetupColumn("step", ImGuiTableColumnFlags_WidthFixed);
                ImGui::TableSetupColumn("block", ImGuiTableColumnFlags_WidthFixed);
                ImGui::TableSetupColumn("share of the block", ImGuiTableColumnFlags_WidthStretch);
                ImGui::TableHeadersRow();
                for (std::size_t c = 0; c < wl::trace::kInstructionClasses; ++c)
                    if (total[c]) class_row(wl::trace::kInstructionClassWords[c], step[c], total[c], all);
                ImGui::EndTable();
            }
        }
    }
    end_panel();
}

}  // namespace warplab::viewer
