// Image (the image lab's own panel): the picture, downsampled, with
// the watched group's tile outlined on it, and the grid of partial sums after
// each pass as a heat map (the first pass's, then the later ones' down to one
// value). The threads panel draws the 2D group's threads in rows of the warp
// width; the time panel the recorded times.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "labs/image/problem.h"
#include "labs/image/versions.h"
#include "viewer/panels/draw_util.h"
#include "viewer/model/format.h"
#include "viewer/panels/panels.h"

namespace warplab::viewer {

namespace {

// The tile one group of the version covers: (fetch_x · BX) × (fetch_y · BY) pixels.
ImVec2 tile_of(const std::string& version, const RunResult& r)
{
    ImVec2 tile(float(r.block_dim.at(0)), float(r.block_dim.at(1)));
    with_version<image::Versions>(version, [&](auto v) {
        tile.x *= float(decltype(v)::fetch_x);
        tile.y *= float(decltype(v)::fetch_y);
    });
    return tile;
}

// The picture the run reduced, each of its squares in its mean colour
// (RunResult::picture), scaled into `size` at `at`; the watched group's tile
// (in pixels of the `width`-pixel-wide picture) outlined.
void picture(App& app, const PictureCells& p, std::size_t width, ImVec2 at, ImVec2 size, ImVec2 tile, unsigned watched, unsigned groups_x)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float scale = size.x / float(width), cell = float(p.cell) * scale;
    for (unsigned y = 0; y < p.height; ++y)
        for (unsigned x = 0; x < p.width; ++x) {
            const std::uint8_t* rgb = &p.rgb[(std::size_t(y) * p.width + x) * 3];
            const ImVec2 a(at.x + float(x) * cell, at.y + float(y) * cell);
            const ImVec2 b(std::min(at.x + size.x, a.x + cell), std::min(at.y + size.y, a.y + cell));
            // Half a pixel over each edge: neighbouring cells overlap instead of leaving seams.
            dl->AddRectFilled(ImVec2(a.x - 0.5f, a.y - 0.5f), ImVec2(b.x + 0.5f, b.y + 0.5f), IM_COL32(rgb[0], rgb[1], rgb[2], 255));
        }
    const ImVec2 corner(at.x + float(watched % groups_x) * tile.x * scale, at.y + float(watched / groups_x) * tile.y * scale);
    dl->AddRect(corner, ImVec2(corner.x + tile.x * scale, corner.y + tile.y * scale), palette().focus_outline, 0, 0, 2.0f);
    app.regions["image.picture"] = Rect{at.x, at.y, size.x, size.y};
}

// One pass's grid of partials as a heat map, from 0 (dark) to its largest value (bright).
void partials(App& app, const PassGrid& g, std::size_t pass, ImVec2 at, float cell)
{
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float top = *std::max_element(g.values.begin(), g.values.end());
    for (unsigned y = 0; y < g.height; ++y)
        for (unsigned x = 0; x < g.width; ++x) {
            const float v = top > 0 ? std::clamp(g.values[y * g.width + x] / top, 0.0f, 1.0f) : 0.0f;
            const auto level = static_cast<int>(40 + 215 * v);
            const ImVec2 a(at.x + float(x) * cell, at.y + float(y) * cell);
            dl->AddRectFilled(a, ImVec2(a.x + cell, a.y + cell), IM_COL32(level, level, level / 2, 255));
        }
    app.regions["image.pass" + std::to_string(pass)] = Rect{at.x, at.y, float(g.width) * cell, float(g.height) * cell};
}

}  // namespace

void image_panel(App& app)
{
    if (begin_panel(app, Panel::Image, "Image: the picture, the watched group's tile, the partials after each pass")) {
        const TracedRun* run = current_run(app);
        if (!run || run->result.pass_grids.empty() || run->result.picture.rgb.empty() || run->result.shape.size() != 2) {
            ImGui::TextDisabled("No run to draw.");
        } else {
            const RunResult& r = run->result;
            const image::PictureSize p{r.shape[0], r.shape[1]};
            const ImVec2 tile = tile_of(current_version(app).id, r);
            ImGui::TextDisabled("%s, %u×%u groups", p.text().c_str(), r.grid_dim.at(0), r.grid_dim.at(1));  // the status line has the rest
            help_marker("Left: the picture, each cell the mean colour of its pixels; the outlined rectangle is the tile of "
                        "the watched group (its threads are in the threads panel, in rows of the warp width). Right: the "
                        "grid of partial sums each pass leaves, one cell a group, brighter for a larger sum; the last is one value.");
            const ImVec2 at = ImGui::GetCursorScreenPos(), room = ImGui::GetContentRegionAvail();
            const float picture_w = std::min(room.x * 0.6f, room.y * float(p.width) / float(p.height));
            const ImVec2 size(picture_w, picture_w * float(p.height) / float(p.width));
            picture(app, r.picture, p.width, at, size, tile, RunRequest{}.watched_block, r.grid_dim.at(0));  // the viewer watches group 0
            float y = at.y;
            const float right = at.x + picture_w + ImGui::GetStyle().ItemSpacing.x * 2, right_w = at.x + room.x - right;
            for (std::size_t i = 0; i < r.pass_grids.size(); ++i) {
                const PassGrid& g = r.pass_grids[i];
                ImGui::GetWindowDrawList()->AddText(ImVec2(right, y), palette().muted,
                                                    printf_string("pass %zu: %u×%u", i + 1, g.width, g.height).c_str());
                y += ImGui::GetTextLineHeight();
                const float cell = std::clamp(std::min(right_w / float(g.width), (at.y + room.y - y) / float(g.height) / 2), 2.0f, 24.0f);
                partials(app, g, i, ImVec2(right, y), cell);
                y += float(g.height) * cell + ImGui::GetStyle().ItemSpacing.y;
            }
            ImGui::Dummy(ImVec2(room.x, std::max(size.y, y - at.y)));
        }
    }
    end_panel();
}

}  // namespace warplab::viewer
