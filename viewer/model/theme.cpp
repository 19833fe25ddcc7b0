#include "viewer/model/theme.h"

#include <filesystem>
#include <string>

namespace warplab::viewer {

namespace {

constexpr ImU32 rgb(std::uint32_t hex, std::uint32_t alpha = 255)
{
    return IM_COL32((hex >> 16) & 0xFF, (hex >> 8) & 0xFF, hex & 0xFF, alpha);
}

ImVec4 rgb4(std::uint32_t hex, float alpha = 1.0f)
{
    return ImVec4(((hex >> 16) & 0xFF) / 255.0f, ((hex >> 8) & 0xFF) / 255.0f, (hex & 0xFF) / 255.0f, alpha);
}

// Okabe-Ito: black 000000, orange E69F00, sky blue 56B4E9, bluish green 009E73,
// yellow F0E442, blue 0072B2, vermillion D55E00, reddish purple CC79A7.
const Palette kPalette{
    .text = rgb(0x111111),
    .muted = rgb(0x5A5A5A),
    .panel = rgb(0xFFFFFF),
    .bar_background = rgb(0xF0F0F0),
    .grid_line = rgb(0xC8C8C8),
    .active = rgb(0x0072B2),
    .idle = rgb(0xD9D9D9),
    .absent = rgb(0xBBBBBB),
    .partial_outline = rgb(0xD55E00),
    .focus_outline = rgb(0x111111),
    .changed_line = rgb(0xCFE5F7),
    .comment_changed_line = rgb(0xEDF4FA),
    .step_line = rgb(0xFBE2B0),
    .step_marker = rgb(0xE69F00),
    .read_arrow = rgb(0x0072B2),
    .read_arrow_faint = rgb(0x0072B2, 70),
    .written_cell = rgb(0xFBE2B0),
    .read_cell = rgb(0xDCEEFA),
    .unwritten_cell = rgb(0xEDEDED),
    .bar = rgb(0xB5B5B5),
    .bar_selected = rgb(0x0072B2),
    .bar_previous = rgb(0x56B4E9),
    .reference_line = rgb(0x009E73),
    .fault_banner = rgb(0xD55E00),
    .fault_text = rgb(0xFFFFFF),
    .untouched_word = rgb(0xF3F3F3),
    .conflict = {rgb(0x56B4E9), rgb(0xF0E442), rgb(0xE69F00), rgb(0xD55E00), rgb(0xCC79A7), rgb(0x882255)},
    .sector = {rgb(0x0072B2), rgb(0xE69F00), rgb(0x009E73), rgb(0xCC79A7)},
};

// Where Debian (fonts-dejavu-core), Arch and Fedora put DejaVu; empty if nowhere.
std::string find_font(std::initializer_list<const char*> names)
{
    constexpr const char* dirs[] = {"/usr/share/fonts/truetype/dejavu/", "/usr/share/fonts/TTF/", "/usr/share/fonts/dejavu/",
                                    "/usr/local/share/fonts/"};
    for (const char* dir : dirs)
        for (const char* name : names)
            if (std::filesystem::exists(std::string(dir) + name)) return std::string(dir) + name;
    return {};
}

// The characters the panels draw (glyph_ranges.def, which the browser build's
// fonts are cut to as well). ImGui keeps the pointer until the atlas is built,
// hence static storage.
const ImWchar* glyph_ranges()
{
    static constexpr ImWchar ranges[] = {
#define WL_GLYPH_RANGE(first, last) first, last,
#include "viewer/model/glyph_ranges.def"
#undef WL_GLYPH_RANGE
        0};
    return ranges;
}

ImFont* add_font(std::initializer_list<const char*> names, float size)
{
    ImGuiIO& io = ImGui::GetIO();
    if (const std::string path = find_font(names); !path.empty()) {
        ImFontConfig cfg;
        cfg.OversampleH = 2;
        if (ImFont* f = io.Fonts->AddFontFromFileTTF(path.c_str(), size, &cfg, glyph_ranges())) return f;
    }
    ImFontConfig cfg;
    cfg.SizePixels = size;
    return io.Fonts->AddFontDefault(&cfg);
}

FontSet font_set(float ui, float mono, float small, float big)
{
    return {add_font({"DejaVuSans.ttf"}, ui), add_font({"DejaVuSansMono.ttf"}, mono),
            add_font({"DejaVuSansCondensed.ttf", "DejaVuSans.ttf"}, small), add_font({"DejaVuSans-Bold.ttf"}, big)};
}

}  // namespace

const Palette& palette() { return kPalette; }

int conflict_level(double ways)
{
    if (ways <= 1) return 0;
    if (ways <= 2) return 1;
    if (ways <= 4) return 2;
    if (ways <= 8) return 3;
    if (ways <= 16) return 4;
    return 5;
}

const char* conflict_label(int level)
{
    static constexpr const char* labels[] = {"1 (no conflict)", "2-way", "3-4", "5-8", "9-16", "17-32"};
    return labels[level];
}

nlohmann::json palette_json()
{
    const auto c = [](ImU32 v) {
        return nlohmann::json::array({v & 0xFF, (v >> 8) & 0xFF, (v >> 16) & 0xFF});
    };
    const Palette& p = palette();
    nlohmann::json conflict = nlohmann::json::array();
    for (ImU32 v : p.conflict) conflict.push_back(c(v));
    return {{"active", c(p.active)}, {"idle", c(p.idle)}, {"partial_outline", c(p.partial_outline)},
            {"fault_banner", c(p.fault_banner)}, {"conflict", conflict}, {"untouched_word", c(p.untouched_word)},
            {"bar_selected", c(p.bar_selected)}, {"reference_line", c(p.reference_line)}, {"changed_line", c(p.changed_line)}};
}

Fonts load_fonts(float scale)
{
    Fonts f;
    f.scale = scale;
    // Presenting, nothing is smaller than 24 px at 1080p: the back row reads the numbers in the cells too.
    f.desk = font_set(16 * scale, 14 * scale, 13 * scale, 30 * scale);
    f.presenter = font_set(24 * scale, 24 * scale, 24 * scale, 54 * scale);
    return f;
}

void apply_style(bool presenter)
{
    ImGuiStyle& s = ImGui::GetStyle();
    s = ImGuiStyle();
    ImGui::StyleColorsLight(&s);
    s.WindowRounding = 0;
    s.FrameRounding = 3;
    s.WindowBorderSize = 1;
    s.WindowPadding = presenter ? ImVec2(14, 10) : ImVec2(8, 6);
    s.ItemSpacing = presenter ? ImVec2(12, 8) : ImVec2(8, 5);
    s.ScrollbarSize = presenter ? 18 : 13;
    ImVec4* c = s.Colors;
    c[ImGuiCol_Text] = rgb4(0x111111);
    c[ImGuiCol_TextDisabled] = rgb4(0x5A5A5A);
    c[ImGuiCol_WindowBg] = rgb4(0xFFFFFF);
    c[ImGuiCol_ChildBg] = rgb4(0xFFFFFF, 0.0f);  // the frame is cleared to white: a child's fill is time for nothing
    c[ImGuiCol_PopupBg] = rgb4(0xFFFFF4);
    c[ImGuiCol_Border] = rgb4(0xB8B8B8);
    c[ImGuiCol_TitleBg] = rgb4(0xE4E4E4);
    c[ImGuiCol_TitleBgActive] = rgb4(0xE4E4E4);
    c[ImGuiCol_TitleBgCollapsed] = rgb4(0xE4E4E4);
    c[ImGuiCol_MenuBarBg] = rgb4(0xF0F0F0);
    c[ImGuiCol_Header] = rgb4(0xCFE5F7);
    c[ImGuiCol_HeaderHovered] = rgb4(0xB7D8F2);
    c[ImGuiCol_HeaderActive] = rgb4(0x9CCBEE);
    c[ImGuiCol_Button] = rgb4(0xE2E2E2);
    c[ImGuiCol_ButtonHovered] = rgb4(0xB7D8F2);
    c[ImGuiCol_ButtonActive] = rgb4(0x9CCBEE);
    c[ImGuiCol_FrameBg] = rgb4(0xEDEDED);
    c[ImGuiCol_SliderGrab] = rgb4(0x0072B2);
    c[ImGuiCol_SliderGrabActive] = rgb4(0x005A8C);
    c[ImGuiCol_CheckMark] = rgb4(0x0072B2);
    c[ImGuiCol_TableHeaderBg] = rgb4(0xE8E8E8);
    c[ImGuiCol_TableRowBgAlt] = rgb4(0xF6F6F6);
}

}  // namespace warplab::viewer
