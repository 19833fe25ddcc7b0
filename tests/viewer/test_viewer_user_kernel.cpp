// --file in the viewer: the user's kernel is one more version of its lab (the
// last), launched as the version that was selected, traced from the user's
// file; a file nvcc cannot compile gives a trace slot with nvcc's message,
// not a crash. Needs nvcc (skips, saying so, without it).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "viewer/app/app.h"
#include "viewer/panels/panels.h"
#include "viewer/model/source_model.h"
#include "warplab/ptx/ptx.h"

namespace warplab::viewer {
namespace {

namespace fs = std::filesystem;

std::string tree_sum_file() { return data_dir().string() + "/tests/cli/kernels/tree_sum.cu"; }

#define REQUIRE_NVCC()                                                              \
    do {                                                                            \
        if (wl::ptx::find_nvcc().empty()) GTEST_SKIP() << "needs nvcc for --file";  \
    } while (0)

void on_emulator(App& app)
{
    Selection s = app.sel;
    s.backend = BackendChoice::Cpu;
    select_settings(app, s);
}

// tree_sum launched as reduction v3 (n = 4096, block 256): block 0 loads (step
// 0), halves 8 times (steps 1-8) and thread 0 writes the sum (step 9); its
// memory accesses are on tree_sum.cu's lines 9, 12 and 15, not on v3's file.
TEST(ViewerUserKernel, OneMoreVersionTracedFromTheFile)
{
    REQUIRE_NVCC();
    App app;
    select_by_name(app, "reduction", "v3");
    on_emulator(app);
    const std::size_t lab_versions = current_lab(app).versions.size();
    add_user_kernel(app, tree_sum_file(), "tree_sum");
    ASSERT_EQ(current_lab(app).versions.size(), lab_versions + 1);
    EXPECT_EQ(app.sel.version, lab_versions);
    EXPECT_STREQ(current_version(app).id, kUserVersionId);
    EXPECT_TRUE(current_version(app).variant);
    const TraceSlot& slot = current_trace(app);
    ASSERT_TRUE(slot.run) << slot.error;
    EXPECT_TRUE(slot.run->result.ok);
    EXPECT_EQ(step_count(app), 10u);
    std::set<std::uint32_t> lines;
    for (const auto& e : slot.run->block.events)
        if (e.space != wl::trace::Space::None) lines.insert(e.site.line);  // memory accesses, not barriers
    EXPECT_EQ(lines, (std::set<std::uint32_t>{9, 12, 15}));
    // The source panel reads the user's file under the name the trace gives it.
    const SourceFile& source = app.sources.get(std::string(current_version(app).file));
    ASSERT_TRUE(source.found) << source.path;
    EXPECT_NE(source.lines.at(11).find("partial[t] += partial[t + half]"), std::string::npos);
    EXPECT_EQ(source.hash, slot.run->block.events.front().site.file_hash);
    // It is compared with the version it stands in for (v3), not with the
    // lab's last version, which comes just before it in the list.
    const auto compared = compared_version(app);
    ASSERT_TRUE(compared.has_value());
    EXPECT_STREQ(current_lab(app).versions[*compared].id, "v3");
    // The lab's own versions still run the lab's kernels.
    select_version(app, *compared);
    ASSERT_TRUE(current_trace(app).run);
    EXPECT_NE(current_trace(app).run->block.events.front().site.file_hash, source.hash);
}

// Harris's kernel 3 as he writes it, over `extern __shared__ int sdata[]`:
// the viewer's run gives it what his host code gives (256 threads × 4 bytes),
// and the same steps as tree_sum (load, 8 halvings, the write). With
// --shared-bytes 512 the store of thread 128 to sdata[128] is past the 512
// bytes: a fault in the window, not a crash.
TEST(ViewerUserKernel, ExternSharedGetsTheTextbooksBytes)
{
    REQUIRE_NVCC();
    const std::string harris = data_dir().string() + "/tests/cli/kernels/harris_style.cu";
    App app;
    select_by_name(app, "reduction", "v3");
    on_emulator(app);
    add_user_kernel(app, harris, "reduce_halves");
    const TraceSlot& slot = current_trace(app);
    ASSERT_TRUE(slot.run) << slot.error;
    EXPECT_TRUE(slot.run->result.ok);
    EXPECT_NE(slot.run->result.user_kernel.find("1024 bytes per block for extern sdata[]"), std::string::npos)
        << slot.run->result.user_kernel;
    EXPECT_EQ(step_count(app), 10u);

    App too_small;
    select_by_name(too_small, "reduction", "v3");
    on_emulator(too_small);
    add_user_kernel(too_small, harris, "reduce_halves", 512);
    EXPECT_FALSE(current_trace(too_small).run);
    EXPECT_NE(current_trace(too_small).error.find("out-of-bounds shared store"), std::string::npos) << current_trace(too_small).error;
}

TEST(ViewerUserKernel, CompileErrorIsAMessageNamingTheFile)
{
    REQUIRE_NVCC();
    const fs::path broken = fs::temp_directory_path() / "warplab_viewer_broken_kernel.cu";
    std::ofstream(broken) << "__global__ void broken(const int* in, int* out, unsigned n) { out[0] = in[0] +; }\n";
    App app;
    select_by_name(app, "reduction", "v1");
    on_emulator(app);
    add_user_kernel(app, broken.string(), "broken");
    const TraceSlot& slot = current_trace(app);
    EXPECT_FALSE(slot.run);
    EXPECT_NE(slot.error.find("nvcc could not compile"), std::string::npos) << slot.error;
    EXPECT_NE(slot.error.find("warplab_viewer_broken_kernel.cu"), std::string::npos) << slot.error;
    EXPECT_EQ(step_count(app), 0u);
    fs::remove(broken);
}

// nvcc's warnings reach the window: countdown_sum.cu's checked_sum is right,
// and nvcc warns twice about the file (line 12's unsigned s >= 0 in
// countdown_sum, line 25's i >= 0 here: one compile of the file). The status
// line lists both first ("warnings (2): nvcc: ...(12)..."), and the source
// panel's file has both lines marked. tree_sum draws no warning: no line.
TEST(ViewerUserKernel, NvccWarningsInTheWindow)
{
    REQUIRE_NVCC();
    App app;
    select_by_name(app, "reduction", "v3");
    on_emulator(app);
    add_user_kernel(app, data_dir().string() + "/tests/cli/kernels/countdown_sum.cu", "checked_sum");
    const TraceSlot& slot = current_trace(app);
    ASSERT_TRUE(slot.run) << slot.error;
    EXPECT_TRUE(slot.run->result.ok);
    const std::string status = warning_text(app);
    EXPECT_EQ(status.rfind("warnings (2): nvcc: ", 0), 0u) << status;
    EXPECT_NE(status.find("countdown_sum.cu(12): warning #186-D"), std::string::npos) << status;
    const auto lines = warned_lines(slot.run->result.compile_warnings, current_version(app).file);
    EXPECT_EQ(lines.size(), 2u) << slot.run->result.compile_warnings;
    EXPECT_TRUE(lines.count(12) && lines.count(25));

    App quiet;
    select_by_name(quiet, "reduction", "v3");
    on_emulator(quiet);
    add_user_kernel(quiet, tree_sum_file(), "tree_sum");
    ASSERT_TRUE(current_trace(quiet).run) << current_trace(quiet).error;
    EXPECT_EQ(current_trace(quiet).run->result.compile_warnings, "");
    EXPECT_EQ(warning_text(quiet), "");
}

}  // namespace
}  // namespace warplab::viewer
