// warplab: the command-line front end.
//   warplab list
//   warplab trace <lab> <version> [--n N] [--block B] [--type T] [--backend B] [--schedule S] [--json]
// Exit codes: 0 ok, 1 a result was wrong, 2 bad input, 3 the kernel faulted.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "labs/common/lab.h"
#include "labs/common/traced_run.h"
#include "trace_table.h"
#include "warplab/emu/emulator.h"

namespace warplab::cli {
namespace {

constexpr int kWrongResult = 1, kBadInput = 2, kKernelFault = 3;

struct TraceArgs {
    std::string lab, version, backend = "auto", schedule = "independent", type = "int", out;
    std::size_t n = 0;
    unsigned block = 0;
    std::uint32_t watch = 0;
    std::uint64_t seed = 1;
    bool json = false;
};

int list_labs()
{
    for (const Lab& lab : all_labs()) {
        std::printf("%s: %s\n", lab.id.c_str(), lab.title.c_str());
        for (const VersionMeta& v : lab.versions)
            std::printf("  %-4s %-24s %s%s\n", v.id, v.name, v.variant ? "[variant] " : "", v.idea);
    }
    const GpuStatus gpu = gpu_status();
    std::printf("\nGPU: %s\n", gpu.available ? gpu.name.c_str() : ("none (" + gpu.reason + ")").c_str());
    return 0;
}

RunRequest make_request(const Lab& lab, const TraceArgs& a)
{
    RunRequest req;
    req.version = a.version;
    if (const VersionMeta* v = find_version(lab, a.version)) req.version = v->id;
    req.n = a.n ? a.n : lab.default_n;
    req.block = a.block ? a.block : lab.default_block;
    req.type = a.type;
    req.backend = a.backend == "gpu" ? BackendChoice::Gpu : a.backend == "cpu" ? BackendChoice::Cpu : BackendChoice::Auto;
    req.schedule = a.schedule == "lockstep" ? ScheduleChoice::Lockstep : ScheduleChoice::Independent;
    req.watched_block = a.watch;
    req.seed = a.seed;
    return req;
}

void print_header(const Lab& lab, const VersionMeta& v, const RunRequest& req, const TracedRun& run)
{
    std::printf("%s %s (%s): %s\n", lab.id.c_str(), v.id, v.name, v.idea);
    std::printf("n = %zu %s, block %u; block %u of the first pass traced on the %s\n", req.n, req.type.c_str(), req.block,
                req.watched_block, run.result.backend.c_str());
    std::printf("result %.9g, expected %.9g: %s\n\n", run.result.value, run.result.expected, run.result.ok ? "correct" : "WRONG");
}

int trace(const TraceArgs& a)
{
    const Lab* lab = find_lab(a.lab);
    if (!lab) throw std::invalid_argument("unknown lab '" + a.lab + "' (see `warplab list`)");
    const VersionMeta* v = find_version(*lab, a.version);
    if (!v) throw std::invalid_argument("unknown version '" + a.version + "' of lab " + lab->id + " (see `warplab list`)");
    const RunRequest req = make_request(*lab, a);
    const TracedRun run = trace_version(*lab, req);
    if (a.json || !a.out.empty()) {
        const std::string text = trace_document(*lab, req, run).dump(1) + "\n";
        if (a.out.empty()) {
            std::fputs(text.c_str(), stdout);
        } else {
            std::ofstream f(a.out);
            if (!(f << text)) throw std::invalid_argument("cannot write " + a.out);
            std::fprintf(stderr, "wrote %s\n", a.out.c_str());
        }
    }
    if (!a.json) {
        print_header(*lab, *v, req, run);
        std::fputs(trace_table(run.steps, run.totals).c_str(), stdout);
    }
    return run.result.ok ? 0 : kWrongResult;
}

}  // namespace
}  // namespace warplab::cli

int main(int argc, char** argv)
{
    using namespace warplab::cli;
    CLI::App app{"warplab: step through GPU kernels, see what the hardware sees"};
    app.require_subcommand(1);
    app.add_subcommand("list", "list the labs and their versions");
    TraceArgs ta;
    CLI::App* tr = app.add_subcommand("trace", "run one version and print its per-step table");
    tr->add_option("lab", ta.lab, "lab, e.g. reduction")->required();
    tr->add_option("version", ta.version, "version, e.g. v2")->required();
    tr->add_option("--n", ta.n, "number of elements (default: the lab's)");
    tr->add_option("--block", ta.block, "threads per block (default: the lab's)");
    tr->add_option("--type", ta.type, "element type: int or float")->check(CLI::IsMember({"int", "float"}));
    tr->add_option("--backend", ta.backend, "auto, cpu (emulator) or gpu")->check(CLI::IsMember({"auto", "cpu", "gpu"}));
    tr->add_option("--schedule", ta.schedule, "emulator lane schedule: independent or lockstep")
        ->check(CLI::IsMember({"independent", "lockstep"}));
    tr->add_option("--watch-block", ta.watch, "which block of the first pass to trace (default 0)");
    tr->add_option("--seed", ta.seed, "input seed (default 1)");
    tr->add_flag("--json", ta.json, "print the trace as JSON (docs/trace-format.md) instead of the table");
    tr->add_option("-o,--out", ta.out, "also write the JSON trace to this file");

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::fprintf(stderr, "warplab: error: %s\n", e.what());
        return kBadInput;
    }
    try {
        if (app.got_subcommand("list")) return list_labs();
        return trace(ta);
    } catch (const wl::emu::KernelFault& e) {
        std::fprintf(stderr, "warplab: kernel fault: %s\n", e.what());
        return kKernelFault;
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "warplab: error: %s\n", e.what());
        return kBadInput;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "warplab: error: out of memory\n");
        return kBadInput;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "warplab: error: %s\n", e.what());
        return kBadInput;
    }
}
