// Equality is the fast engine's contract: every lab version of the registry,
// run on the interpreter and on the fast engine (LaunchOptions::engine), gives
// the same result bit for bit, the same check, warnings, grids of partial sums
// and watched block's records, and the same fault word for word; and the same
// count of lane-instructions, which the fast engine keeps as the interpreter does.
// Each version runs three times: on the interpreter with block 0 watched, on
// the fast engine with it watched (the interpreter runs it, the fast engine
// the others) and on the fast engine with none watched (it runs every block).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "labs/common/lab.h"
#include "warplab/emu/emulator.h"
#include "warplab/ptx/ptx.h"

namespace warplab {
namespace {

using wl::emu::Engine;

// What a run leaves that the engine could change.
struct Outcome {
    std::uint64_t value_bits = 0, expected_bits = 0;
    bool ok = false;
    std::string check, path, fault;
    std::vector<std::string> warnings;
    std::vector<std::vector<std::uint32_t>> grids;  // each pass grid's values as bits
    std::vector<wl::trace::LaneRecord> records;
    std::uint64_t lane_instructions = 0;
    std::string engine;  // what ran the unwatched blocks, as the trace says
};

std::uint64_t bits_of(double d)
{
    std::uint64_t b;
    std::memcpy(&b, &d, 8);
    return b;
}

Outcome run(const Lab& lab, const Version& v, Engine engine, bool record, std::uint64_t seed = 1)
{
    RunRequest req;
    req.version = v.id;
    req.n = default_n(lab, v);
    req.block = v.bench_block;
    req.type = lab.types.front();
    req.backend = BackendChoice::Cpu;
    req.engine = engine;
    req.record = record;
    req.seed = seed;
    Outcome o;
    const std::uint64_t before = wl::emu::lane_instructions_run();
    try {
        RunResult r = lab.run(req);
        o.value_bits = bits_of(r.value);
        o.expected_bits = bits_of(r.expected);
        o.ok = r.ok;
        o.check = r.check;
        o.path = r.path;
        o.engine = r.engine;
        o.warnings = r.warnings;
        for (const PassGrid& g : r.pass_grids) {
            std::vector<std::uint32_t>& bits = o.grids.emplace_back(g.values.size());
            std::memcpy(bits.data(), g.values.data(), g.values.size() * 4);
        }
        o.records = std::move(r.records);
    } catch (const std::exception& e) {
        o.fault = e.what();
    }
    o.lane_instructions = wl::emu::lane_instructions_run() - before;
    return o;
}

bool same_records(const std::vector<wl::trace::LaneRecord>& a, const std::vector<wl::trace::LaneRecord>& b)
{
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof a[0]) == 0);
}

// Empty when equal; else what differs, for the failure's message.
std::string differences(const Outcome& a, const Outcome& b, bool records)
{
    std::string d;
    if (a.fault != b.fault) d += "fault: '" + a.fault + "' vs '" + b.fault + "'; ";
    if (a.value_bits != b.value_bits || a.expected_bits != b.expected_bits) d += "value or expected bits; ";
    if (a.ok != b.ok || a.check != b.check || a.path != b.path) d += "check: '" + a.check + "' vs '" + b.check + "'; ";
    if (a.warnings != b.warnings) d += "warnings; ";
    if (a.grids != b.grids) d += "pass grids; ";
    // A fault stops a launch where its host threads stand, which the machine's timing moves: counted where none.
    if (a.fault.empty() && b.fault.empty() && a.lane_instructions != b.lane_instructions)
        d += "lane-instructions " + std::to_string(a.lane_instructions) + " vs " + std::to_string(b.lane_instructions) + "; ";
    if (records && !same_records(a.records, b.records)) d += "watched block's records; ";
    return d;
}

std::vector<std::string> lab_ids()
{
    std::vector<std::string> ids;
    for (const Lab& lab : all_labs()) ids.push_back(lab.id);
    return ids;
}

