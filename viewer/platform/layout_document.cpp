// The layout document of headless.h: what a test reads of a frame, on the
// desktop (--layout-json) and in the browser (the page reports it).
#include "viewer/platform/headless.h"
#include "viewer/panels/panels.h"

namespace warplab::viewer {

namespace {

nlohmann::json rect_json(const Rect& r) { return nlohmann::json::array({r.x, r.y, r.w, r.h}); }

}  // namespace

nlohmann::json layout_document(App& app, const Image& image)
{
    nlohmann::json panels = nlohmann::json::object(), regions = nlohmann::json::object();
    for (int i = 0; i < kPanelCount; ++i)
        if (app.layout.shown[i]) panels[panel_name(Panel(i))] = rect_json(app.layout.rects[i]);
    for (const auto& [name, r] : app.regions) regions[name] = rect_json(r);
    const TraceSlot& slot = current_trace(app);
    nlohmann::json lesson;  // null without one
    if (app.lesson.lesson)
        lesson = {{"title", app.lesson.lesson->title}, {"slide", app.lesson.slide + 1}, {"slides", app.lesson.lesson->slides.size()},
                  {"revealed", app.lesson.revealed}, {"typed", app.lesson.typed},
                  {"matched", app.lesson.matched ? nlohmann::json(*app.lesson.matched) : nlohmann::json()}};
    return {{"size", {image.width, image.height}},
            {"presenter", app.presenter},
            {"lab", current_lab(app).id},
            {"version", current_version(app).id},
            {"step", app.sel.step},
            {"warp_size", app.sel.warp_width},
            {"compare_widths", app.compare_widths},
            {"steps", step_count(app)},
            {"lesson", lesson},
            {"panels", panels},
            {"regions", regions},
            {"palette", palette_json()},
            {"status", {{"text", status_text(app)}, {"error", slot.error}, {"fault", slot.fault}, {"gpu_deadline", slot.gpu_deadline}, {"pending", slot.pending.has_value()},
                        {"warnings", slot.run ? slot.run->result.warnings : std::vector<std::string>{}},
                        {"trace_source", slot.run ? slot.run->result.backend : ""},
                        {"results_error", app.timing.load_error}}}};
}

}  // namespace warplab::viewer
