// Every registered reduction version gives the right sum on the emulator, for
// odd and even sizes, both element types, several block sizes and both lane
// schedules. The version list comes from the lab registry, never from here.
//
// Tolerance: the lab's own sum_matches (labs/reduction/problem.h), the one the
// CLI and the grader apply. int: exact (wrap-around addition is associative,
// so any order gives the CPU's sum). float: |got - exact| <= 1e-4 * sum + 1e-6.
// A tree of depth d in float errs by at most d * 2^-24 * sum|x| (pairwise
// summation; inputs are in [0, 1), so sum|x| = sum); v1-v3 over n <= 2^20 have
// d <= 30 (log2 n levels plus padding), about 2e-6 * sum, well inside 1e-4 * sum,
// which the lab keeps for the grid-stride versions whose threads add thousands
// of elements in sequence. A dropped or doubled element is caught exactly by
// the int runs of the same kernel template, and in float for n <= 1000, where
// one element (0.5 on average) exceeds 1e-4 * sum (< 0.05).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "emulator/helpers.h"
#include "labs/common/make_lab.h"
#include "labs/reduction/driver.h"
#include "labs/reduction/run.h"
#include "warplab/ptx/ptx.h"

namespace warplab::test {
namespace {

struct Case {
    std::string version;
    std::size_t n;
    unsigned block;
    std::string type;
    Schedule schedule;
};

// A gtest name: letters, digits and '_' only ("v5-racy" -> "v5_racy").
std::string case_name(const Case& c)
{
    std::string name = c.version + "_" + c.type + "_n" + std::to_string(c.n) + "_b" + std::to_string(c.block) + "_" +
                       schedule_name(c.schedule);
    for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return name;
}

constexpr std::size_t kSmallSizes[] = {1, 31, 32, 33, 255, 256, 257, 1000};
constexpr std::size_t kLargeSizes[] = {(1u << 16) + 3, 1u << 20};
constexpr unsigned kOtherBlocks[] = {32, 64, 1024};
constexpr std::size_t kOtherBlockSizes[] = {1000, (1u << 16) + 3};
const char* const kTypes[] = {"int", "float"};

// Both schedules where a run is cheap; Independent (the GPU's model) for the
// large. A variant (a form kept to show a hazard, such as a warp tail that
// races under Independent) must be right where its assumption holds: Lockstep.
// Its hazard is the subject of test_faults.cpp.
std::vector<Schedule> schedules_for(const VersionMeta& v, std::size_t n)
{
    if (v.variant) return {Schedule::Lockstep};
    if (n <= 1000) return {Schedule::Independent, Schedule::Lockstep};
    return {Schedule::Independent};
}

template <class V> void add_cases(std::vector<Case>& out, std::size_t n, unsigned block)
{
    if (block < V::min_block) return;  // the version refuses such a block by design
    for (const char* type : kTypes)
        for (Schedule s : schedules_for(V::meta, n)) out.push_back(Case{V::meta.id, n, block, type, s});
}

std::vector<Case> all_cases()
{
    std::vector<Case> cases;
    for_each_version<reduction::Versions>([&](auto v) {
        using V = decltype(v);
        for (std::size_t n : kSmallSizes) add_cases<V>(cases, n, 256);
        for (std::size_t n : kLargeSizes) add_cases<V>(cases, n, 256);
        for (unsigned block : kOtherBlocks)
            for (std::size_t n : kOtherBlockSizes) add_cases<V>(cases, n, block);
        return false;
    });
    return cases;
}

void PrintTo(const Case& c, std::ostream* os) { *os << case_name(c); }

class ReductionCorrect : public ::testing::TestWithParam<Case> {};

TEST_P(ReductionCorrect, SumMatchesTheCpuReference)
{
    const Case& c = GetParam();
    // Seed depends on n so that sizes do not share a prefix of the same data.
    const RunRequest req = emulator_request(c.version, c.n, c.block, c.type, c.schedule, 1000 + c.n);
    const RunResult r = run_on_emulator<reduction::Description>(req);
    // The expected value is the CPU reference over the same seeded input
    // (reference_sum): exact for int, a double sum for float.
    if (c.type == "int") {
        EXPECT_EQ(r.value, r.expected);
    } else {
        EXPECT_NEAR(r.value, r.expected, 1e-4 * std::fabs(r.expected) + 1e-6);
    }
    EXPECT_TRUE(r.ok) << "the lab's own check (sum_matches) disagrees";
}

INSTANTIATE_TEST_SUITE_P(Registry, ReductionCorrect, ::testing::ValuesIn(all_cases()),
                         [](const auto& info) { return case_name(info.param); });

TEST(ReductionRegistry, HasVersions)
{
    // Guards against an empty registry making the suite above vacuous.
    EXPECT_GE(reduction_lab().versions.size(), 3u);
}

// The lab's PTX holds every kernel the registry can launch, under the name
// the runner looks up, and nothing else. Expected count, by hand: v1-v4 take
// blocks 32..1024 (6 sizes), v5, v5-racy and v6-v10 64..1024 (5 sizes), each
// for int and float: 4*6*2 + 7*5*2 = 48 + 70 = 118 entries.
TEST(ReductionPtx, HoldsEveryInstanceTheRegistryLaunches)
{
    const wl::ptx::Module& module = lab_module<reduction::Description>();
    unsigned found = 0;
    for_each_version<reduction::Versions>([&](auto v) {
        using V = decltype(v);
        reduction::for_each_block_size([&]<unsigned B>() {
            if constexpr (B >= V::min_block) {
                for (const std::string name : {entry_name(reduction::kKernels, reduction::Kernel<V, B, int>{}),
                                               entry_name(reduction::kKernels, reduction::Kernel<V, B, float>{})}) {
                    EXPECT_NE(module.find(name), nullptr) << name;
                    ++found;
                }
            }
        });
        return false;
    });
    EXPECT_EQ(found, 118u);
    EXPECT_EQ(module.kernels().size(), 118u);
    // The name form is checked, not assumed: a block size no version takes is absent.
    EXPECT_EQ(module.find("warplab::reduction::reduce_interleaved_divergent<48u, int>"), nullptr);
    EXPECT_NE(module.find("warplab::reduction::reduce_interleaved_divergent<32u, int>"), nullptr);
}

// No reduction version is GPU-only: v10's bulk copies and mbarriers run on
// the emulator too (test_bulk_copy.cpp tests them alone), so the suite above
// covers every version.
TEST(ReductionRegistry, EveryVersionRunsOnTheEmulator)
{
    for (const VersionMeta& v : reduction_lab().versions) EXPECT_EQ(v.gpu_only, nullptr) << v.id;
    const std::vector<Case> cases = all_cases();
    EXPECT_TRUE(std::any_of(cases.begin(), cases.end(), [](const Case& c) { return c.version == "v10"; }));
}

// v10 with more pieces than its ring has slots, so that blocks refill slots
// (the sizes above give each block at most one 32 KB piece). 793 pieces of
// 8192 ints over 132 blocks: block 0 takes pieces 0, 132, ..., 792, seven of
// them, one more than the six slots; plus 3 elements after the last piece.
TEST(ReductionV10, BlocksRefillTheirRingSlots)
{
    const std::size_t n = 793 * 8192 + 3;
    const RunRequest req = emulator_request("v10", n, 256, "int", Schedule::Independent, 7);
    const RunResult r = run_on_emulator<reduction::Description>(req);
    EXPECT_EQ(r.value, r.expected);
    EXPECT_TRUE(r.ok);
}

}  // namespace
}  // namespace warplab::test
