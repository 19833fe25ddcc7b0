// Occupancy: the selected version's registers and shared memory (ptxas's
// report of the lab's PTX) at its bench block size, and what that leaves
// resident on one SM of the chosen GPU: blocks, warps, occupancy, and the
// blocks each resource alone would allow, the bounding ones highlighted.
// "What if" sliders for the block size, registers and shared memory recompute
// it live; Reset returns to the kernel's own values.
#include <imgui.h>

#include <algorithm>
#include <stdexcept>

#include "viewer/panels/draw_util.h"
#include "viewer/model/format.h"
#include "viewer/panels/panels.h"
#include "warplab/occupancy.h"

namespace warplab::viewer {

namespace {

namespace occ = wl::occupancy;

void gpu_picker(App& app)
{
    const auto& archs = occ::architectures();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
    if (ImGui::BeginCombo("GPU", archs[app.occupancy.arch].name)) {
        for (std::size_t i = 0; i < archs.size(); ++i)
            if (ImGui::Selectable(archs[i].name, i == app.occupancy.arch)) app.occupancy.arch = i;
        ImGui::EndCombo();
    }
}

// One what-if slider: shows the value in use; moving it sets the what-if.
// Its label beside it where the column holds both (`beside`), else above it.
void what_if_slider(const char* label, bool beside, std::optional<unsigned>& what_if, unsigned own, int lo, int hi)
{
    int value = int(what_if.value_or(own));
    if (!beside) ImGui::TextUnformatted(label);
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * (beside ? 0.5f : 1.0f));
    if (ImGui::SliderInt(beside ? label : ("##" + std::string(label)).c_str(), &value, lo, hi, "%d", ImGuiSliderFlags_AlwaysClamp))
        what_if = unsigned(value);
    if (what_if && *what_if != own) {
        const std::string kernel = "(kernel: " + std::to_string(own) + ")";
        ImGui::SameLine();
        wrap_unless_fits(ImGui::CalcTextSize(kernel.c_str()).x);
        ImGui::TextDisabled("%s", kernel.c_str());
    }
}

void sliders(App& app, const occ::Arch& arch, const occ::KernelResources& k, unsigned own_block, unsigned own_dynamic_shared)
{
    occ::WhatIf& w = app.occupancy.what_if;
    // A narrow column (a 4:3 desk's half of the panel) has no room for the
    // widest label beside a half-width slider: every label goes above its slider.
    const char* widest = "shared bytes per block";
    const float avail = ImGui::GetContentRegionAvail().x;
    const bool beside = avail * 0.5f + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(widest).x <= avail;
    what_if_slider("threads per block", beside, w.block, own_block, 32, int(arch.max_threads_per_block));
    what_if_slider("registers per thread", beside, w.registers, k.registers, 1, int(arch.max_registers_per_thread));
    what_if_slider(widest, beside, w.shared, k.shared_static + own_dynamic_shared, 0, int(arch.shared_per_block));
    if (ImGui::Button("Reset to the kernel's")) w = {};
}

// The blocks per SM each resource allows, as bars against the architecture's block slots.
void limits_chart(App& app, const occ::Arch& arch, const occ::Occupancy& o)
{
    const Palette& pal = palette();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float row_h = ImGui::GetFrameHeightWithSpacing();
    const float label_w = ImGui::CalcTextSize("shared memory  ").x;
    const ImVec2 min = ImGui::GetCursorScreenPos();
    const float width = ImGui::GetContentRegionAvail().x;
    const float bar_w = width - label_w - ImGui::CalcTextSize(" no limit ").x;
    const unsigned scale = arch.max_blocks_per_sm;
    float y = min.y;
    for (occ::Limiter l : {occ::Limiter::Threads, occ::Limiter::Blocks, occ::Limiter::Registers, occ::Limiter::SharedMemory}) {
        const unsigned blocks = o.blocks_by(l);
        const bool bounds = o.limited_by(l);
        const ImU32 colour = bounds ? pal.bar_selected : pal.bar;
        dl->AddText(ImVec2(min.x, y), bounds ? pal.text : pal.muted, occ::to_string(l));
        const float fill = float(std::min(blocks, scale)) / float(scale);
        const ImVec2 a(min.x + label_w, y + 3), b(min.x + label_w + bar_w, y + row_h - 5);
        dl->AddRectFilled(a, b, pal.bar_background);
        dl->AddRectFilled(a, ImVec2(a.x + fill * bar_w, b.y), colour);
        const std::string text = blocks == occ::kUnlimited ? "no limit" : std::to_string(blocks);
        dl->AddText(ImVec2(b.x + 6, y), bounds ? pal.text : pal.muted, text.c_str());
        y += row_h;
    }
    add_region(app, "occupancy.limits", min, ImVec2(min.x + width, y));
    ImGui::Dummy(ImVec2(width, y - min.y));
}

void summary(App& app, const occ::Arch& arch, const occ::Occupancy& o)
{
    if (!o.unlaunchable.empty()) {
        wrapped_text(palette().fault_text, "Cannot launch: " + o.unlaunchable + ".");
        return;
    }
    ImGui::PushFont(fonts(app).big);
    ImGui::Text("%.0f %%", 100.0 * o.fraction);
    ImGui::PopFont();
    ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::Text("%u block%s of %u warps per SM: %u of %u warps", o.blocks_per_sm, o.blocks_per_sm == 1 ? "" : "s",
                o.warps_per_block, o.warps_per_sm,
                arch.max_warps_per_sm);
    ImGui::Text("limited by %s", o.limiters().c_str());
    ImGui::EndGroup();
}

}  // namespace

