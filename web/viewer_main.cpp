// warplab-viewer in a browser: the desktop viewer's panels on the page's
// canvas. Options come from the URL's query, which index.html turns into the
// desktop's arguments (?lab=matmul&version=v5&step=2 is --lab=matmul
// --version=v5 --step=2) for the same parser; the frames run in emscripten's
// main loop. What needs nvcc, a GPU or a file system is refused in one line.
// Traces run in the page's Worker (page.js, trace_worker.js): the viewer asks
// for one with warplabStartTrace and draws its slot as pending until the page
// calls warplab_trace_arrived with the reply: the whole trace for a version on
// screen, the totals alone for the metrics panel's other rows.
#include <emscripten.h>
#include <emscripten/html5.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

#include "labs/common/bench_json.h"
#include "viewer/platform/headless.h"
#include "viewer/app/options.h"
#include "viewer/panels/panels.h"
#include "viewer/platform/platform.h"
#include "viewer/model/timing_model.h"
#include "viewer/app/trace_runner.h"

namespace {

using namespace warplab::viewer;

// Where the page's files are (web/CMakeLists.txt preloads them there).
constexpr const char* kDataDir = "/warplab";

struct Session {
    App app;
    std::unique_ptr<Platform> platform;
    double last_seconds = 0;
    std::string reported_layout;
    std::map<int, std::pair<TraceKey, TraceReply>> traces_started;  // by the id the page knows them by
    int next_trace_id = 0;
    int first_asked = -1;  // the trace last moved to the front of the page's queue
};

Session& session()
{
    static Session s;
    return s;
}

// App::start_trace: the request goes to the page's queue for its Worker.
void start_in_worker(const TraceKey& key, const warplab::RunRequest& req, TraceReply reply)
{
    Session& s = session();
    const int id = s.next_trace_id++;
    s.traces_started[id] = {key, reply};
    const std::string request = request_to_json(warplab::all_labs().at(key.lab), req, reply).dump();
    EM_ASM({ warplabStartTrace($0, UTF8ToString($1), !!$2); }, id, request.c_str(), reply == TraceReply::Totals);
}

// The selected version's trace first: the metrics table asks for every version's at once.
void ask_for_selected_first(Session& s)
{
    if (!current_trace(s.app).pending) return;
    const TraceKey key = trace_key(s.app, s.app.sel.version);
    for (const auto& [id, started] : s.traces_started)
        if (started == std::pair(key, TraceReply::Whole) && id != s.first_asked) {
            s.first_asked = id;
            EM_ASM({ warplabTraceFirst($0); }, id);
        }
}

// The desktop's options that need what a browser lacks.
void refuse_desktop_only(const Options& o)
{
    if (!o.file.empty()) throw UsageError("--file needs nvcc, which a browser does not have: use the desktop viewer for your own kernels");
    if (o.backend == "gpu") throw UsageError("--backend gpu: a browser has no GPU backend; traces run on the emulator");
    if (!o.screenshot.empty() || !o.tour.empty()) throw UsageError("--screenshot and --tour write files: use the desktop viewer");
}

// The layout document (panels' rectangles, status) in the page, for tests and for a reader of the page's source.
void report_layout(Session& s)
{
    Image image;
    int w = 0, h = 0;
    emscripten_get_canvas_element_size("#canvas", &w, &h);
    image.width = w;
    image.height = h;
    std::string text = layout_document(s.app, image).dump();
    if (text == s.reported_layout) return;
    s.reported_layout = std::move(text);
    EM_ASM({ warplabLayout(UTF8ToString($0)); }, s.reported_layout.c_str());
}

void frame(void* arg)
{
    Session& s = *static_cast<Session*>(arg);
    s.platform->poll_events(s.app);
    const double now = emscripten_get_now() / 1000;
    tick(s.app, now - s.last_seconds);
    s.last_seconds = now;
    s.platform->begin_frame(s.app);
    draw_frame(s.app);
    s.platform->render();
    report_layout(s);
    ask_for_selected_first(s);
}

// A parsed reply, freed in a task of its own once the page has drawn the slot
// read from it: freeing a whole trace's million nodes takes about half as long
// as parsing them, and the page's thread now stops for each part apart.
void free_later(nlohmann::json parsed)
{
    emscripten_async_call([](void* held) { delete static_cast<nlohmann::json*>(held); }, new nlohmann::json(std::move(parsed)), 0);
}

// A Worker's reply as a slot (TraceSlot or TotalsSlot), or the slot of an unreadable one.
template <class Slot, class Reader> Slot read_reply(const char* reply, Reader read)
{
    Slot slot;
    try {
        nlohmann::json parsed = nlohmann::json::parse(reply);
        slot = read(parsed);
        free_later(std::move(parsed));
    } catch (const std::exception& e) {
        slot.error = std::string("the trace Worker's reply is unreadable: ") + e.what();
    }
    return slot;
}

}  // namespace

// The page passes on what its Worker says of trace `id` (page.js).
extern "C" EMSCRIPTEN_KEEPALIVE void warplab_trace_progress(int id, double blocks_done, double blocks)
{
    Session& s = session();
    const auto it = s.traces_started.find(id);
    if (it != s.traces_started.end() && it->second.second == TraceReply::Whole)  // the status line shows whole traces' progress
        trace_progress(s.app, it->second.first, std::uint64_t(blocks_done), std::uint64_t(blocks));
}

extern "C" EMSCRIPTEN_KEEPALIVE void warplab_trace_arrived(int id, const char* reply)
{
    Session& s = session();
    const auto it = s.traces_started.find(id);
    if (it == s.traces_started.end()) return;
    const auto [key, kind] = it->second;
    s.traces_started.erase(it);
    if (kind == TraceReply::Totals)
        totals_arrived(s.app, key, read_reply<TotalsSlot>(reply, totals_reply_from_json));
    else
        trace_arrived(s.app, key, read_reply<TraceSlot>(reply, slot_from_json));
}

int main(int argc, char** argv)
{
    setenv("WARPLAB_DATA_DIR", kDataDir, 1);  // the sources shown and results/ (labs/common/data_dir.h)
    Session& s = session();
    s.app.start_trace = start_in_worker;  // the first trace too: the page stays responsive while it runs
    Options options;
    try {
        const auto parsed = parse_options(argc, argv);
        if (!parsed) return 0;
        options = *parsed;
        refuse_desktop_only(options);
        apply_options(s.app, options);
    } catch (const UsageError& e) {
        std::fprintf(stderr, "warplab-viewer: error: %s\n", e.what());
        return 2;
    }
    s.app.timing = load_recorded_timing(warplab::results_dir());
    s.app.gpu = warplab::gpu_status();
    PlatformOptions po;
    po.fullscreen = options.presenter;
    double w = 0, h = 0;
    emscripten_get_element_css_size("#canvas", &w, &h);
    po.width = options.width ? options.width : w > 0 ? int(w) : 1600;
    po.height = options.height ? options.height : h > 0 ? int(h) : 900;
    try {
        s.platform = std::make_unique<Platform>(po, s.app);
    } catch (const std::runtime_error& e) {
        std::fprintf(stderr, "warplab-viewer: error: %s\n", e.what());
        return 1;
    }
    s.last_seconds = emscripten_get_now() / 1000;
    emscripten_set_main_loop_arg(frame, &s, 0, true);  // never returns: the page's frames run it
    return 0;
}
