// Workloads at real sizes (see workloads.h). Each runs once: a lab version as
// `warplab trace <lab> <version>` runs it (inputs made, every block emulated
// with block 0 watched, the result checked, the trace analysed), or a whole
// program as `warplab run` builds and runs it. The stable measures on a shared
// machine are the lane-instructions (the same on any host) and the user CPU
// time (getrusage: the process's threads, or the program's process); wall
// time is printed too but moves with the machine's load.
#include "workloads.h"

#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "labs/common/lab.h"
#include "labs/common/traced_run.h"
#include "warplab/emu/emulator.h"

namespace warplab::bench {

namespace {

namespace fs = std::filesystem;

struct LabWorkload {
    const char* name;
    const char* lab;
    const char* version;
    std::size_t n;                   // 0: the version's default
    std::vector<std::size_t> shape;  // empty: n
    bool record = true;              // false: no block watched (a trace of that size is refused)
};

// The sizes programs use: a 1024^3 SGEMM, a 16M-element reduction, a 4096^2
// transpose, a 1080p frame.
const std::vector<LabWorkload>& lab_workloads()
{
    static const std::vector<LabWorkload> all = {
        {"matmul v1 512^3", "matmul", "v1", 0, {512}},
        {"matmul v9 1024^3", "matmul", "v9", 0, {1024}},
        {"reduction v1 2^24", "reduction", "v1", std::size_t{1} << 24, {}},
        {"reduction v8 2^24", "reduction", "v8", std::size_t{1} << 24, {}},
        {"transpose v2 4096^2", "transpose", "v2", 0, {4096}, false},
        {"image v1 1920x1080", "image", "v1", 0, {1920, 1080}},
    };
    return all;
}

// Whole programs of `warplab run`'s tests (tests/run/programs), run as they are.
constexpr const char* kPrograms[] = {"reduction.cu", "host_correct.cu"};

// What one workload measured. launch_seconds: the wall time of its launches
// alone (the rest of wall_seconds is reading and compiling kernels, making
// inputs, checking the result, analysing the trace); 0 where not measured.
struct Figures {
    double lane_instructions = 0, user_seconds = 0, wall_seconds = 0, launch_seconds = 0;
    double rate() const { return user_seconds > 0 ? lane_instructions / user_seconds : 0; }
};
std::map<std::string, Figures> g_measured;

// Recorded on the 2-core development machine, under other work's load, at
// commit 027dc9d (before the speed work): lane-instructions, user CPU seconds,
// wall seconds. Programs: the launches' emulated time stands for both times.
const std::map<std::string, Figures>& recorded()
{
    static const std::map<std::string, Figures> figures = {
        {"matmul v1 512^3", {1.354e9, 14.38, 55.08}},
        {"matmul v9 1024^3", {1.187e9, 8.82, 38.51}},
        {"reduction v1 2^24", {1.533e9, 4.31, 19.71}},
        {"reduction v8 2^24", {1.177e8, 0.50, 2.88}},
        {"transpose v2 4096^2", {7.382e8, 3.57, 17.74}},
        {"image v1 1920x1080", {1.55e8, 0.72, 3.18}},
        {"program reduction.cu", {2.974e6, 0.14, 0.14}},
        {"program host_correct.cu", {8.09e6, 0.25, 0.25}},
    };
    return figures;
}

double seconds(const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) * 1e-6; }

double user_seconds(int who)
{
    rusage u{};
    getrusage(who, &u);
    return seconds(u.ru_utime);
}

void set_counters(benchmark::State& state, const std::string& name, const Figures& f)
{
    g_measured[name] = f;
    state.counters["lane_instr"] = f.lane_instructions;
    state.counters["user_s"] = f.user_seconds;
    state.counters["launch_s"] = f.launch_seconds;
    state.counters["lane_instr_per_user_s"] = f.rate();
}

// The fast engine's rows: each workload's name with this after it, beside the interpreter's.
constexpr const char* kFastSuffix = " [fast]";

std::string row_name(const std::string& workload, wl::emu::Engine engine)
{
    return engine == wl::emu::Engine::Fast ? workload + kFastSuffix : workload;
}

void BM_LabWorkload(benchmark::State& state, const LabWorkload* w, wl::emu::Engine engine)
{
    const Lab* lab = find_lab(w->lab);
    const VersionMeta* version = lab ? find_version(*lab, w->version) : nullptr;
    if (!version) {
        state.SkipWithError("no such lab version");
        return;
    }
    RunRequest req;
    req.version = w->version;
    req.n = w->n ? w->n : default_n(*lab, *version);
    req.shape = w->shape;
    req.block = version->bench_block;
    req.type = lab->types.front();
    req.backend = BackendChoice::Cpu;
    req.record = w->record;
    req.engine = engine;
    for (auto _ : state) {
        const std::uint64_t instructions = wl::emu::lane_instructions_run();
        const double launches = wl::emu::launch_seconds_run();
        const double user = user_seconds(RUSAGE_SELF);
        const auto start = std::chrono::steady_clock::now();
        try {
            if (!trace_version(*lab, req).result.ok) state.SkipWithError("wrong result");
        } catch (const std::exception& e) {
            state.SkipWithError(e.what());
            return;
        }
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        set_counters(state, row_name(w->name, engine),
                     Figures{double(wl::emu::lane_instructions_run() - instructions), user_seconds(RUSAGE_SELF) - user, wall,
                             wl::emu::launch_seconds_run() - launches});
    }
}

// `warplab run --json DIR program`: the launches' lane-instructions and
// emulated time from DIR/manifest.json; the whole run's wall and user time
// (nvcc's build of the program included: its cache makes later runs cheap).
void BM_Program(benchmark::State& state, const char* program, wl::emu::Engine engine)
{
    const fs::path dir = fs::temp_directory_path() / ("warplab-bench-" + std::to_string(::getpid()));
    const std::string command = std::string("'") + WARPLAB_CLI + "' run --engine " + wl::emu::to_string(engine) + " --json '" + dir.string() + "' '" +
                                WARPLAB_PROGRAMS + "/" + program + "' > /dev/null 2>&1";
    for (auto _ : state) {
        const double user = user_seconds(RUSAGE_CHILDREN);
        const auto start = std::chrono::steady_clock::now();
        if (std::system(command.c_str()) != 0) {
            state.SkipWithError("warplab run failed (is nvcc on PATH?)");
            return;
        }
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double whole_user = user_seconds(RUSAGE_CHILDREN) - user;
        Figures launches;
        std::ifstream in(dir / "manifest.json");
        const nlohmann::json manifest = nlohmann::json::parse(in);
        for (const nlohmann::json& launch : manifest.at("launches")) {
            launches.lane_instructions += launch.value("lane_instructions", 0.0);
            launches.user_seconds += launch.at("emulated_ms").get<double>() / 1000;
        }
        launches.wall_seconds = launches.user_seconds;
        set_counters(state, row_name(std::string("program ") + program, engine), launches);
        state.counters["run_wall_s"] = wall;
        state.counters["run_user_s"] = whole_user;
    }
    fs::remove_all(dir);
}

void print_rate(double rate)
{
    if (rate > 0) std::printf("%9.1f M/s", rate / 1e6);
    else std::printf("%11s", "-");
}

}  // namespace