void occupancy_panel(App& app)
{
    if (begin_panel(app, Panel::Occupancy, "Occupancy")) {
        const auto& v = current_version(app);
        const occ::Arch& arch = occ::architectures()[app.occupancy.arch];
        try {
            const UserLab* user = v.id == std::string_view(kUserVersionId) ? app.user_lab.get() : nullptr;
            const occ::LaunchUsage launch =
                user ? user_launch_usage(user->lab.id, *find_version(user->lab, user->as_version), user->file, user->kernel,
                                         element_type(app), app.occupancy.what_if).launch
                     : occ::launch_usage(current_lab(app).id, v.kernel, v.bench_block, element_type(app), app.occupancy.what_if,
                                         v.dynamic_shared_bytes);
            const occ::KernelResources& k = *launch.instance;
            const std::string dynamic =
                v.dynamic_shared_bytes ? " + " + std::to_string(v.dynamic_shared_bytes) + " B dynamic" : std::string();
            wrapped_text(palette().muted, k.entry + ": " + std::to_string(k.registers) + " registers, " +
                                              std::to_string(k.shared_static) + " B shared" + dynamic + ", " +
                                              std::to_string(k.stack + k.spill_stores + k.spill_loads) + " B local");
            ImGui::SameLine();
            help_marker("Registers, shared memory and local (stack, spill) bytes as ptxas compiles the lab's kernels for "
                        "sm_90a, at the block size `warplab bench` times the version at. Occupancy: resident warps "
                        "per SM over the most the SM holds. The bars: blocks per SM each resource alone allows; the "
                        "highlighted ones bound it.");
            const occ::Occupancy o = occ::occupancy(arch, launch.usage);
            summary(app, arch, o);
            // Blocks per SM by resource beside the what-if sliders.
            if (ImGui::BeginTable("##occupancy", 2)) {
                ImGui::TableNextColumn();
                limits_chart(app, arch, o);
                ImGui::TableNextColumn();
                gpu_picker(app);
                sliders(app, arch, k, v.bench_block, v.dynamic_shared_bytes);
                ImGui::EndTable();
            }
        } catch (const std::invalid_argument& e) {
            wrapped_text(palette().muted, e.what());
        }
    }
    end_panel();
}

}  // namespace warplab::viewer
