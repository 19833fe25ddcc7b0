// Small drawing pieces the panels share: the panel frame, the "(?)" marker,
// legend swatches, arrows, and the instruction picker of the banks and global panels.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <imgui.h>

#include "viewer/app/app.h"

namespace warplab::viewer {

// A font's size in pixels on screen (its loaded size times the global scale).
inline float px(const ImFont* font) { return font->FontSize * ImGui::GetIO().FontGlobalScale; }

// The fonts' scale for a window size: presenting, the text follows the
// screen's height (24 px body text at 1080p, 17 at 768); at the desk it keeps
// its loaded size up to 1400 pixels of height, and grows on 4K screens.
float font_scale(float width, float height, bool presenter);

// A fixed window at the layout's rectangle for the panel. Always pair with end_panel().
bool begin_panel(App& app, Panel panel, const char* title, ImGuiWindowFlags extra_flags = 0);
void end_panel();
// Fills the current panel with a colour (the header and status bars are grey).
void fill_panel(ImU32 colour);

// After SameLine(): starts a new line unless an item `width` wide fits on this one.
void wrap_unless_fits(float width);
// After SameLine(): starts a new line (NewLine() would count the spot past the last item as contents).
void end_line();

// "(?)" after the last item (on the next line if it does not fit); hovering it shows the text.
void help_marker(const char* text);
// The same explanation when the last item is hovered (a table header that ends in "(?)").
void help_tooltip(const char* text);

// A coloured square and its label, on the current line (the next, if it does not fit).
void legend_swatch(ImU32 fill, const char* label, ImU32 outline = 0);

// Records a named rectangle drawn this frame (tests find pixels by it).
void add_region(App& app, const std::string& name, ImVec2 min, ImVec2 max);
// Records what of the current window is seen (inside its scroll bars): a
// region drawn in it is on screen where it lies inside this one.
void add_view_region(App& app, const std::string& name);

// A panel that keeps the step (or version) in view scrolls to it every frame
// until the user scrolls it (the wheel or a click over it): then `follow`
// turns false, until the next step. Returns whether to scroll.
bool keep_following(bool& follow);

// Text centred on a point, with a given font and size.
void text_centered(ImDrawList* dl, ImFont* font, float size, ImVec2 center, ImU32 colour, const std::string& text);

// An arrow from `from` towards `to`; progress 0..1 draws it growing.
void arrow(ImDrawList* dl, ImVec2 from, ImVec2 to, ImU32 colour, float thickness, float progress = 1.0f);
// An arrow that bows sideways by `bend` pixels (arcs over neighbours in one row).
void curved_arrow(ImDrawList* dl, ImVec2 from, ImVec2 to, float bend, ImU32 colour, float thickness, float progress = 1.0f);

// "< instruction 2 of 5 >" over a list of event indices; returns true when the focus changed.
bool instruction_picker(const char* id, const std::vector<std::size_t>& events, std::optional<std::size_t>& focus);

// `text` with its spaces turned into line breaks where a line would pass
// `width` in the current font: lines break between words only (ImGui's own
// wrapping also breaks after '.' and ',', which splits "-34.8736012"). A word
// wider than `width` keeps a line of its own.
std::string wrap_at_spaces(const std::string& text, float width);
// `text` cut to `width` in the current font: its start and end kept, "…" in
// place of the middle (a file name keeps its extension and line number); a
// text that fits is left whole, and at least "…" is kept.
std::string elided(const std::string& text, float width);
// Text wrapped to the available width in a colour, between words.
void wrapped_text(ImU32 colour, const std::string& text);
// The same after the last item on its line, or on the next line where it does not fit there.
void wrapped_text_after(ImU32 colour, const std::string& text);

// The shared label of one warp instruction: "warp 0 · load sdata · line 33".
std::string instruction_label(App& app, const wl::trace::WarpEvent& e);

// The name of a memory array in the version's source: a shared array's name, or a kernel argument's.
std::string array_name(App& app, wl::trace::Space space, std::uint8_t array);

// Shown in place of a panel's contents when there is no trace to draw.
bool no_trace_note(App& app);

}  // namespace warplab::viewer
