#include "run_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "labs/common/data_dir.h"
#include "labs/common/lab.h"
#include "trace_table.h"
#include "warplab/trace/json.h"
#include "warplab/trace/record.h"
#include "warplab/version.h"
#if WARPLAB_HAVE_RUN
#include "warplab/cudart/program_run.h"
#include "warplab/ptx/ptx.h"
#endif

namespace warplab::cli {

namespace fs = std::filesystem;

namespace {

#if WARPLAB_HAVE_RUN
const std::string kUsage = std::string("warplab run ") + wl::cudart::kRunArgumentsUsage;
#else
const std::string kUsage = "warplab run prog.cu [more.cu ...] [-- ARGS]";
#endif

#if WARPLAB_HAVE_RUN

// Whether the program runs on the GPU: --backend gpu, or auto where there is one.
bool runs_on_gpu(const wl::cudart::RunArguments& a)
{
    if (a.backend == "cpu") return false;
    const warplab::GpuStatus gpu = warplab::gpu_status();
#if WARPLAB_HAVE_RUN_GPU
    if (a.backend == "auto" || gpu.available) return gpu.available;
    throw std::invalid_argument("--backend gpu: no GPU: " + gpu.reason);
#else
    if (a.backend == "auto") return false;
    throw std::invalid_argument("--backend gpu: no GPU: " + (gpu.available ? std::string("this warplab's `run` was built without it") : gpu.reason));
#endif
}

std::string dims_text(const unsigned (&d)[3])
{
    return "(" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]) + ")";
}

// A --watch that traced nothing (a misspelt kernel, a launch past its last, a block outside its grid):
// one line saying so, with what the program launched, rather than no step table and no word.
void note_unmatched_watch(const std::string& watch, const std::vector<wl::cudart::LaunchRecord>& launches)
{
    if (std::any_of(launches.begin(), launches.end(), [](const auto& r) { return !r.trace.empty(); })) return;
    std::map<std::string, unsigned> counts;
    std::vector<std::string> order;
    for (const auto& r : launches)
        if (counts[r.kernel]++ == 0) order.push_back(r.kernel);
    std::string launched;
    for (const std::string& k : order)
        launched += (launched.empty() ? "" : ", ") + k + " (" + std::to_string(counts[k]) +
                    (counts[k] == 1 ? " launch)" : " launches)");
    std::fprintf(stderr, "warplab: --watch %s traced nothing: %s; a watched launch counts from 1 and its block lies in its grid\n",
                 watch.c_str(), launched.empty() ? "the program launched no kernel" : ("it launched " + launched).c_str());
}

// "-" for a launch on the GPU: it runs asynchronously, and a watched one runs instrumented.
std::string time_text(const wl::cudart::LaunchRecord& r)
{
    if (r.on_gpu) return "-";
    char text[32];
    std::snprintf(text, sizeof text, "%.3f", r.emulated_ms);
    return text;
}

void print_launches(const std::vector<wl::cudart::LaunchRecord>& launches, bool on_gpu)
{
    std::printf("\nwarplab: %zu kernel launch%s\n", launches.size(), launches.size() == 1 ? "" : "es");
    if (launches.empty()) return;
    std::printf("%-6s %-28s %-20s %-14s %-14s %8s %12s  %s\n", "launch", "kernel", "launched at", "grid", "block", "shared",
                "emulated ms", "fault");
    // A template instance's name can run long: cut to its column, so the columns stay in line (the
    // watched launches' headers below name it whole).
    const auto column = [](const std::string& name) { return name.size() <= 28 ? name : name.substr(0, 25) + "..."; };
    for (const auto& r : launches)
        std::printf("%-6u %-28s %-20s %-14s %-14s %8llu %12s  %s\n", r.index, column(r.kernel).c_str(), wl::cudart::short_host_line(r).c_str(),
                    dims_text(r.grid).c_str(), dims_text(r.block).c_str(), static_cast<unsigned long long>(r.shared_bytes),
                    time_text(r).c_str(), r.error.empty() ? "-" : "yes (below)");
    for (const auto& r : launches)
        if (!r.error.empty()) std::printf("launch %u: %s\n", r.index, r.error.c_str());
    if (on_gpu)
        std::printf("on the GPU: no time a launch (launches run asynchronously, the watched ones instrumented); "
                    "`warplab bench` and the program's own events time kernels\n");
    else
        std::printf("emulated ms: the emulator's time for the launch on this machine, not GPU time\n");
    std::printf("shared: the dynamic shared memory the launch gave, in bytes (the kernel's own __shared__ arrays are not in it)\n");
}

