#include "run_command.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "labs/common/data_dir.h"
#include "labs/common/lab.h"
#include "trace_table.h"
#include "warplab/trace/json.h"
#include "warplab/trace/record.h"
#include "warplab/version.h"
#if WARPLAB_HAVE_RUN
#include "warplab/cudart/program.h"
#include "warplab/cudart/run_record.h"
#endif

namespace warplab::cli {

namespace fs = std::filesystem;

namespace {

constexpr const char* kUsage = "warplab run prog.cu [more.cu ...] [-I DIR] [-D NAME[=V]] [-std=c++NN] [--watch kernel[:n][@block]] [--json DIR] [--backend cpu|gpu|auto] [-- ARGS]";

struct RunArgs {
    std::vector<std::string> sources, include_dirs, defines, program_args;
    std::string standard, watch, json_dir;
    std::string backend = "cpu";  // the emulator, where the host-side checks are; auto: the GPU where there is one, as trace's
};

// "-I DIR" or "-IDIR" (and "--watch X" or "--watch=X"): the option's value, taken from args.
bool value_of(const std::vector<std::string>& args, std::size_t& i, const std::string& option, bool joined, std::string& value)
{
    const std::string& a = args[i];
    if (a == option) {
        if (i + 1 == args.size()) throw std::invalid_argument(option + " needs a value (" + kUsage + ")");
        value = args[++i];
        return true;
    }
    const std::string prefix = joined ? option : option + "=";
    if (a.size() > prefix.size() && a.compare(0, prefix.size(), prefix) == 0) {
        value = a.substr(prefix.size());
        return true;
    }
    return false;
}

RunArgs parse_args(const std::vector<std::string>& args)
{
    RunArgs r;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        std::string v;
        if (a == "--") {
            r.program_args.assign(args.begin() + std::ptrdiff_t(i) + 1, args.end());
            break;
        }
        if (value_of(args, i, "-I", true, v)) r.include_dirs.push_back(v);
        else if (value_of(args, i, "-D", true, v)) r.defines.push_back(v);
        else if (value_of(args, i, "--watch", false, v)) r.watch += (r.watch.empty() ? "" : ",") + v;
        else if (value_of(args, i, "--json", false, v)) r.json_dir = v;
        else if (value_of(args, i, "--backend", false, v)) r.backend = v;
        else if (a.rfind("-std=", 0) == 0 || a.rfind("--std=", 0) == 0) r.standard = a.substr(a.find('=') + 1);
        else if (!a.empty() && a[0] == '-') throw std::invalid_argument("unknown option '" + a + "' (" + kUsage + ")");
        else r.sources.push_back(a);
    }
    if (r.backend != "cpu" && r.backend != "gpu" && r.backend != "auto")
        throw std::invalid_argument("--backend " + r.backend + ": not cpu (the emulator), gpu or auto");
    if (r.sources.empty()) throw std::invalid_argument(std::string("name the program's .cu file (") + kUsage + ")");
    for (const std::string& s : r.sources)
        if (!fs::is_regular_file(s)) throw std::invalid_argument("cannot read source file '" + s + "'");
    if (!r.standard.empty() && (r.standard.rfind("c++", 0) != 0 || r.standard.size() != 5 ||
                                r.standard.find_first_not_of("0123456789", 3) != std::string::npos))
        throw std::invalid_argument("-std=" + r.standard + " is not c++NN (c++17, c++20)");
    return r;
}

#if WARPLAB_HAVE_RUN

// Whether the program runs on the GPU: --backend gpu, or auto where there is one.
bool runs_on_gpu(const RunArgs& a)
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

// A directory of its own for the program's records, removed when done.
struct RunDir {
    fs::path path;
    RunDir()
    {
        std::string name = (fs::temp_directory_path() / "warplab-run-XXXXXX").string();
        if (!mkdtemp(name.data())) throw std::runtime_error("cannot create a directory in " + fs::temp_directory_path().string());
        path = name;
    }
    ~RunDir()
    {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

// Runs the program with the records' directory in its environment; its exit code.
int run_program(const std::string& executable, const RunArgs& a, const fs::path& dir)
{
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("cannot start the program: ") + std::strerror(errno));
    if (pid == 0) {
        setenv(wl::cudart::kRunDirVariable, dir.c_str(), 1);
        if (!a.watch.empty()) setenv(wl::cudart::kWatchVariable, a.watch.c_str(), 1);
        std::vector<char*> argv{const_cast<char*>(a.sources.front().c_str())};  // argv[0]: the program's name, as its file
        for (const std::string& s : a.program_args) argv.push_back(const_cast<char*>(s.c_str()));
        argv.push_back(nullptr);
        execv(executable.c_str(), argv.data());
        std::fprintf(stderr, "warplab: error: cannot run %s: %s\n", executable.c_str(), std::strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(status)) {
        std::fprintf(stderr, "warplab: the program was stopped by signal %d (%s)\n", WTERMSIG(status), strsignal(WTERMSIG(status)));
        return 128 + WTERMSIG(status);
    }
    return WEXITSTATUS(status);
}

std::string dims_text(const unsigned (&d)[3])
{
    return "(" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]) + ")";
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
    std::printf("%-6s %-28s %-14s %-14s %8s %12s  %s\n", "launch", "kernel", "grid", "block", "shared", "emulated ms", "fault");
    for (const auto& r : launches)
        std::printf("%-6u %-28s %-14s %-14s %8llu %12s  %s\n", r.index, r.kernel.c_str(), dims_text(r.grid).c_str(),
                    dims_text(r.block).c_str(), static_cast<unsigned long long>(r.shared_bytes), time_text(r).c_str(),
                    r.error.empty() ? "-" : "yes (below)");
    for (const auto& r : launches)
        if (!r.error.empty()) std::printf("launch %u: %s\n", r.index, r.error.c_str());
    if (on_gpu)
        std::printf("on the GPU: no time a launch (launches run asynchronously, the watched ones instrumented); "
                    "`warplab bench` and the program's own events time kernels\n");
    else
        std::printf("emulated ms: the emulator's time for the launch on this machine, not GPU time\n");
}

nlohmann::json read_json(const fs::path& p)
{
    std::ifstream in(p);
    if (!in) throw std::runtime_error("the program's trace " + p.string() + " is missing");
    return nlohmann::json::parse(in);
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

void write_json(const RunArgs& a, const fs::path& dir, const std::vector<wl::cudart::LaunchRecord>& launches, int exit_code, bool on_gpu)
{
    std::error_code ec;
    fs::create_directories(a.json_dir, ec);
    if (ec) throw std::invalid_argument("--json: cannot create " + a.json_dir + ": " + ec.message());
    nlohmann::json list = nlohmann::json::array();
    std::size_t traces = 0;
    for (const auto& r : launches) {
        list.push_back(to_json(r));
        if (r.trace.empty()) continue;
        if (!fs::copy_file(dir / r.trace, fs::path(a.json_dir) / r.trace, fs::copy_options::overwrite_existing, ec))
            throw std::invalid_argument("--json: cannot write " + a.json_dir + "/" + r.trace + ": " + ec.message());
        ++traces;
    }
    const nlohmann::json manifest = {{"format", "warplab-run"},    {"format_version", 1},   {"warplab", wl::version_text()},
                                     {"sources", a.sources},        {"arguments", a.program_args},
                                     {"exit_code", exit_code},      {"backend", on_gpu ? "gpu" : "emulator"},
                                     {"launches", list}};
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
    const RunArgs a = parse_args(sub_->remaining());
#if WARPLAB_HAVE_RUN
    if (!a.watch.empty()) wl::cudart::parse_watch(a.watch);  // a bad --watch is refused before nvcc runs
    wl::cudart::ProgramOptions o;
    o.sources = a.sources, o.include_dirs = a.include_dirs, o.defines = a.defines, o.standard = a.standard;
    o.gpu = runs_on_gpu(a);
    // An installed warplab links programs with the runtime it carries (cmake/install.cmake).
    if (const auto installed = warplab::data_dir() / "cudart" / (o.gpu ? "link-gpu.txt" : "link.txt"); std::filesystem::exists(installed))
        o.link_file = installed.string();
    const auto start = std::chrono::steady_clock::now();
    const wl::cudart::Program program = wl::cudart::build_program(o);
    if (!program.reused)  // a second run of the same files says nothing here: it reuses this build
        std::fprintf(stderr, "warplab: nvcc built %s in %.1f s\n", a.sources.front().c_str(),
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    const RunDir dir;
    const int exit_code = run_program(program.executable, a, dir.path);
    const std::vector<wl::cudart::LaunchRecord> launches = wl::cudart::read_launches(dir.path.string());
    print_launches(launches, o.gpu);
    for (const auto& r : launches)
        if (!r.trace.empty()) print_trace(r, read_json(dir.path / r.trace));
    if (!a.json_dir.empty()) write_json(a, dir.path, launches, exit_code, o.gpu);
    return exit_code;
#else
    throw std::invalid_argument("this warplab was built without `warplab run` (it needs libzstd-dev, liblz4-dev and the CUDA "
                                "toolkit's headers when warplab is built)");
#endif
}

}  // namespace warplab::cli
