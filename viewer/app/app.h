// The viewer's one state: what is selected, the traces run so far, the
// timings, and what the screen shows. Panels read and change it; nothing keeps
// state of its own (no static locals).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "labs/common/fidelity.h"
#include "labs/common/lab.h"
#include "labs/common/traced_run.h"
#include "labs/common/user_kernel.h"
#include "viewer/model/layout.h"
#include "viewer/model/lesson.h"
#include "labs/common/data_dir.h"
#include "viewer/model/source_model.h"
#include "viewer/model/step_model.h"
#include "viewer/model/theme.h"
#include "viewer/model/timing_model.h"
#include "warplab/occupancy.h"
#include "warplab/trace/bank_playground.h"

namespace warplab::viewer {

// What one trace is run with; traces are kept per key, so ↑/↓ is instant.
struct TraceKey {
    std::size_t lab = 0, version = 0;
    unsigned block = 0;
    std::string type;
    wl::emu::Schedule schedule = wl::emu::Schedule::Independent;
    BackendChoice backend = BackendChoice::Auto;
    int setting = -1;  // RunRequest::setting
    unsigned warp_width = 32;  // RunRequest::warp_width
    std::size_t n = 0;                // RunRequest::n: the elements that ran (the version's default resolved)
    std::vector<std::size_t> shape;   // RunRequest::shape
    std::vector<unsigned> block_dim;  // RunRequest::block_dim
    std::uint32_t without_barrier = 0;  // RunRequest::without_barrier: a modified run, kept apart from the kernel's own
    // Written out: libc++ 14 has no operator<=> for std::string or std::vector, so a defaulted <=> is deleted there.
    bool operator==(const TraceKey&) const = default;
    bool operator<(const TraceKey& other) const {
        auto fields = [](const TraceKey& k) {
            return std::tie(k.lab, k.version, k.block, k.type, k.schedule, k.backend, k.setting, k.warp_width, k.n, k.shape,
                            k.block_dim, k.without_barrier);
        };
        return fields(*this) < fields(other);
    }
};

// TraceKey::lab of a program's launches (App::program): apart from every lab's traces.
inline constexpr std::size_t kProgramLabKey = std::size_t(-1);

// A number no TraceSlot made before had (safe from a trace runner's thread).
std::uint64_t next_trace_serial();

struct TraceSlot {
    // Tells this slot's trace from every other's (a copy, holding the same, keeps it): what a result cached from it keys on.
    std::uint64_t serial = next_trace_serial();
    // Running elsewhere (App::start_trace): since when (App::clock) and how
    // many of the grid's blocks are done; run or error come with trace_arrived.
    struct Pending {
        double since = 0;
        bool started = false;  // false: queued (another trace runs first, or the Worker is loading)
        std::uint64_t blocks_done = 0, blocks = 0;  // blocks 0: none reported yet
    };
    std::optional<Pending> pending;
    std::optional<TracedRun> run;  // the launch succeeded
    std::optional<OutputTile> output;  // what each thread writes to global memory: derived once, drawn every frame
    std::string error;             // otherwise why not: the fault or the bad input, one paragraph
    bool fault = false;            // the kernel faulted (wl::emu::KernelFault); the lockstep schedule may avoid it
    std::string fault_file;        // where, when it faulted
    std::uint32_t fault_line = 0;
    // The kernel ran past the GPU deadline and still runs there (warplab/cuda/deadline.h): a fault
    // (with `fault`) that names no thread, after which the GPU takes no more work.
    bool gpu_deadline = false;
};

// What a trace is asked for: all of it (a version on screen), or its totals
// alone (another version's row in the metrics panel): in the browser the
// Worker then sends back a few hundred bytes, not the trace's megabytes, and
// the page's main thread does not stop to read a trace nobody looks at.
enum class TraceReply { Whole, Totals };

// A version's totals without the rest of its trace (totals_of).
struct TotalsSlot {
    bool pending = false;
    std::optional<wl::trace::Totals> totals;  // the launch succeeded
    std::string error;                        // otherwise why not (TraceSlot::error)
    bool fault = false;
};

struct Selection {
    std::size_t lab = 0, version = 0;
    std::uint32_t step = 0;
    unsigned block = 0;  // threads per block; 0: each version's bench block
    std::vector<unsigned> block_dim;  // a 2D group {W, H} (Lab::block_form); empty: `block`
    std::size_t n = 0;   // elements (--n, the header's field); 0: each version's trace default
    std::vector<std::size_t> shape;  // the problem's dimensions (Lab::shape_form); empty: n
    std::string type;    // element type; empty: the lab's first
    wl::emu::Schedule schedule = wl::emu::Schedule::Independent;
    BackendChoice backend = BackendChoice::Auto;
    int setting = -1;  // the version's setting (coalescing: offset or stride); -1: its default
    unsigned warp_width = 32;  // lanes a warp: 32, or 64 (an emulated AMD wavefront; W switches)
    // A line of the selected version's file whose barriers are switched off
    // (the source panel): its trace is the rerun without them; 0: none.
    std::uint32_t without_barrier = 0;
};

// The instructions the banks and global panels show (indices into the
// watched block's events), and the thread under the mouse.
struct Focus {
    std::optional<std::size_t> shared_event, global_event;
    std::optional<std::uint32_t> hovered_thread;
};

struct Playback {
    bool playing = false;
    float steps_per_second = 1.5f;
    double since_step = 0;  // seconds since the last automatic step
};

// The bank playground page (--banks, or the header's button): one warp's
// shared load from its pattern, not from a trace.
struct Playground {
    bool open = false;
    wl::trace::BankPattern pattern;
};

// The occupancy panel: the GPU it models and its what-if values (unset: the version's own).
struct OccupancyView {
    std::size_t arch = 0;  // into wl::occupancy::architectures()
    wl::occupancy::WhatIf what_if;
};

// The user's own kernel (--file), shown as one more version of its lab: the
// lab's entry with that version appended, whose run sets the file and kernel.
struct UserLab {
    std::string file, kernel, as_version;  // as given; as_version: the version whose launch it takes
    std::string shown_file, idea, changed, expected;  // what the appended entry's text fields point into
    Lab lab;
};

struct ProgramLab;  // viewer/app/program_view.h

struct App {
    Selection sel;
    std::map<TraceKey, TraceSlot> traces;
    std::map<TraceKey, TotalsSlot> totals;  // traces run elsewhere for their totals alone (totals_of)
    Focus focus;
    Playback play;
    Playground playground;
    double clock = 0;             // seconds since start
    double step_shown_at = 0;     // when the current step appeared (arrow animation)
    bool animate = true;          // false: draw every animation finished (screenshots)
    struct {
        bool source = true, metrics = true, time = true;  // bring the step (the version) into view once after it changes
    } follow_step;
    bool presenter = false;
    int view = 0;  // the arrangement a compact window shows (Layout::views); V switches
    bool compare_widths = false;  // the threads panel shows the step at warp widths 32 and 64 side by side (C)
    bool compare_versions = false;  // the step table of this version beside compared_version's (D)
    std::string compared_with;      // the version compared_version names instead (a lesson slide's "compare", --compare); empty: none
    std::string compared_lab;       // with a program shown: the lab whose version compared_with names (compared_lab_version)
    std::uint64_t max_instructions = 0;  // --max-instructions: the emulator's instruction budget per thread; 0: its default
    // wl::trace::differing_steps (it sorts every event: too slow for each frame) of each pair of slots compared
    // (TraceSlot::serial, before and after): the compare panel's, the barrier switch's verdict; both may be on screen.
    std::map<std::pair<std::uint64_t, std::uint64_t>, std::vector<bool>> differing;
    std::map<std::string, std::string> inputs;  // the labs' own inputs given (Lab::inputs), by name: each lab's requests carry its own
    bool quit = false;
    Layout layout;
    float header_content_h = 0;  // what the top bar's contents took last frame (they wrap on narrow windows)
    float steps_content_h = 0;   // the same for the step controls
    std::optional<bool> time_log_scale;  // the time chart's scale; unset: logarithmic where the times span over 10x
    Regions regions;  // filled while drawing
    Fonts fonts;
    SourceCache sources{data_dir().string()};
    Timing timing;
    GpuStatus gpu;
    std::shared_ptr<const UserLab> user_lab;  // --file: replaces its lab in current_lab()
    std::shared_ptr<const ProgramLab> program;  // --run: the program's lab, in place of every lab in current_lab()
    Selection labs_selection;  // while a program is shown: the labs' selection, which close_program restores
    std::map<std::string, std::optional<MeasuredCounts>> measured;  // "lab version": results/fidelity/, read once
    OccupancyView occupancy;
    LessonPlay lesson;  // --lesson: the slides, the one shown, its answer
    // Where traces run: unset, here and at once (the desktop); set, elsewhere
    // (the browser's Worker): the slot waits, pending, for trace_arrived (a
    // Whole reply) or totals_arrived (Totals).
    std::function<void(const TraceKey&, const RunRequest&, TraceReply)> start_trace;
};

// ---- reading ----
const Lab& current_lab(const App& app);
const Version& current_version(const App& app);
TraceKey trace_key(const App& app, std::size_t version);
const TraceSlot& trace_of(App& app, std::size_t version);  // runs it the first time
const TraceSlot& trace_of(App& app, std::size_t version, int setting);  // at another setting (a sweep)
const TraceSlot& trace_at_width(App& app, std::size_t version, unsigned warp_width);  // at another warp width (compare)
const TraceSlot& current_trace(App& app);
// The version's trace as its kernel is written: without the barrier switch's rerun (Selection::without_barrier).
const TraceSlot& trace_as_written(App& app, std::size_t version);
// A version's totals (the metrics panel's row): its whole trace's where that is
// here; the desktop runs the whole trace (kept, so selecting it is instant);
// elsewhere (App::start_trace) only the totals are asked for.
TotalsSlot totals_of(App& app, std::size_t version);
const TracedRun* current_run(App& app);                     // nullptr when the launch failed
// wl::trace::differing_steps of two slots' runs (both must have one), found once for each pair (App::differing).
const std::vector<bool>& differing_steps(App& app, const TraceSlot& before, const TraceSlot& after);
std::uint32_t step_count(App& app);
// The version the selected one is compared with: App::compared_with where set
// (and not the selected one), else previous_version, except that the user's
// own kernel (--file) is compared with the version it stands in for.
std::optional<std::size_t> compared_version(const App& app);
// With a program shown (App::program): the lab version its launch is compared
// with (App::compared_lab, App::compared_with), as {lab, version} indices.
std::optional<std::pair<std::size_t, std::size_t>> compared_lab_version(const App& app);
// A lab's version traced as `warplab trace LAB VERSION` traces it (its
// defaults), whatever is shown: a program's launch is compared with it.
const TraceSlot& lab_version_trace(App& app, std::size_t lab, std::size_t version);
const FontSet& fonts(const App& app);
std::string element_type(const App& app);  // the selected element type, or the lab's first
float animation_progress(const App& app);  // 0..1 since the step appeared

// "tracing matmul v5 on the emulator · blocks 12 of 64 · 0.8 s": a pending slot of the selected version.
std::string pending_text(const App& app, const TraceSlot::Pending& pending);

// ---- changing ----
void select_lab(App& app, std::size_t lab);
void select_version(App& app, std::size_t version);
void set_step(App& app, long step);
void select_settings(App& app, const Selection& sel);  // size, block, type, schedule, backend, warp width
// What if this barrier were gone: switches the barriers of a line of the
// selected version's file off (its trace is then the rerun without them), or
// back on when that line's are off already.
void toggle_barrier(App& app, std::uint32_t line);
void toggle_play(App& app);
void tick(App& app, double seconds);  // playback and a measurement in flight
void start_measuring(App& app);
bool measuring(const App& app);

// W: warp width 32 <-> 64; C: compare the widths; D: this version beside the previous one; V: next view. In a lesson (viewer/app/lesson_player.h) PageDown, PageUp, Left,
// Right move between slides, R reveals, B and period too (a presenter clicker's keys).
enum class Key { Left, Right, Up, Down, Space, F, Escape, W, C, D, V, PageUp, PageDown, R, B, Period };
void on_key(App& app, Key key);

// A trace that App::start_trace started began or made progress (blocks 0: began), or is done (its run or
// its error); a key that is no longer pending is left alone.
void trace_progress(App& app, const TraceKey& key, std::uint64_t blocks_done, std::uint64_t blocks);
void trace_arrived(App& app, const TraceKey& key, TraceSlot slot);
void totals_arrived(App& app, const TraceKey& key, TotalsSlot slot);  // the same for a Totals reply

// Sets up the state for a lab/version by name; throws std::invalid_argument naming what is wrong.
void select_by_name(App& app, const std::string& lab, const std::string& version);

// A trace made elsewhere (a program's run, viewer/app/program_view.h) kept as
// the version's at the current settings, as if it had run here.
void place_trace(App& app, std::size_t version, TraceSlot slot);

// Adds the user's kernel as the last version of the selected lab, launched as
// the selected version, and selects it; the file is compiled when first traced.
void add_user_kernel(App& app, const std::string& file, const std::string& kernel, std::optional<std::uint32_t> shared_bytes = {});

}  // namespace warplab::viewer
