// Checks a frame's text as a class would see it, from what Dear ImGui drew:
// every glyph is a textured quad in the draw lists, so text cut off by its
// window's clip rectangle, text drawn over other text, and panel contents
// that run past a panel that cannot scroll can be found without
// rasterizing. The layout test runs it over every lab, version and step.
#pragma once
#include <string>
#include <vector>

#include <imgui.h>

namespace warplab::viewer {

struct TextProblem {
    enum class Kind { Clipped, Overlap, Overflow } kind;
    std::string window;  // the panel's window title
    std::string text;    // the glyphs concerned, as far as they are known
    ImVec2 min, max;     // where on the screen
    std::string describe() const;
};

// Call after ImGui::Render(), before the next frame.
std::vector<TextProblem> check_text(const ImDrawData& data);

}  // namespace warplab::viewer