void print_trace(const wl::cudart::LaunchRecord& r, const nlohmann::json& doc)
{
    const nlohmann::json& block = doc.at("blocks").at(0);
    const std::string source = doc.at("source").get<std::string>();
    SourceNames names;
    names.own = wl::trace::file_hash(source.c_str());
    std::printf("\nlaunch %u: %s, block %u of grid %s%s (lines of %s)\n", r.index, r.kernel.c_str(), r.watched_block,
                dims_text(r.grid).c_str(), r.on_gpu ? " on the GPU" : "", source.c_str());
    std::fputs(trace_table(wl::trace::steps_from_json(block), wl::trace::totals_from_json(doc.at("totals")),
                           wl::trace::block_from_json(block), names)
                   .c_str(),
               stdout);
}

void write_json(const wl::cudart::RunArguments& a, const wl::cudart::Program& program, const wl::cudart::ProgramRun& run, bool on_gpu)
{
    std::error_code ec;
    fs::create_directories(a.json_dir, ec);
    if (ec) throw std::invalid_argument("--json: cannot create " + a.json_dir + ": " + ec.message());
    nlohmann::json list = nlohmann::json::array();
    std::size_t traces = 0;
    for (const auto& r : run.launches) {
        list.push_back(to_json(r));
        if (r.trace.empty()) continue;
        std::ofstream trace(fs::path(a.json_dir) / r.trace);
        if (!(trace << run.traces.at(r.index).dump() << "\n")) throw std::invalid_argument("--json: cannot write " + a.json_dir + "/" + r.trace);
        ++traces;
    }
    nlohmann::json manifest = {{"format", "warplab-run"},    {"format_version", 1},   {"warplab", wl::version_text()},
                                     {"sources", a.program.sources}, {"arguments", a.program_args},
                                     {"exit_code", run.exit_code},      {"backend", on_gpu ? "gpu" : "emulator"},
                                     {"compile_warnings", wl::ptx::warning_headlines(program.warnings)},
                                     {"launches", list}};
    if (!on_gpu) {  // what ran the blocks nobody watched, not what was asked for
        std::uint64_t fast = 0, interpreted = 0;
        for (const auto& r : run.launches) fast += r.engine == "fast", interpreted += r.engine == "interpret";
        if (fast || interpreted) manifest["engine"] = wl::emu::engines_that_ran(fast, interpreted);
    }
    std::ofstream out(fs::path(a.json_dir) / "manifest.json");
    if (!(out << manifest.dump(1) << "\n")) throw std::invalid_argument("--json: cannot write " + a.json_dir + "/manifest.json");
    std::fprintf(stderr, "wrote %s/manifest.json and %zu trace%s\n", a.json_dir.c_str(), traces, traces == 1 ? "" : "s");
}

#endif

}  // namespace

RunCommand::RunCommand(CLI::App& app)
{
    sub_ = app.add_subcommand("run", std::string("build a whole CUDA program with nvcc, run every launch on the emulator "
                                                 "(or, with --backend gpu, on the GPU, the watched ones instrumented), "
                                                 "and show its launches and the watched ones' steps: ") +
                                         kUsage);
    sub_->prefix_command();  // its arguments are nvcc's and the program's: read by run()
}

int RunCommand::run() const
{
#if WARPLAB_HAVE_RUN
    wl::cudart::RunArguments a = wl::cudart::parse_run_arguments(sub_->remaining());
    wl::cudart::ProgramOptions& o = a.program;
    o.gpu = runs_on_gpu(a);
    // An installed warplab links programs with the runtime it carries (cmake/install.cmake).
    o.link_file = warplab::installed_runtime_link_file(o.gpu);
    const auto start = std::chrono::steady_clock::now();
    const wl::cudart::Program program = wl::cudart::build_program(o);
    if (!program.reused)  // a second run of the same files says nothing here: it reuses this build
        std::fprintf(stderr, "warplab: nvcc built %s in %.1f s\n", o.sources.front().c_str(),
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (!program.warnings.empty()) std::fprintf(stderr, "%s\n", wl::ptx::first_warnings(program.warnings).c_str());  // every run: a cached build keeps them
    const wl::cudart::ProgramRun run = wl::cudart::run_built_program(program.executable, a, wl::cudart::ProgramOutput::PassThrough);
    if (!run.stopped_by.empty()) std::fprintf(stderr, "warplab: the program was stopped by %s\n", run.stopped_by.c_str());
    print_launches(run.launches, o.gpu);
    for (const auto& r : run.launches)
        if (!r.trace.empty()) print_trace(r, run.traces.at(r.index));
    if (!a.watch.empty()) note_unmatched_watch(a.watch, run.launches);
    if (!a.json_dir.empty()) write_json(a, program, run, o.gpu);
    return run.exit_code;
#else
    throw std::invalid_argument("this warplab was built without `warplab run` (it needs libzstd-dev, liblz4-dev and the CUDA "
                                "toolkit's headers when warplab is built)");
#endif
}

}  // namespace warplab::cli