// The versions of `lab` that `pick` takes, each on both engines.
template <class Pick> void compare_versions(const Lab& lab, Pick pick)
{
    if (wl::ptx::engine_for(Engine::Fast) != Engine::Fast) GTEST_SKIP() << "no host compiler for the fast engine";
    unsigned compared = 0;
    for (std::size_t i = 0; i < lab.versions.size(); ++i) {
        const Version& v = lab.versions[i];
        if (v.gpu_only || !pick(i, v)) continue;
        const Outcome interpreted = run(lab, v, Engine::Interpret, true);
        const std::uint64_t taken_before = wl::ptx::compiled_launches() + wl::ptx::declined_launches();
        const Outcome watched = run(lab, v, Engine::Fast, true);
        const Outcome unwatched = run(lab, v, Engine::Fast, false);
        // A kernel the engine failed to compile counts as neither.
        EXPECT_GT(wl::ptx::compiled_launches() + wl::ptx::declined_launches(), taken_before)
            << lab.id << " " << v.id << ": the fast engine neither ran nor declined the kernel";
        EXPECT_EQ(differences(interpreted, watched, true), "") << lab.id << " " << v.id << ", block 0 watched";
        EXPECT_EQ(differences(interpreted, unwatched, false), "") << lab.id << " " << v.id << ", no block watched";
        ++compared;
    }
    if (compared == 0) GTEST_SKIP() << lab.id << " has no version the emulator runs";
}

// The versions the emulator bench measures at real sizes (bench/emulator/workloads.cpp).
bool benched(const Lab& lab, const Version& v)
{
    const std::string id = lab.id + " " + v.id;
    return id == "matmul v1" || id == "matmul v9" || id == "reduction v8" || id == "transpose v2" || id == "image v1";
}

class Engines : public testing::TestWithParam<std::string> {};

// CI's share (compiling every version's kernels takes minutes of a CI's two
// cores): each lab's first version, its marked variants (the wrong kernels,
// whose faults must match word for word) and the versions the bench measures.
TEST_P(Engines, FirstVariantsAndBenchedVersionsGiveTheInterpretersResultsAndFaults)
{
    const Lab& lab = *find_lab(GetParam());
    compare_versions(lab, [&](std::size_t i, const Version& v) { return i == 0 || v.variant || benched(lab, v); });
}

// Every version, by hand: warplab_engine_tests --gtest_also_run_disabled_tests --gtest_filter='*EveryVersion*'.
TEST_P(Engines, DISABLED_EveryVersionGivesTheInterpretersResultsAndFaults)
{
    compare_versions(*find_lab(GetParam()), [](std::size_t, const Version&) { return true; });
}

// matmul v9's kernel (about 12,000 instructions, its loop over K unrolled) is
// past the length the engine compiles: asked for, it leaves the kernel to the
// interpreter, says so in its count, compiles nothing, and the run is the interpreter's.
TEST(Engines, KernelPastTheCompiledLengthRunsOnTheInterpreter)
{
    if (wl::ptx::engine_for(Engine::Fast) != Engine::Fast) GTEST_SKIP() << "no host compiler for the fast engine";
    const Lab& lab = *find_lab("matmul");
    const Version& v = *find_version(lab, "v9");
    const Outcome interpreted = run(lab, v, Engine::Interpret, false);
    const std::uint64_t compiled = wl::ptx::compiled_launches(), declined = wl::ptx::declined_launches();
    const Outcome fast = run(lab, v, Engine::Fast, false);
    EXPECT_EQ(wl::ptx::compiled_launches(), compiled);
    EXPECT_GT(wl::ptx::declined_launches(), declined);
    EXPECT_EQ(differences(interpreted, fast, false), "");
    EXPECT_TRUE(fast.ok) << fast.check << fast.fault;
    // The trace names the interpreter, which ran it, not the engine asked for.
    EXPECT_EQ(fast.engine, "interpret");
    EXPECT_EQ(interpreted.engine, "interpret");
}

// reduction v1's one kernel compiles: asked for, the fast engine runs it, and the trace says so.
TEST(Engines, TraceNamesTheFastEngineWhereItRan)
{
    if (wl::ptx::engine_for(Engine::Fast) != Engine::Fast) GTEST_SKIP() << "no host compiler for the fast engine";
    const Lab& lab = *find_lab("reduction");
    EXPECT_EQ(run(lab, *find_version(lab, "v1"), Engine::Fast, false).engine, "fast");
    EXPECT_EQ(run(lab, *find_version(lab, "v1"), Engine::Interpret, false).engine, "interpret");
}

// A kernel that moves a __device__ variable's address, which lowering keeps
// beside the instruction (a different one in each module, as in each process).
constexpr const char kAddressPtx[] = R"ptx(
.version 8.0
.target sm_80
.address_size 64

