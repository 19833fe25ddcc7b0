// The transfers lab on this machine's GPUs: every version's y is right at an
// odd size, and every timed row's timeline is ordered and nests within its
// run; versions this machine cannot run are named in the table's note.
#include <gtest/gtest.h>

#include <algorithm>

#include "labs/common/lab.h"
#include "labs/transfers/lab.h"
#include "labs/transfers/timeline.h"

namespace warplab::transfers {
namespace {

#define REQUIRE_GPU()                                                        \
    const GpuStatus gpu = gpu_status();                                      \
    if (!gpu.available) GTEST_SKIP() << "no GPU: " << gpu.reason

// 2^20 + 3 floats: odd, so the last chunk and GPU 1's half are shorter.
constexpr std::size_t kOdd = (std::size_t(1) << 20) + 3;

TEST(GpuTransfers, EveryVersionComputesY)
{
    REQUIRE_GPU();
    const Lab& lab = *find_lab("transfers");
    for (const Version& v : lab.versions) {
        RunRequest req;
        req.version = v.id, req.n = kOdd, req.type = "float", req.seed = 7;
        try {
            const RunResult r = lab.run(req);
            EXPECT_TRUE(r.ok) << v.id << ": " << r.check;
        } catch (const std::invalid_argument& e) {
            // Only a multi-GPU version on one GPU, or v7 without NCCL, may refuse.
            const std::string what = e.what();
            EXPECT_TRUE(what.find("needs 2 GPUs, this machine has 1") != std::string::npos || what.find("NCCL") != std::string::npos)
                << v.id << ": " << what;
        }
    }
}

TEST(GpuTransfers, TimelinesAreOrderedAndNested)
{
    REQUIRE_GPU();
    BenchOptions o;
    o.n = kOdd;
    o.type = "float";
    o.seconds_per_version = 0.05;
    o.command = "test";
    const BenchTable t = find_lab("transfers")->bench(o);
    ASSERT_GE(t.rows.size(), 6u);  // v1, v2, v3 × 3, v4 at least
    ASSERT_EQ(t.timelines.size(), t.rows.size());
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
        const BenchRow& r = t.rows[i];
        EXPECT_TRUE(r.ok) << r.version;
        EXPECT_GT(r.bound_ms, 0) << r.version;
        EXPECT_EQ(t.timelines[i].version, r.version);
        EXPECT_FALSE(t.timelines[i].spans.empty()) << r.version;
        // 0.05 ms: the host's clock and the GPU's are read separately.
        EXPECT_EQ(timeline_problem(t.timelines[i], 0.05), "") << r.version;
    }
    // Each version has a row (v3 one per stream count), or the note says why it was skipped.
    for (const Version& v : find_lab("transfers")->versions) {
        const bool timed = std::any_of(t.rows.begin(), t.rows.end(), [&](const BenchRow& r) {
            return r.version == v.id || r.version.rfind(std::string(v.id) + " ", 0) == 0;
        });
        const bool skipped = t.note.find("skipped " + std::string(v.id) + " (") != std::string::npos;
        EXPECT_TRUE(timed != skipped) << v.id << ": " << t.note;
    }
}

}  // namespace
}  // namespace warplab::transfers
