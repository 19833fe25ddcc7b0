#include "viewer/app/app.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>

#include "labs/common/did_you_mean.h"
#include "labs/common/lab_options.h"
#include "viewer/model/format.h"
#include "viewer/app/lesson_player.h"
#include "viewer/app/program_view.h"
#include "viewer/model/step_model.h"
#include "viewer/app/trace_runner.h"
#include "warplab/trace/compare.h"

namespace warplab::viewer {

namespace {

constexpr double kAnimationSeconds = 0.6;

RunRequest request_for(const App& app, std::size_t version)
{
    const Lab& lab = current_lab(app);
    RunRequest req;
    req.version = lab.versions.at(version).id;
    req.n = app.sel.n ? app.sel.n : default_n(lab, lab.versions.at(version));
    req.shape = app.sel.shape;
    req.block = app.sel.block ? app.sel.block : lab.versions.at(version).bench_block;  // 0: as the bench times it
    req.block_dim = app.sel.block_dim;
    req.type = element_type(app);
    req.backend = app.sel.backend;
    req.schedule = app.sel.schedule;
    req.setting = app.sel.setting;
    req.warp_width = app.sel.warp_width;
    req.max_instructions = app.max_instructions;
    req.inputs = own_inputs(lab, app.inputs);
    if (version == app.sel.version) req.without_barrier = app.sel.without_barrier;  // the others are traced as written
    return req;
}

// After the step or version changed: show the step's worst instructions, restart the animation.
void step_changed(App& app)
{
    app.focus.shared_event.reset();
    app.focus.global_event.reset();
    app.step_shown_at = app.clock;
    app.follow_step = {};
    if (const TracedRun* run = current_run(app)) {
        app.focus.shared_event = worst_shared_event(run->block, app.sel.step);
        app.focus.global_event = worst_global_event(run->block, app.sel.step);
    }
}

void poll_measurement(App& app)
{
    if (!measuring(app) ||
        app.timing.measuring.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
        return;
    try {
        app.timing.tables.push_back({app.timing.measuring.get(), true, ""});
        app.timing.selected = int(app.timing.tables.size()) - 1;
        app.timing.measure_error.clear();
    } catch (const std::exception& e) {
        app.timing.measure_error = e.what();
    }
}

// The lab at an index of all_labs(), or the user's kernel's lab in its place; a program's lab in place of any.
const Lab& lab_at(const App& app, std::size_t lab)
{
    if (app.program) return app.program->lab;
    const Lab& found = all_labs().at(lab);
    return app.user_lab && app.user_lab->lab.id == found.id ? app.user_lab->lab : found;
}

TraceKey key_of(const App& app, std::size_t version, const RunRequest& req)
{
    return {app.program ? kProgramLabKey : app.sel.lab,   version,     req.block, req.type,  req.schedule,  req.backend,
            req.setting,   req.warp_width, req.n,  req.shape, req.block_dim, req.without_barrier};
}

// What a run's slot derives once: each thread's output (the trace gives the
// shared arrays in their declared types already: wl::ptx::declare_array_types).
void finish_slot(App&, const TraceKey& key, TraceSlot& slot)
{
    if (!slot.run) return;
    const std::vector<std::size_t>& shape = slot.run->result.shape;  // {M, N, K}: rows of C are N long
    slot.output = output_tile(slot.run->block, type_size(key.type), shape.size() >= 2 ? shape[1] : 0);
}

// A trace run here. A kernel that ran past the GPU deadline (TraceSlot::gpu_deadline)
// still runs there, and the GPU takes no more work: the header stops offering it
// (App::gpu), and a selection that asked for it asks for auto, which now traces on
// the emulator; the version keeps its fault under that key, so the window stays on it.
TraceSlot trace_here(App& app, const TraceKey& key, const RunRequest& req)
{
    TraceSlot slot = run_trace(current_lab(app), req);
    if (!slot.gpu_deadline) return slot;
    app.gpu = gpu_status();
    if (app.sel.backend == BackendChoice::Gpu) {
        app.sel.backend = BackendChoice::Auto;
        TraceKey shown = key;
        shown.backend = BackendChoice::Auto;
        app.traces[shown] = slot;
    }
    return slot;
}

// The trace of a request, run (or started, App::start_trace) the first time it is asked for.
const TraceSlot& trace_for(App& app, std::size_t version, const RunRequest& req)
{
    const TraceKey key = key_of(app, version, req);
    auto it = app.traces.find(key);
    if (it != app.traces.end()) return it->second;
    if (app.start_trace) {
        TraceSlot waiting;
        waiting.pending.emplace().since = app.clock;
        it = app.traces.emplace(key, std::move(waiting)).first;
        app.start_trace(key, req, TraceReply::Whole);
    } else {
        TraceSlot slot = trace_here(app, key, req);
        it = app.traces.emplace(key, std::move(slot)).first;
        finish_slot(app, key, it->second);
    }
    return it->second;
}

TotalsSlot totals_in(const TraceSlot& slot)
{
    TotalsSlot t{slot.pending.has_value(), std::nullopt, slot.error, slot.fault};
    if (slot.run) t.totals = slot.run->totals;
    return t;
}

// The selected step waits while its trace is pending (a link's ?step=2 holds until the steps are known).
bool step_pending(App& app) { return current_trace(app).pending.has_value(); }

}  // namespace

const Lab& current_lab(const App& app) { return lab_at(app, app.sel.lab); }

const Version& current_version(const App& app) { return current_lab(app).versions.at(app.sel.version); }

TraceKey trace_key(const App& app, std::size_t version)
{
    return key_of(app, version, request_for(app, version));
}

const TraceSlot& trace_of(App& app, std::size_t version) { return trace_of(app, version, app.sel.setting); }

const TraceSlot& trace_of(App& app, std::size_t version, int setting)
{
    RunRequest req = request_for(app, version);
    req.setting = setting;
    return trace_for(app, version, req);
}

const TraceSlot& trace_at_width(App& app, std::size_t version, unsigned warp_width)
{
    RunRequest req = request_for(app, version);
    req.warp_width = warp_width;
    return trace_for(app, version, req);
}

const TraceSlot& current_trace(App& app) { return trace_of(app, app.sel.version); }

std::uint64_t next_trace_serial()
{
    static std::atomic<std::uint64_t> made{0};
    return ++made;
}

const std::vector<bool>& differing_steps(App& app, const TraceSlot& before, const TraceSlot& after)
{
    const auto key = std::pair{before.serial, after.serial};
    auto found = app.differing.find(key);
    if (found == app.differing.end()) found = app.differing.emplace(key, wl::trace::differing_steps(before.run->block, after.run->block)).first;
    return found->second;
}

const TraceSlot& trace_as_written(App& app, std::size_t version)
{
    RunRequest req = request_for(app, version);
    req.without_barrier = 0;
    return trace_for(app, version, req);
}

TotalsSlot totals_of(App& app, std::size_t version)
{
    const RunRequest req = request_for(app, version);
    const TraceKey key = key_of(app, version, req);
    if (!app.start_trace) {  // the desktop: at once
        if (const auto whole = app.traces.find(key); whole != app.traces.end()) return totals_in(whole->second);
        // Another version's totals (the time chart's) keep no whole trace: each
        // may hold the analysis's 256 MiB (kAnalysisBytes), and every version's would not fit.
        auto it = app.totals.find(key);
        if (it == app.totals.end()) it = app.totals.emplace(key, totals_in(trace_here(app, key, req))).first;
        return it->second;
    }
    const auto whole = app.traces.find(key);
    auto it = app.totals.find(key);
    // A whole trace that is here, or on its way with no totals asked for (no second run of the same trace).
    if (whole != app.traces.end() && (!whole->second.pending || it == app.totals.end())) return totals_in(whole->second);
    if (it == app.totals.end()) {
        TotalsSlot waiting;
        waiting.pending = true;
        it = app.totals.emplace(key, std::move(waiting)).first;
        app.start_trace(key, req, TraceReply::Totals);
    }
    return it->second;
}

const TracedRun* current_run(App& app)
{
    const TraceSlot& slot = current_trace(app);
    return slot.run ? &*slot.run : nullptr;
}

std::uint32_t step_count(App& app)
{
    const TracedRun* run = current_run(app);
    return run ? std::uint32_t(run->steps.size()) : 0;
}

std::optional<std::size_t> compared_version(const App& app)
{
    if (app.program) return std::nullopt;  // a program's launches are no ladder of versions
    const Lab& lab = current_lab(app);
    const bool users = app.user_lab && &lab == &app.user_lab->lab && app.sel.version + 1 == lab.versions.size();
    const std::string named = !app.compared_with.empty() ? app.compared_with : users ? app.user_lab->as_version : "";
    for (std::size_t i = 0; i < lab.versions.size() && !named.empty(); ++i)
        if (lab.versions[i].id == named && i != app.sel.version) return i;
    return previous_version(lab, app.sel.version);
}

std::optional<std::pair<std::size_t, std::size_t>> compared_lab_version(const App& app)
{
    const Lab* lab = app.program ? find_lab(app.compared_lab) : nullptr;
    const Version* version = lab ? find_version(*lab, app.compared_with) : nullptr;
    if (!version) return std::nullopt;
    return std::pair{std::size_t(lab - all_labs().data()), std::size_t(version - lab->versions.data())};
}

const TraceSlot& lab_version_trace(App& app, std::size_t lab_index, std::size_t version)
{
    const Lab& lab = all_labs().at(lab_index);
    const Version& v = lab.versions.at(version);
    RunRequest req;
    req.version = v.id;
    req.n = default_n(lab, v);
    req.block = v.bench_block;
    req.type = lab.types.front();
    req.backend = BackendChoice::Cpu;  // as a program's launches ran
    req.max_instructions = app.max_instructions;
    const TraceKey key{lab_index, version, req.block, req.type, req.schedule, req.backend, req.setting, req.warp_width, req.n, {}, {}, 0};
    auto it = app.traces.find(key);
    if (it == app.traces.end()) it = app.traces.emplace(key, run_trace(lab, req)).first;
    return it->second;
}

const FontSet& fonts(const App& app) { return app.presenter ? app.fonts.presenter : app.fonts.desk; }

std::string element_type(const App& app) { return app.sel.type.empty() ? current_lab(app).types.front() : app.sel.type; }

float animation_progress(const App& app)
{
    if (!app.animate) return 1.0f;
    return float(std::clamp((app.clock - app.step_shown_at) / kAnimationSeconds, 0.0, 1.0));
}

void select_lab(App& app, std::size_t lab)
{
    if (lab >= all_labs().size()) return;
    app.sel.lab = lab;
    app.sel.block = 0;
    app.sel.block_dim.clear();
    app.sel.n = 0;
    app.sel.shape.clear();
    app.sel.setting = -1;
    app.sel.type.clear();
    app.timing.selected = -1;
    app.timing.published_shown = -1;
    select_version(app, 0);
}

void select_version(App& app, std::size_t version)
{
    if (version >= current_lab(app).versions.size()) return;
    if (version != app.sel.version) app.sel.setting = -1, app.sel.without_barrier = 0;  // an offset is no stride; a line is the file's
    app.sel.version = version;
    if (!step_pending(app)) app.sel.step = std::min(app.sel.step, step_count(app) ? step_count(app) - 1 : 0);
    step_changed(app);
}

void set_step(App& app, long step)
{
    const long last = long(step_count(app)) - 1;
    app.sel.step = std::uint32_t(step_pending(app) ? std::max(step, 0L) : std::clamp(step, 0L, std::max(last, 0L)));
    step_changed(app);
}

std::string pending_text(const App& app, const TraceSlot::Pending& pending)
{
    const std::string blocks = !pending.started ? std::string(" · queued")
                               : pending.blocks ? printf_string(" · blocks %llu of %llu", (unsigned long long)pending.blocks_done,
                                                                (unsigned long long)pending.blocks)
                                                : std::string();
    return printf_string("tracing %s %s on the emulator%s · %.1f s", current_lab(app).id.c_str(), current_version(app).id,
                         blocks.c_str(), app.clock - pending.since);
}

void trace_progress(App& app, const TraceKey& key, std::uint64_t blocks_done, std::uint64_t blocks)
{
    auto it = app.traces.find(key);
    if (it == app.traces.end() || !it->second.pending) return;
    it->second.pending->started = true;
    it->second.pending->blocks_done = blocks_done;
    it->second.pending->blocks = blocks;
}

void trace_arrived(App& app, const TraceKey& key, TraceSlot slot)
{
    auto it = app.traces.find(key);
    if (it == app.traces.end() || !it->second.pending) return;
    it->second = std::move(slot);
    finish_slot(app, key, it->second);
    if (key == trace_key(app, app.sel.version)) set_step(app, app.sel.step);  // the step it waited with, now clamped
}

void place_trace(App& app, std::size_t version, TraceSlot slot)
{
    const TraceKey key = trace_key(app, version);
    TraceSlot& placed = app.traces[key] = std::move(slot);
    finish_slot(app, key, placed);
}

void totals_arrived(App& app, const TraceKey& key, TotalsSlot slot)
{
    auto it = app.totals.find(key);
    if (it == app.totals.end() || !it->second.pending) return;
    slot.pending = false;
    it->second = std::move(slot);
}

void select_settings(App& app, const Selection& sel)
{
    app.sel.block = sel.block;
    app.sel.block_dim = sel.block_dim;
    app.sel.n = sel.n;
    app.sel.shape = sel.shape;
    app.sel.type = sel.type;
    app.sel.schedule = sel.schedule;
    app.sel.backend = sel.backend;
    app.sel.warp_width = sel.warp_width;
    select_version(app, app.sel.version);
}

void toggle_barrier(App& app, std::uint32_t line)
{
    app.sel.without_barrier = app.sel.without_barrier == line ? 0 : line;
    select_version(app, app.sel.version);  // its step count may differ
}

void toggle_play(App& app)
{
    app.play.playing = !app.play.playing;
    app.play.since_step = 0;
    if (app.play.playing && app.sel.step + 1 >= step_count(app)) set_step(app, 0);  // play again from the start
}

void tick(App& app, double seconds)
{
    app.clock += seconds;
    poll_measurement(app);
    if (!app.play.playing) return;
    app.play.since_step += seconds;
    if (app.play.since_step < 1.0 / app.play.steps_per_second) return;
    app.play.since_step = 0;
    if (app.sel.step + 1 >= step_count(app))
        app.play.playing = false;
    else
        set_step(app, long(app.sel.step) + 1);
}

bool measuring(const App& app) { return app.timing.measuring.valid(); }

void start_measuring(App& app)
{
    if (measuring(app) || !app.gpu.available) return;
    const Lab& lab = current_lab(app);
    BenchOptions opt;
    const int shown = default_table(app.timing, lab.id, request_for(app, 0).type);
    opt.n = shown >= 0 ? app.timing.tables[shown].table.n : lab.bench_sizes.back();
    opt.type = request_for(app, 0).type;
    opt.command = "warplab-viewer: Measure now";
    if (app.user_lab && app.user_lab->lab.id == lab.id)  // the user's kernel as one more row
        opt.file = app.user_lab->file, opt.kernel = app.user_lab->kernel, opt.as_version = app.user_lab->as_version;
    app.timing.measure_error.clear();
    app.timing.measuring = std::async(std::launch::async, [bench = lab.bench, opt] { return bench(opt); });
}

void on_key(App& app, Key key)
{
    if (lesson_key(app, key)) return;
    switch (key) {
    case Key::Left: set_step(app, long(app.sel.step) - 1); break;
    case Key::Right: set_step(app, long(app.sel.step) + 1); break;
    case Key::Up: if (app.sel.version > 0) select_version(app, app.sel.version - 1); break;
    case Key::Down: select_version(app, app.sel.version + 1); break;
    case Key::Space: toggle_play(app); break;
    case Key::F: app.presenter = !app.presenter; break;
    case Key::W: {
        Selection s = app.sel;
        s.warp_width = s.warp_width == 32 ? 64 : 32;
        select_settings(app, s);
        break;
    }
    case Key::C: app.compare_widths = !app.compare_widths; break;
    case Key::D: app.compare_versions = !app.compare_versions; break;
    case Key::V: ++app.view; break;
    case Key::PageUp:
    case Key::PageDown:
    case Key::R:
    case Key::B:
    case Key::Period: break;  // a lesson's (lesson_key)
    case Key::Escape:
        if (app.presenter)
            app.presenter = false;
        else
            app.quit = true;
        break;
    }
}

void select_by_name(App& app, const std::string& lab_id, const std::string& version_id)
{
    const Lab* lab = lab_id.empty() ? &all_labs().front() : find_lab(lab_id);
    if (!lab) throw std::invalid_argument(unknown_lab(lab_id));
    app.sel.lab = std::size_t(lab - all_labs().data());
    const Version* v = version_id.empty() ? &lab->versions.front() : find_version(*lab, version_id);
    if (!v) throw std::invalid_argument(unknown_version(*lab, version_id));
    app.sel.version = std::size_t(v - lab->versions.data());
}

void add_user_kernel(App& app, const std::string& file, const std::string& kernel, std::optional<std::uint32_t> shared_bytes)
{
    const Lab& base = all_labs().at(app.sel.lab);
    auto user = std::make_shared<UserLab>();
    user->file = file;
    user->kernel = kernel;
    user->as_version = base.versions.at(app.sel.version).id;
    user->shown_file = UserKernel::shown_path(file);
    user->idea = "your kernel " + (kernel.empty() ? std::string("(the file's only one)") : kernel) + " from " + user->shown_file;
    user->changed = "your own kernel, with " + user->as_version + "'s signature, grid and block";
    user->lab = base;
    auto entry = base.versions.at(app.sel.version);  // its launch; the rest is the user's
    entry.id = kUserVersionId;
    entry.name = "your kernel";
    entry.idea = user->idea.c_str();
    entry.changed = user->changed.c_str();
    user->expected = "compare its steps, banks and sectors with " + user->as_version + "'s";
    entry.expected = user->expected.c_str();
    entry.variant = true;  // compared with the lab's ladder, not a step of it
    entry.file = user->shown_file.c_str();
    entry.kernel = user->kernel.c_str();
    user->lab.versions.push_back(entry);
    user->lab.run = [run = base.run, file, kernel, shared_bytes, as = user->as_version](RunRequest req) {
        if (req.version == kUserVersionId) req.version = as, req.file = file, req.kernel = kernel, req.shared_bytes = shared_bytes;
        return run(req);
    };
    app.user_lab = std::move(user);
    app.traces.clear();
    app.totals.clear();
    select_version(app, current_lab(app).versions.size() - 1);
}

}  // namespace warplab::viewer