.global .align 4 .u32 total;

.visible .entry count_in()
{
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<2>;

	mov.u64 	%rd1, total;
	mov.u32 	%r1, 1;
	st.global.u32 	[%rd1], %r1;
	ret;
}
)ptx";

std::size_t shared_objects_in(const std::filesystem::path& dir)
{
    std::size_t count = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) count += entry.path().extension() == ".so";
    return count;
}

// Its compiled code is the same in every process, so that the cache serves a
// second run: two modules of the same text (a comment after it, so that the
// process's own table of loaded kernels takes it for another) make one shared object.
TEST(Engines, AVariablesAddressLeavesTheCompiledCodeTheSame)
{
    if (wl::ptx::engine_for(Engine::Fast) != Engine::Fast) GTEST_SKIP() << "no host compiler for the fast engine";
    const std::filesystem::path cache = std::filesystem::temp_directory_path() / ("warplab-engine-cache-" + std::to_string(::getpid()));
    ::setenv("WARPLAB_PTX_CACHE", cache.c_str(), 1);
    const wl::ptx::Module first = wl::ptx::Module::parse(kAddressPtx, "address.ptx");
    const wl::ptx::Module second = wl::ptx::Module::parse(std::string(kAddressPtx) + "// the same kernel\n", "address.ptx");
    wl::emu::Emulator emu;
    emu.options.engine = Engine::Fast;
    emu.options.record = false;
    const std::uint64_t compiled = wl::ptx::compiled_launches();
    wl::ptx::launch(emu, first, "count_in", dim3(1), dim3(1), 0);  // one thread: no two stores race
    wl::ptx::launch(emu, second, "count_in", dim3(1), dim3(1), 0);
    ::unsetenv("WARPLAB_PTX_CACHE");
    EXPECT_EQ(wl::ptx::compiled_launches(), compiled + 2);
    EXPECT_EQ(shared_objects_in(cache / "fast"), 1u);
    std::filesystem::remove_all(cache);
}

// The emulator counts each launch on the engine that ran it: the fast engine
// under the independent schedule, the interpreter under lockstep (the fast
// engine compiles only independent passes) though the fast one is asked for.
// One of each: "fast and interpret".
TEST(Engines, EachLaunchCountsOnTheEngineThatRanIt)
{
    if (wl::ptx::engine_for(Engine::Fast) != Engine::Fast) GTEST_SKIP() << "no host compiler for the fast engine";
    const wl::ptx::Module m = wl::ptx::Module::parse(kAddressPtx, "address.ptx");
    wl::emu::Emulator emu;
    emu.options.engine = Engine::Fast;
    emu.options.record = false;
    wl::ptx::launch(emu, m, "count_in", dim3(1), dim3(1), 0);
    EXPECT_EQ(emu.launches_on(Engine::Fast), 1u);
    EXPECT_EQ(emu.launches_on(Engine::Interpret), 0u);
    emu.options.schedule = wl::emu::Schedule::Lockstep;
    wl::ptx::launch(emu, m, "count_in", dim3(1), dim3(1), 0);
    EXPECT_EQ(emu.launches_on(Engine::Fast), 1u);
    EXPECT_EQ(emu.launches_on(Engine::Interpret), 1u);
    EXPECT_EQ(wl::emu::engines_that_ran(emu.launches_on(Engine::Fast), emu.launches_on(Engine::Interpret)), "fast and interpret");
    EXPECT_EQ(wl::emu::engines_that_ran(0, 0), "");
}

INSTANTIATE_TEST_SUITE_P(Registry, Engines, testing::ValuesIn(lab_ids()),
                         [](const testing::TestParamInfo<std::string>& p) { return p.param; });

// The comparison sees a difference where there is one: another seed's input
// gives another sum (and the same count of instructions: the work is the same).
TEST(Engines, ComparisonSeesAnotherInputsResult)
{
    const Lab& lab = *find_lab("reduction");
    const Version& v = lab.versions.front();
    const std::string d = differences(run(lab, v, Engine::Interpret, false, 1), run(lab, v, Engine::Interpret, false, 2), false);
    EXPECT_NE(d.find("value or expected bits"), std::string::npos) << d;
    EXPECT_EQ(d.find("lane-instructions"), std::string::npos) << d;
}

}  // namespace
}  // namespace warplab
