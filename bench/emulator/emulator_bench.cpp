// Emulator speed against three demands:
//   (a) fiber switches: >= 60 million per second on one core;
//   (b) reducing 2^22 floats with v1 on all cores, from the lab's PTX: at most 1.0 second;
//   (c) every trace the viewer shows, at its defaults: at most 1 second each
//       (one case per version of every registered lab: what `warplab trace <lab> <version>` runs);
// plus a baseline for (a): bare Boost.Context switches, nothing else;
// and workloads at real sizes, in lane-instructions per second (workloads.h).
// Run: build/warplab_emulator_bench (--benchmark_filter=Trace for (c) alone,
// --benchmark_filter=Workload for the workloads).
// The figures print; nothing passes or fails here, but the summary at the end
// says whether each demand is met, and which traces exceed theirs.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <boost/context/detail/fcontext.hpp>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "labs/common/lab.h"
#include "labs/common/make_lab.h"
#include "labs/common/traced_run.h"
#include "labs/reduction/lab.h"
#include "labs/reduction/run.h"
#include "warplab/emu/emulator.h"
#include "warplab/ptx/ptx.h"
#include "workloads.h"

namespace {

constexpr unsigned kBlockThreads = 1024;
constexpr unsigned kSyncsPerThread = 200;
constexpr double kSwitchDemand = 60e6;      // switches per second, one core
constexpr double kReduceDemandSeconds = 1.0;  // 2^22 floats, v1, all cores
constexpr double kTraceDemandSeconds = 1;     // one viewer trace at its defaults
constexpr std::size_t kReduceN = std::size_t(1) << 22;

// Nothing but warp synchronisation: every __syncwarp() parks the lane and the
// scheduler resumes it once its warp has all arrived. The PTX nvcc makes of
//   __global__ void syncwarp_loop(unsigned iterations)
//   { for (unsigned k = 0; k < iterations; ++k) __syncwarp(); }
// without its four-fold unrolling, written out so that the benchmark needs no nvcc.
constexpr const char kSyncwarpLoopPtx[] = R"ptx(
.version 9.0
.target sm_90
.address_size 64

.visible .entry _Z13syncwarp_loopj(
	.param .u32 _Z13syncwarp_loopj_param_0
)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<3>;

	ld.param.u32 	%r1, [_Z13syncwarp_loopj_param_0];
	setp.eq.s32 	%p1, %r1, 0;
	@%p1 bra 	$L__done;
	mov.u32 	%r2, 0;
$L__loop:
	bar.warp.sync 	-1;
	add.s32 	%r2, %r2, 1;
	setp.lt.u32 	%p2, %r2, %r1;
	@%p2 bra 	$L__loop;
$L__done:
	ret;
}
)ptx";

// What the summary reports, filled in by the benchmarks.
struct Measured {
    double switches_per_second = 0;
    double reduce_seconds = 0;
    std::map<std::string, double> trace_seconds;  // "lab version" -> seconds per trace
} g_measured;

void BM_FiberSwitches(benchmark::State& state)
{
    wl::emu::Emulator emu;
    emu.options.workers = 1;      // one host thread: one core
    emu.options.record = false;   // measure switching, not tracing
    static const wl::ptx::Module module = wl::ptx::Module::parse(kSyncwarpLoopPtx, "syncwarp_loop.ptx");
    for (auto _ : state) wl::ptx::launch(emu, module, "syncwarp_loop", dim3(1), dim3(kBlockThreads), 0, kSyncsPerThread);
    // The emulator counts the switches it made: each resume of a lane is a jump
    // into its fiber and, at its next __syncwarp() (or exit), one back. About
    // 2 per lane per __syncwarp(), a little less where the last lane to arrive
    // continues without a round trip.
    state.SetItemsProcessed(static_cast<std::int64_t>(emu.fiber_switches()));  // items_per_second = switches/s
}

// Baseline for (a): two contexts jumping to each other with nothing else to
// do, so (a) can be read as Boost.Context's cost plus the emulator's own.
void BM_BareContextSwitches(benchmark::State& state)
{
    namespace ctx = boost::context::detail;
    static std::vector<char> stack(64 * 1024);
    auto bounce = [](ctx::transfer_t t) {
        for (;;) t = ctx::jump_fcontext(t.fctx, nullptr);
    };
    ctx::fcontext_t other = ctx::make_fcontext(stack.data() + stack.size(), stack.size(), bounce);
    constexpr int kRoundTrips = 1 << 16;
    for (auto _ : state)
        for (int k = 0; k < kRoundTrips; ++k) other = ctx::jump_fcontext(other, nullptr).fctx;
    // Each round trip is two switches: there and back.
    state.SetItemsProcessed(2 * kRoundTrips * state.iterations());
}

