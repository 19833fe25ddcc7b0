// Colours and fonts. Light, high-contrast, for a projector as much as a laptop;
// the categorical colours are Okabe & Ito's colour-blind-safe set, so active
// vs idle is blue vs grey and conflicts run yellow -> orange -> vermillion ->
// purple, never red against green.
#pragma once
#include <array>
#include <cstdint>

#include <imgui.h>
#include <nlohmann/json.hpp>

namespace warplab::viewer {

struct Palette {
    ImU32 text, muted, panel, bar_background, grid_line;
    ImU32 active, idle, absent, partial_outline, focus_outline;
    ImU32 changed_line, comment_changed_line, step_line, step_marker;
    ImU32 read_arrow, read_arrow_faint, written_cell, read_cell, unwritten_cell;
    ImU32 bar, bar_selected, bar_previous, reference_line;
    ImU32 fault_banner, fault_text;
    ImU32 untouched_word;
    std::array<ImU32, 6> conflict;  // 1-way (none), 2, 3-4, 5-8, 9-16, 17-32 ways
    std::array<ImU32, 4> sector;    // alternating sector colours in the global panel
};
const Palette& palette();

// Index into Palette::conflict for an n-way count, and its legend text.
int conflict_level(double ways);
const char* conflict_label(int level);

// The palette as {name: [r, g, b]} for tests.
nlohmann::json palette_json();

struct FontSet {
    ImFont* ui = nullptr;     // labels and tables
    ImFont* mono = nullptr;   // source code
    ImFont* small = nullptr;  // numbers inside cells
    ImFont* big = nullptr;    // the step counter
};
struct Fonts {
    FontSet desk, presenter;
    float scale = 1;  // rasterized at this multiple of their 1080p sizes, so large windows get sharp text
};
// Adds the fonts to ImGui's atlas at `scale` times their sizes: DejaVu where
// installed, else ImGui's own.
Fonts load_fonts(float scale = 1);

void apply_style(bool presenter);

}  // namespace warplab::viewer
