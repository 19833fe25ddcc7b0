// A whole program in the viewer (program_view.h).
#include "viewer/app/program_view.h"

#include <cmath>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include "labs/common/data_dir.h"
#include "labs/common/traced_run.h"
#include "warplab/ptx/ptx.h"
#include "viewer/model/format.h"
#include "warplab/trace/json.h"

namespace warplab::viewer {

namespace {

namespace fs = std::filesystem;
using wl::cudart::LaunchRecord;

constexpr const char* kNoLaunchId = "program";  // the one version of a program with no watched launch

std::string file_name(const std::string& path) { return fs::path(path).filename().string(); }

const LaunchRecord* record_of(const ProgramLab& p, unsigned index)
{
    for (const LaunchRecord& r : p.run.launches)
        if (r.index == index) return &r;
    return nullptr;
}

unsigned threads_of(const LaunchRecord& r) { return r.block[0] * r.block[1] * r.block[2]; }

std::string shape_text(const LaunchRecord& r)
{
    std::string s = "grid " + dims_text(r.grid) + " × block " + dims_text(r.block);
    if (r.shared_bytes) s += printf_string(", %llu B dynamic shared", static_cast<unsigned long long>(r.shared_bytes));
    return s;
}

// The fault's "(at FILE:LINE)" where it names one: the line the source panel marks.
void locate_fault(TraceSlot& slot, const std::string& source)
{
    const auto at = slot.error.rfind("(at ");
    const auto colon = slot.error.rfind(':');
    if (at == std::string::npos || colon == std::string::npos || colon < at) return;
    const std::string file = slot.error.substr(at + 4, colon - at - 4);
    slot.fault_line = std::uint32_t(std::strtoul(slot.error.c_str() + colon + 1, nullptr, 10));
    // As the source panel names the file: the trace's name for it, which a build cached from another
    // working directory may give relative to that one, where the fault names it whole.
    const bool same = file == source || (file.size() > source.size() && file.ends_with("/" + source)) ||
                      fs::path(file).lexically_normal() == fs::absolute(source).lexically_normal();
    slot.fault_file = same ? source : file;
}

// A watched launch's slot, from the trace document its run wrote.
TraceSlot slot_of(const ProgramLab& p, const LaunchRecord& r)
{
    const nlohmann::json& doc = p.run.traces.at(r.index);
    const nlohmann::json& block = doc.at("blocks").at(0);
    TraceSlot slot;
    TracedRun& run = slot.run.emplace();
    run.block = wl::trace::block_from_json(block);
    run.steps = wl::trace::steps_from_json(block);
    run.shared_after = wl::trace::shared_after_from_json(block);
    run.totals = wl::trace::totals_from_json(doc.at("totals"));
    RunResult& result = run.result;
    result.backend = "cpu emulator, as the program ran it";
    result.value = result.expected = std::numeric_limits<double>::quiet_NaN();  // a program checks its own results
    result.ok = r.error.empty();
    result.threads_per_block = threads_of(r);
    result.warp_width = run.block.warp_size;
    result.block_dim = {r.block[0], r.block[1], r.block[2]};
    result.grid_dim = {r.grid[0], r.grid[1], r.grid[2]};
    result.problem = r.kernel + ", " + shape_text(r);
    result.compile_warnings = p.warnings;  // the status line and the source panel show them, as a --file kernel's
    if (!r.error.empty()) {
        slot.fault = true;
        slot.error = r.error;
        locate_fault(slot, doc.at("source").get<std::string>());
    }
    return slot;
}

// What a version of the program's lab says when it cannot be traced here: a
// failed build, no watched launch, or settings a program does not take.
std::string refusal(const ProgramLab& p, const std::string& version)
{
    if (!p.failure.empty()) return p.failure;
    if (version == kNoLaunchId)
        return p.run.launches.empty() ? "the program made no kernel launch"
                                      : "no launch was watched (warplab run's --watch kernel[:n][@block] chooses)";
    return "a program's launch is shown as the program made it: its size, block, schedule and warp width are the program's";
}

void make_lab(const std::shared_ptr<ProgramLab>& shared)
{
    ProgramLab& p = *shared;
    Lab& lab = p.lab;
    lab.id = "program";
    const std::string files = file_name(p.sources.front()) + (p.sources.size() > 1 ? printf_string(" (+%zu)", p.sources.size() - 1) : "");
    lab.title = !p.failure.empty() ? files + ": did not run"
                                   : printf_string("%s: %zu launch%s, exit code %d", files.c_str(), p.run.launches.size(),
                                                   p.run.launches.size() == 1 ? "" : "es", p.run.exit_code);
    lab.types = {"int"};  // the shared arrays' own types come from the file (declare_array_types)
    for (const LaunchRecord& r : p.run.launches) {
        if (r.trace.empty()) continue;
        Version v{};
        v.id = p.texts.emplace_back("launch" + std::to_string(r.index)).c_str();
        v.name = p.texts.emplace_back(r.kernel).c_str();
        v.idea = p.texts.emplace_back(r.kernel + ": " + shape_text(r) + printf_string(", block %u watched", r.watched_block)).c_str();
        v.changed = p.texts.emplace_back(printf_string("launch %u of the program's %zu, as it made it: ", r.index, p.run.launches.size()) +
                                         shape_text(r)).c_str();
        v.expected = "its watched block's steps; the program's output is below its launches";
        v.bench_block = threads_of(r);
        v.dynamic_shared_bytes = unsigned(r.shared_bytes);
        v.kernel = bare_kernel_name(r.kernel);
        v.file = p.run.traces.at(r.index).at("source").get<std::string>();
        lab.versions.push_back(v);
        p.shown.push_back(r.index);
    }
    if (lab.versions.empty()) {
        Version v{};
        v.id = kNoLaunchId;
        v.name = v.changed = v.expected = "";
        v.idea = p.texts.emplace_back(refusal(p, kNoLaunchId)).c_str();
        v.file = p.sources.front();
        lab.versions.push_back(v);
    }
    // Weak: the lab is the program's, which owns it.
    lab.run = [weak = std::weak_ptr<const ProgramLab>(shared)](const RunRequest& req) -> RunResult {
        const auto program = weak.lock();
        throw std::invalid_argument(program ? refusal(*program, req.version) : "the program is gone");
    };
}

std::string first_error_line(const std::string& text)
{
    std::string first;
    for (std::size_t at = 0; at < text.size();) {
        const auto end = std::min(text.find('\n', at), text.size());
        const std::string line = text.substr(at, end - at);
        if (first.empty() && !line.empty()) first = line;
        if (line.find("error") != std::string::npos) return line;
        at = end + 1;
    }
    return first;
}

}  // namespace

// "reduce_pass" of "ns::reduce_pass<256u>": the name its definition in the file has.
std::string bare_kernel_name(std::string name)
{
    if (const auto lt = name.find('<'); lt != std::string::npos) name.erase(lt);
    if (const auto colon = name.rfind("::"); colon != std::string::npos) name.erase(0, colon + 2);
    return name;
}

std::string dims_text(const unsigned (&d)[3]) { return printf_string("(%u,%u,%u)", d[0], d[1], d[2]); }

std::shared_ptr<const ProgramLab> run_program(const wl::cudart::RunArguments& arguments)
{
    auto p = std::make_shared<ProgramLab>();
    p->sources = arguments.program.sources;
#if WARPLAB_HAVE_RUN
    try {
        wl::cudart::RunArguments a = arguments;
        a.program.gpu = false;  // the emulator: its launches are recorded, its host-side mistakes named
        a.program.link_file = installed_runtime_link_file(false);
        const wl::cudart::Program built = wl::cudart::build_program(a.program);
        p->warnings = wl::ptx::first_warnings(built.warnings);
        p->run = wl::cudart::run_built_program(built.executable, a, wl::cudart::ProgramOutput::Captured);
    } catch (const std::exception& e) {
        p->failure = e.what();
    }
#else
    p->failure = "this warplab-viewer was built without `warplab run` (it needs libzstd-dev, liblz4-dev and the CUDA toolkit's "
                 "headers when warplab is built)";
#endif
    make_lab(p);
    return p;
}

void show_program(App& app, std::shared_ptr<const ProgramLab> program)
{
    close_program(app);
    app.labs_selection = app.sel;
    app.program = std::move(program);
    app.sel = Selection{};
    app.sel.backend = BackendChoice::Cpu;
    const ProgramLab& p = *app.program;
    for (std::size_t i = 0; i < p.shown.size(); ++i) place_trace(app, i, slot_of(p, *record_of(p, p.shown[i])));
    select_version(app, 0);
}

void close_program(App& app)
{
    if (!app.program) return;
    std::erase_if(app.traces, [](const auto& entry) { return entry.first.lab == kProgramLabKey; });
    std::erase_if(app.totals, [](const auto& entry) { return entry.first.lab == kProgramLabKey; });
    app.program.reset();
    app.sel = app.labs_selection;
}

void open_program(App& app, const wl::cudart::RunArguments& arguments)
{
    app.user_lab.reset();
    app.traces.clear();
    app.totals.clear();
    show_program(app, run_program(arguments));
}

std::optional<std::size_t> version_of_launch(const ProgramLab& p, unsigned index)
{
    for (std::size_t i = 0; i < p.shown.size(); ++i)
        if (p.shown[i] == index) return i;
    return std::nullopt;
}

std::string program_status(const App& app)
{
    const ProgramLab& p = *app.program;
    const std::string name = file_name(p.sources.front());
    if (!p.failure.empty()) return name + " did not run: " + failure_line(p);
    const std::string exit = !p.run.stopped_by.empty() ? " · the program was stopped by " + p.run.stopped_by
                                                       : printf_string(" · %s exited with %d", name.c_str(), p.run.exit_code);
    if (p.shown.empty()) return refusal(p, kNoLaunchId) + exit;
    const LaunchRecord& r = *record_of(p, p.shown.at(app.sel.version));
    const std::string launch = printf_string("launch %u of %zu", r.index, p.run.launches.size());
    if (!r.error.empty()) return launch + " (" + r.kernel + ") faulted: " + first_error_line(r.error) + exit;
    return printf_string("trace: cpu emulator · %s: %s, %s · block %u watched%s", launch.c_str(), r.kernel.c_str(), shape_text(r).c_str(),
                         r.watched_block, exit.c_str());
}

std::string failure_line(const ProgramLab& p) { return first_error_line(p.failure); }

bool program_failed(const App& app)
{
    const ProgramLab& p = *app.program;
    if (!p.failure.empty() || p.run.exit_code != 0) return true;
    for (const LaunchRecord& r : p.run.launches)
        if (!r.error.empty()) return true;
    return false;
}

}  // namespace warplab::viewer