void register_workloads()
{
    for (const wl::emu::Engine engine : {wl::emu::Engine::Interpret, wl::emu::Engine::Fast}) {
        for (const LabWorkload& w : lab_workloads())
            benchmark::RegisterBenchmark(("BM_Workload/" + row_name(w.name, engine)).c_str(), BM_LabWorkload, &w, engine)
                ->Unit(benchmark::kSecond)
                ->UseRealTime()
                ->Iterations(1);
        for (const char* p : kPrograms)
            benchmark::RegisterBenchmark(("BM_Workload/" + row_name(std::string("program ") + p, engine)).c_str(), BM_Program,
                                         p, engine)
                ->Unit(benchmark::kSecond)
                ->UseRealTime()
                ->Iterations(1);
    }
}

void print_workload_summary()
{
    if (g_measured.empty()) return;
    std::printf("\nWorkloads: lane-instructions per second of user CPU time (programs: of their launches' time);\n"
                "launch s: the wall time of the launches alone, the rest of wall s is outside them\n");
    std::printf("  %-24s %14s %8s %8s %8s %13s   %13s %8s %7s\n", "workload", "lane-instr", "user s", "wall s", "launch s", "rate",
                "recorded rate", "user s", "speedup");
    for (const auto& [name, f] : g_measured) {
        std::printf("  %-24s %14.4g %8.2f %8.2f ", name.c_str(), f.lane_instructions, f.user_seconds, f.wall_seconds);
        if (f.launch_seconds > 0) std::printf("%8.2f  ", f.launch_seconds);
        else std::printf("%8s  ", "-");
        print_rate(f.rate());
        const auto it = recorded().find(name.substr(0, name.find(kFastSuffix)));  // the fast rows beside the same figure
        const Figures before = it == recorded().end() ? Figures{} : it->second;
        std::printf("   ");
        print_rate(before.rate());
        if (before.rate() > 0 && f.rate() > 0) std::printf("   %6.2f %6.2fx\n", before.user_seconds, f.rate() / before.rate());
        else std::printf("\n");
    }
}

}  // namespace warplab::bench
