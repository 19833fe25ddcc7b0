// Frames without a display: one screenshot, or a tour of every version and
// step. Both draw finished animations, so a picture is the same every time.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "viewer/app/app.h"
#include "viewer/app/options.h"
#include "viewer/platform/platform.h"

namespace warplab::viewer {

// Draws `frames` frames (ImGui settles sizes over the first two) and keeps the last unpresented.
void render_frames(Platform& platform, App& app, int frames);

// A frame's pixels, drawn as render_frames does and then presented.
Image frame_image(Platform& platform, App& app);

// Every panel's rectangle, the named regions, the palette and the status, for tests.
nlohmann::json layout_document(App& app, const Image& image);

// Exit codes: 0 written; 1 a file could not be written.
int run_screenshot(Platform& platform, App& app, const Options& options);
int run_tour(Platform& platform, App& app, const Options& options);  // a lesson's (--lesson) is run_lesson_tour's
// Exit codes: 0 written; 1 a file could not be written, or a question's answer is not the trace's.
int run_lesson_tour(Platform& platform, App& app, const Options& options);

}  // namespace warplab::viewer
