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
#include "labs/common/emulator_backend.h"
#include "labs/common/make_lab.h"
#include "labs/reduction/driver.h"
#include "labs/reduction/problem.h"
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

// v10's launch shape by size (versions.h): the ring only where every SM gets
// at least 32 pieces of 32 KB (8192 ints). By hand, on 132 SMs the threshold
// is 32 * 132 = 4224 pieces = 34,603,008 ints:
//   2^20 ints = 128 pieces: no ring; one round of four int4 a thread,
//     2^18 / (4 * 1024) = 64 blocks (v9 at 2^20: 2^18 / 1024 = 256).
//   2^24 ints = 2048 pieces: no ring; one wave, min(2^22 / (4 * 1024), 2 * 132) = 264.
//   2^28 ints = 32768 pieces: the ring, 6 * 32 KB = 196,608 bytes; 132 blocks.
//   34,603,008 ints: the ring; one int fewer (4223 whole pieces): none.
TEST(ReductionV10, ChoosesItsRingBySize)
{
    using reduction::V10;
    EXPECT_FALSE(V10::ring(std::size_t(1) << 20, 132));
    EXPECT_EQ(V10::blocks(std::size_t(1) << 20, 1024, 132), 64u);
    EXPECT_EQ(reduction::V9::blocks(std::size_t(1) << 20, 1024, 132), 256u);
    EXPECT_FALSE(V10::ring(std::size_t(1) << 24, 132));
    EXPECT_EQ(V10::blocks(std::size_t(1) << 24, 1024, 132), 264u);
    EXPECT_EQ(reduction::dynamic_shared<V10>(std::size_t(1) << 24, 132), 0u);
    EXPECT_TRUE(V10::ring(std::size_t(1) << 28, 132));
    EXPECT_EQ(V10::blocks(std::size_t(1) << 28, 1024, 132), 132u);
    EXPECT_EQ(reduction::dynamic_shared<V10>(std::size_t(1) << 28, 132), 196608u);
    EXPECT_TRUE(V10::ring(34603008, 132));
    EXPECT_FALSE(V10::ring(34603007, 132));
    // One SM needs 32 pieces: 262,144 ints.
    EXPECT_TRUE(V10::ring(262144, 1));
    EXPECT_FALSE(V10::ring(262143, 1));
}

// v10 on an emulator that reports `sms` SMs, so that a few hundred thousand
// elements take the ring (the lab's 132 would need 34 million).
int v10_sum_on(unsigned sms, const std::vector<int>& input, unsigned block)
{
    Emulator emu;
    emu.options.record = false;
    EmulatorBackend be{emu, lab_module<reduction::Description>(), reduction::kKernels, sms};
    const int* d_in = to_device(emu, input);
    return reduction::reduce_on<reduction::V10>(be, d_in, input.size(), block);
}

// The ring with more pieces than it has slots, so that blocks refill slots:
// 2 SMs, 70 pieces of 8192 ints (70 >= 32 * 2: the ring) and 3 elements
// after them. Block 0 takes pieces 0, 2, ..., 68 and block 1 pieces 1, ...,
// 69: 35 each, nearly six rounds of the six slots. The sum must equal the
// reference; a ring that skipped a refill, or read a slot before it landed,
// would not (the emulator also stops a read before the wait as a fault).
TEST(ReductionV10, BlocksRefillTheirRingSlots)
{
    const std::vector<int> input = reduction::make_input<int>(70 * 8192 + 3, 7);
    ASSERT_TRUE(reduction::V10::ring(input.size(), 2));
    EXPECT_EQ(v10_sum_on(2, input, 256), reduction::reference_sum(input));
}

}  // namespace
}  // namespace warplab::test
