// A trace that fills the record cap stays within bounded memory: the watched
// block's records stop at the emulator's cap (384 MiB) and its analysis at
// trace::kAnalysisBytes, so the whole traced run peaks under 1 GB (the CLI's
// bound; the viewer's is 1.5 GB). The run goes on in a child process, whose
// peak resident memory getrusage reports, and says where its trace ends.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "labs/common/traced_run.h"

namespace {

using namespace warplab;

RunRequest matmul_v5(std::vector<std::size_t> shape)
{
    RunRequest r;
    r.version = "v5";
    r.type = "float";
    r.shape = std::move(shape);
    r.backend = BackendChoice::Cpu;
    return r;
}

struct ChildRun {
    std::string output;       // what the child wrote: the product's verdict, the trace's steps, its note
    long peak_kib = 0;        // ru_maxrss: kibibytes on Linux
    int status = -1;
};

// Traces the request in a child process; the child writes
// "<ok> <steps> <note>" to a pipe.
ChildRun trace_in_child(const RunRequest& req)
{
    int fds[2];
    if (pipe(fds) != 0) return {};
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        const TracedRun run = trace_version(*find_lab("matmul"), req);
        const std::string text = std::to_string(run.result.ok) + " " + std::to_string(run.steps.size()) + " " +
                                 (run.result.records_cut ? records_cut_note(run) : "");
        const bool written = write(fds[1], text.data(), text.size()) == static_cast<ssize_t>(text.size());
        _exit(written ? 0 : 1);
    }
    close(fds[1]);
    ChildRun out;
    char buffer[4096];
    for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) out.output.append(buffer, static_cast<std::size_t>(n));
    close(fds[0]);
    rusage usage{};
    wait4(pid, &out.status, 0, &usage);
    out.peak_kib = usage.ru_maxrss;
    return out;
}

constexpr long kOneGigabyteKib = 1'000'000'000 / 1024;

// v5 at 128×128×6400 is one block of 256 threads, 6400 / 8 = 800 tiles of
// BK = 8, two barrier intervals each: 1600 steps in the whole run. Each thread
// records about 144 accesses a tile (4 + 4 global loads, 8 shared stores, 8 ×
// 16 shared loads), 256 threads about 36,900: the cap's 7.19 million records
// hold under 200 tiles, so the trace ends after a few hundred steps, whole
// ones, while the launch runs to its end and its product is right.
TEST(MatmulRecordCap, ATraceThatFillsTheCapPeaksUnderOneGigabyteAndSaysWhereItEnds)
{
    const ChildRun child = trace_in_child(matmul_v5({128, 128, 6400}));
    ASSERT_TRUE(WIFEXITED(child.status) && WEXITSTATUS(child.status) == 0) << child.output;
    EXPECT_LT(child.peak_kib, kOneGigabyteKib) << child.output;
    unsigned ok = 0, steps = 0;
    ASSERT_EQ(std::sscanf(child.output.c_str(), "%u %u", &ok, &steps), 2) << child.output;
    EXPECT_EQ(ok, 1u) << child.output;
    EXPECT_GT(steps, 100u);
    EXPECT_LT(steps, 400u);
    const std::string where = "the watched block's trace ends after step " + std::to_string(steps - 1) + ", the last whole one";
    EXPECT_NE(child.output.find(where), std::string::npos) << child.output;
    EXPECT_NE(child.output.find("memory cap (384 MiB of records, 256 MiB of events)"), std::string::npos) << child.output;
}

// The same version on a short K (64: 8 tiles, 16 steps and the stores of C)
// fills nothing: its trace is whole and says nothing of a cap.
TEST(MatmulRecordCap, AShortTraceIsWholeAndSaysNothing)
{
    const TracedRun run = trace_version(*find_lab("matmul"), matmul_v5({128, 128, 64}));
    EXPECT_TRUE(run.result.ok);
    EXPECT_FALSE(run.result.records_cut);
    EXPECT_EQ(run.block.end, wl::trace::TraceEnd::Whole);
}

}  // namespace
