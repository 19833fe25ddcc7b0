#include "viewer/app/options.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>

#include "labs/common/did_you_mean.h"
#include "labs/common/lab_options.h"
#include "labs/common/problem_args.h"
#include "viewer/app/app.h"
#include "viewer/app/lesson_player.h"
#include "viewer/app/program_view.h"
#include "warplab/emu/emulator.h"
#include "warplab/version.h"

namespace warplab::viewer {

namespace {

void parse_size(const std::string& text, Options& o)
{
    const auto x = text.find('x');
    try {
        std::size_t used = 0;
        o.width = std::stoi(text.substr(0, x), &used);
        if (x == std::string::npos || used != x) throw std::invalid_argument(text);
        o.height = std::stoi(text.substr(x + 1), &used);
        if (used != text.size() - x - 1) throw std::invalid_argument(text);
    } catch (const std::logic_error&) {
        throw UsageError("--size " + text + ": expected WIDTHxHEIGHT, e.g. 1920x1080");
    }
    if (o.width < 640 || o.height < 400 || o.width > 8192 || o.height > 8192)
        throw UsageError("--size " + text + " is out of range: from 640x400 to 8192x8192");
}

// --run takes the rest of the line: the program's files and options, read as `warplab run` reads them.
std::optional<wl::cudart::RunArguments> run_arguments(int& argc, char** argv)
{
    int at = 1;
    while (at < argc && std::string_view(argv[at]) != "--run") ++at;
    if (at == argc) return std::nullopt;
    const std::vector<std::string> rest(argv + at + 1, argv + argc);
    argc = at;  // what is before it is the viewer's
#if WARPLAB_HAVE_RUN
    wl::cudart::RunArguments run;
    try {
        run = wl::cudart::parse_run_arguments(rest);
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--run: ") + e.what());
    }
    if (!run.json_dir.empty() || run.backend != "cpu")
        throw UsageError("--run: --json and --backend are warplab run's; the viewer runs the program on the emulator and shows its traces");
    return run;
#else
    throw UsageError("--run: this warplab-viewer was built without `warplab run` (it needs libzstd-dev, liblz4-dev and the CUDA "
                     "toolkit's headers when warplab is built)");
#endif
}

BackendChoice backend_choice(const std::string& name)
{
    return name == "gpu" ? BackendChoice::Gpu : name == "cpu" ? BackendChoice::Cpu : BackendChoice::Auto;
}

}  // namespace

std::optional<Options> parse_options(int argc, char** argv)
{
    Options o;
    std::string size, shape, block;
    CLI::App cli{"warplab-viewer: step through a lab's versions; see threads, warps, banks, sectors and times"};
    cli.add_option("--lab", o.lab, "lab, e.g. reduction (default: the first)");
    cli.add_option("--version", o.version, "version, e.g. v2 (default: the first); alone, print warplab's version")
        ->expected(0, 1);
    cli.add_option("--step", o.step, "step to show (default 0)");
    cli.add_option("--n", o.n, "number of elements, as warplab trace --n (default: the version's trace size)")
        ->check(warplab::count_of<CLI::Validator>("number of elements"));
    cli.add_option("--shape", shape, "the problem's shape, as warplab trace --size (here --size is the window's): " + shape_forms())
        ->type_name("SHAPE");
    cli.add_option("--block", block, "threads per block (" + block_forms() + "; default: the version's, as warplab bench times it)");
    cli.add_option("--type", o.type, "element type (default: the lab's first)");
    cli.add_option("--schedule", o.schedule, "emulator lane schedule: independent or lockstep")
        ->check(CLI::IsMember(wl::emu::schedule_names()));
    cli.add_option("--warp-size", o.warp_size, "lanes a warp: 32, or 64 (AMD's wavefront, emulated; the emulator only); W switches");
    cli.add_flag("--compare-widths", o.compare_widths, "show the step's threads at warp widths 32 and 64 side by side; C switches");
    cli.add_flag("--compare-versions", o.compare_versions,
                 "show the version's steps beside the previous version's (or your kernel's beside the version it stands in for); D switches");
    cli.add_option("--compare", o.compare,
                   "show the steps beside this version's (implies --compare-versions): another version of the lab, the one your "
                   "--file kernel is set against, or with --run and --lab a lab's version beside the program's launch")
        ->type_name("VERSION");
    cli.add_option("--without-barrier", o.without_barrier,
                   "show the version rerun without the __syncthreads() / __syncwarp() of this line of its file (the source "
                   "panel's switch at the end of a barrier's line)")
        ->type_name("LINE");
    cli.add_option("--backend", o.backend, "where to trace: auto, cpu (emulator) or gpu")->check(CLI::IsMember({"auto", "cpu", "gpu"}));
    cli.add_option("--size", size, "window or image size, WIDTHxHEIGHT (default 1600x900, headless 1920x1080)");
    cli.add_flag("--banks", o.banks, "open on the bank playground: one warp's shared load, its banks and conflicts");
    cli.add_option("--banks-preset", o.banks_preset, "the bank playground with a preset pattern (implies --banks), e.g. stride2");
    cli.add_flag("--presenter", o.presenter, "presenter mode: full screen, large fonts, fewer panels (F toggles it)");
    cli.add_option("--screenshot", o.screenshot, "render one frame to this PNG file and exit (no display needed)");
    cli.add_option("--layout-json", o.layout_json, "with --screenshot: write each panel's rectangle, the palette and the status here");
    cli.add_option("--file", o.file, "your own kernel from this .cu file, shown as one more version, launched as --version's");
    cli.add_option("--kernel", o.kernel, "with --file: the kernel's name (default: the file's only kernel)");
    cli.add_option("--shared-bytes", o.shared_bytes, "with --file: dynamic shared memory per block for its extern __shared__ array");
    add_input_options(cli, o.inputs, false);
    cli.add_option("--max-instructions,--max-steps", o.max_instructions,  // --max-steps: its former name, kept for scripts
                   wl::emu::max_instructions_help())
        ->check(warplab::count_of<CLI::Validator>("number of instructions"));
    cli.add_option("--tour", o.tour, "write one PNG per version per step into this folder and exit (no display needed); "
                   "with --lesson, one per slide and a handout page");
    cli.add_option("--lesson", o.lesson, "play a lesson in presenter mode: a lesson file, or a shipped lesson's name (lessons/, e.g. reduction); "
                   "PageDown/PageUp move, R reveals");
    cli.add_option("--slide", o.slide, "with --lesson: the slide to start on, from 1")->check(CLI::PositiveNumber);
    std::string run_help;  // never read: --run and what follows it are taken off the line first (run_arguments)
    cli.add_option("--run", run_help,
                   std::string("last on the line: build and run a whole CUDA program as warplab run does, list its launches and "
                               "step through the watched ones: --run ") + wl::cudart::kRunArgumentsUsage)
        ->type_name("PROG.CU ...");
    cli.add_option("--launch", o.launch, "with --run: the launch to show first, by its number in the launch table (a watched one)")
        ->check(CLI::PositiveNumber);
    o.run = run_arguments(argc, argv);
    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        cli.exit(e);
        return std::nullopt;
    } catch (const CLI::ParseError& e) {
        throw UsageError(e.what() + warplab::unknown_option_hint(cli, argc, argv));
    }
    if (cli.count("--version") && o.version.empty()) {
        std::printf("warplab-viewer %s\n", wl::version_text().c_str());
        return std::nullopt;
    }
    if (!size.empty()) parse_size(size, o);
    try {
        o.block = warplab::parse_block(block);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    try {
        if (!shape.empty()) o.shape = warplab::parse_problem_size(shape);
    } catch (const std::invalid_argument&) {
        throw UsageError("--shape " + shape + ": expected S, M,N,K or ROWS,COLS (positive integers)");
    }
    if (o.n == 0u) throw UsageError("--n 0: a problem has at least 1 element");
    if (o.n && !o.shape.empty()) throw UsageError("give --n or --shape, not both");
    if (const std::string why = wl::trace::warp_size_refusal(o.warp_size); !why.empty()) throw UsageError(why);
    if (o.warp_size != 32 && o.backend == "gpu")
        throw UsageError("--warp-size " + std::to_string(o.warp_size) + " runs on the emulator only: a GPU's warps are NVIDIA's 32 lanes");
    if (!o.banks_preset.empty() && !wl::trace::find_bank_preset(o.banks_preset))
        throw UsageError("--banks-preset " + o.banks_preset + ": no such preset (see warplab banks --list-presets)");
    o.banks |= !o.banks_preset.empty();
    if (!o.layout_json.empty() && o.screenshot.empty()) throw UsageError("--layout-json needs --screenshot");
    if (!o.screenshot.empty() && !o.tour.empty()) throw UsageError("use --screenshot or --tour, not both");
    if (!o.kernel.empty() && o.file.empty()) throw UsageError("--kernel names a kernel of --file; give --file too");
    if (o.shared_bytes && o.file.empty()) throw UsageError("--shared-bytes sizes the extern __shared__ array of --file's kernel; give --file too");
    if (o.step && *o.step < 0) throw UsageError("--step " + std::to_string(*o.step) + ": steps count from 0");
    if (!o.lesson.empty() && (!o.lab.empty() || !o.version.empty() || o.step || !o.file.empty() || o.banks))
        throw UsageError("--lesson chooses the labs, versions and steps: give no --lab, --version, --step, --file or --banks with it");
    if (cli.count("--slide") && o.lesson.empty()) throw UsageError("--slide counts the slides of --lesson; give --lesson too");
    if (o.run && ((!o.lab.empty() && o.compare.empty()) || !o.version.empty() || !o.file.empty() || !o.lesson.empty() || o.banks ||
                  o.without_barrier))
        throw UsageError("--run shows the program's own launches: give no --lab (but with --compare), --version, --file, --lesson, --banks or "
                         "--without-barrier with it");
    if (o.run && !o.compare.empty() && o.lab.empty())
        throw UsageError("--compare " + o.compare + " with --run names a lab's version to set beside the launch: give --lab too");
    if (!o.compare.empty() && !o.lesson.empty()) throw UsageError("--lesson's slides say what they compare: give no --compare with it");
    o.compare_versions |= !o.compare.empty();
    if (o.launch && !o.run) throw UsageError("--launch counts the launches of --run's program; give --run too");
    o.presenter |= !o.lesson.empty();
    return o;
}

namespace {

// --compare: a version of a lab with kernels to trace.
void check_compare(const std::string& lab_id, const std::string& version)
{
    const Lab* lab = find_lab(lab_id);
    if (!lab) throw UsageError("--lab: " + unknown_lab(lab_id));
    if (lab->host_programs) throw UsageError("--compare: lab " + lab->id + "'s versions are host programs: no steps to compare");
    if (!find_version(*lab, version)) throw UsageError("--compare: " + unknown_version(*lab, version, " to compare with"));
}

// --run: the program built and run, its launch and step selected. A program
// that does not build or run is shown with its message, not refused here.
void apply_program(App& app, const Options& o)
{
    open_program(app, *o.run);
    const ProgramLab& p = *app.program;
    if (o.launch) {
        const auto version = version_of_launch(p, *o.launch);
        if (!version && p.failure.empty())
            throw UsageError("--launch " + std::to_string(*o.launch) + ": " +
                             (*o.launch > p.run.launches.size() ? "the program made " + std::to_string(p.run.launches.size()) + " launches"
                                                                 : "that launch was not watched (--watch after --run's files chooses)"));
        if (version) select_version(app, *version);
    }
    const std::uint32_t steps = step_count(app);
    if (o.step && steps && std::uint32_t(*o.step) >= steps)
        throw UsageError("--step " + std::to_string(*o.step) + " is out of range: the launch has steps 0 to " + std::to_string(steps - 1));
    set_step(app, o.step.value_or(0));
    app.presenter = o.presenter;
    app.compare_widths = o.compare_widths;
    if (!o.compare.empty()) {
        check_compare(o.lab, o.compare);
        app.compared_lab = o.lab, app.compared_with = o.compare;
    }
    app.compare_versions = o.compare_versions;
}

}  // namespace

void apply_options(App& app, const Options& o)
{
    app.max_instructions = o.max_instructions;  // before the first trace runs
    if (const auto given = given_inputs(o.inputs); !given.empty()) {
        const Lab* lab = o.lab.empty() ? &all_labs().front() : find_lab(o.lab);  // an unknown one is refused below
        try {
            if (lab) check_inputs(*lab, given, o.shape);  // another lab's input, or a value the lab refuses (a missing file)
        } catch (const std::invalid_argument& e) {
            throw UsageError(e.what());
        }
        app.inputs = given;
    }
    if (!o.lesson.empty()) {
        std::shared_ptr<const Lesson> lesson;
        try {
            lesson = std::make_shared<const Lesson>(load_lesson(o.lesson));
        } catch (const LessonError& e) {
            throw UsageError(e.what());
        }
        if (o.slide > lesson->slides.size())
            throw UsageError("--slide " + std::to_string(o.slide) + ": the lesson has slides 1 to " + std::to_string(lesson->slides.size()));
        app.sel.backend = backend_choice(o.backend);
        try {
            start_lesson(app, std::move(lesson), o.slide - 1);
        } catch (const LessonError& e) {  // a program that does not run, a launch it did not make
            throw UsageError(o.lesson + ": " + e.what());
        }
        return;
    }
    if (o.run) return apply_program(app, o);
    try {
        select_by_name(app, o.lab, o.version);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    if (!o.file.empty()) {
        std::string kernel;  // the one --kernel names, or the file's only one
        try {
            kernel = check_user_file(o.file, o.kernel);  // unreadable, empty, no kernel, no such kernel: one line
        } catch (const std::invalid_argument& e) {
            throw UsageError(e.what());
        }
        add_user_kernel(app, o.file, kernel, o.shared_bytes);
    }
    const Lab& lab = current_lab(app);
    if (!o.type.empty() && std::find(lab.types.begin(), lab.types.end(), o.type) == lab.types.end())
        throw UsageError("--type " + o.type + ": lab " + lab.id + " has no such element type");
    Selection s = app.sel;
    s.block = o.block.empty() ? 0 : o.block.size() == 1 ? o.block[0] : o.block[0] * o.block[1];
    if (o.block.size() == 2) s.block_dim = o.block;
    s.n = o.n.value_or(0);
    s.shape = o.shape;
    s.type = o.type;
    s.schedule = *wl::emu::parse_schedule(o.schedule);  // checked by parse_options
    s.backend = backend_choice(o.backend);
    s.warp_width = o.warp_size;
    app.sel.without_barrier = o.without_barrier;
    select_settings(app, s);
    if (const TraceSlot& slot = current_trace(app); o.without_barrier && !slot.run && !slot.fault && !slot.pending)
        throw UsageError(slot.error);  // a line without a barrier, or a lab without kernels
    const std::uint32_t steps = step_count(app);
    if (o.step && steps && std::uint32_t(*o.step) >= steps)
        throw UsageError("--step " + std::to_string(*o.step) + " is out of range: " + lab.id + " " + current_version(app).id +
                         " has steps 0 to " + std::to_string(steps - 1));
    set_step(app, o.step.value_or(0));
    app.presenter = o.presenter;
    app.compare_widths = o.compare_widths;
    if (!o.compare.empty()) {
        check_compare(lab.id, o.compare);
        if (o.file.empty() && o.compare == current_version(app).id)
            throw UsageError("--compare " + o.compare + " is the version shown: name another (or your --file kernel's, to set it beside)");
        app.compared_with = o.compare;
    }
    app.compare_versions = o.compare_versions;
    app.playground.open = o.banks;
    if (!o.banks_preset.empty()) app.playground.pattern = wl::trace::find_bank_preset(o.banks_preset)->pattern;
}

}  // namespace warplab::viewer