void BM_ReduceV1Floats(benchmark::State& state)
{
    warplab::RunRequest req;
    req.version = "v1";
    req.n = kReduceN;
    req.block = 256;
    req.type = "float";
    req.backend = warplab::BackendChoice::Cpu;
    for (auto _ : state) {
        const warplab::RunResult r = warplab::run_on_emulator<warplab::reduction::Description>(req);  // default workers: all cores
        if (!r.ok) state.SkipWithError("v1 gave a wrong sum");
    }
    state.counters["elements"] = static_cast<double>(kReduceN);
    state.counters["workers"] = std::thread::hardware_concurrency();
}

// (c): the run the viewer (and `warplab trace`) makes of one version at the
// lab's defaults: the emulator's run with the watched block recorded, and its analysis.
void BM_Trace(benchmark::State& state, const warplab::Lab* lab, std::string version)
{
    warplab::RunRequest req;
    req.version = version;
    req.n = lab->default_n;
    req.block = lab->default_block;
    req.type = lab->types.front();
    req.backend = warplab::BackendChoice::Cpu;
    for (auto _ : state) {
        try {
            const warplab::TracedRun run = warplab::trace_version(*lab, req);
            if (!run.result.ok) state.SetLabel("wrong result");
        } catch (const wl::emu::KernelFault&) {
            state.SetLabel("kernel fault (shown in the viewer after this time)");
        } catch (const std::exception& e) {
            state.SkipWithError(e.what());  // not an emulator run (a GPU-only version, say)
            return;
        }
    }
}

// One trace case per version of every registered lab, so that labs added later
// are timed too; GPU-only versions (the registry says why) have no trace to time.
void register_traces()
{
    for (const warplab::Lab& lab : warplab::all_labs())
        for (const auto& v : lab.versions)
            if (!v.gpu_only) benchmark::RegisterBenchmark(("BM_Trace/" + lab.id + "/" + v.id).c_str(), BM_Trace, &lab, std::string(v.id))
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime()
                ->Iterations(2);
}

BENCHMARK(BM_BareContextSwitches)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_FiberSwitches)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_ReduceV1Floats)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

// The console table, plus what the summary needs from it.
class SummaryReporter : public benchmark::ConsoleReporter {
public:
    static constexpr std::string_view kTracePrefix = "BM_Trace/";

    // Colours only on a terminal, so that captured output stays plain text.
    SummaryReporter() : ConsoleReporter(isatty(STDOUT_FILENO) ? OO_ColorTabular : OO_Tabular) {}

    void ReportRuns(const std::vector<Run>& runs) override
    {
        for (const Run& run : runs) {
            const double seconds_per_iteration = run.real_accumulated_time / static_cast<double>(run.iterations);
            const std::string name = run.benchmark_name();
            if (name.rfind("BM_FiberSwitches", 0) == 0) {
                g_measured.switches_per_second = 2.0 * kSyncsPerThread * kBlockThreads / seconds_per_iteration;
            } else if (name.rfind("BM_ReduceV1Floats", 0) == 0) {
                g_measured.reduce_seconds = seconds_per_iteration;
            } else if (const std::string& f = run.run_name.function_name; f.rfind(kTracePrefix, 0) == 0 && !run.error_occurred) {
                g_measured.trace_seconds[f.substr(kTracePrefix.size())] = seconds_per_iteration;
            }
        }
        ConsoleReporter::ReportRuns(runs);
    }
};

const char* verdict(bool ran, bool met) { return !ran ? "not run" : met ? "MET" : "NOT MET"; }

void print_summary()
{
    const Measured& m = g_measured;
    std::printf("\nSummary (%u hardware threads):\n", std::thread::hardware_concurrency());
    std::printf("  (a) fiber switches, one core  : %6.1f million/s   demand >= %.0f million/s   %s\n",
                m.switches_per_second / 1e6, kSwitchDemand / 1e6,
                verdict(m.switches_per_second > 0, m.switches_per_second >= kSwitchDemand));
    std::printf("  (b) v1, 2^22 floats, all cores: %6.3f s           demand <= %.1f s           %s\n",
                m.reduce_seconds, kReduceDemandSeconds,
                verdict(m.reduce_seconds > 0, m.reduce_seconds <= kReduceDemandSeconds));
    std::vector<std::string> slow;
    double slowest = 0;
    for (const auto& [trace, seconds] : m.trace_seconds) {
        if (seconds > kTraceDemandSeconds) slow.push_back(trace);
        slowest = std::max(slowest, seconds);
    }
    std::printf("  (c) viewer traces at defaults : %6.3f s slowest   demand <= %.0f s each         %s\n", slowest,
                kTraceDemandSeconds, verdict(!m.trace_seconds.empty(), slow.empty()));
    for (const std::string& trace : slow)
        std::printf("      over %.0f s: %s (%.3f s)\n", kTraceDemandSeconds, trace.c_str(), m.trace_seconds.at(trace));
}

}  // namespace

int main(int argc, char** argv)
{
    benchmark::Initialize(&argc, argv);
    register_traces();
    warplab::bench::register_workloads();
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    SummaryReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    print_summary();
    warplab::bench::print_workload_summary();
    return 0;
}
