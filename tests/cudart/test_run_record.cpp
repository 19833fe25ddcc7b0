// `warplab run`'s watch specifications and launch records (warplab/cudart/run_record.h).
#include <gtest/gtest.h>

#include "warplab/cudart/run_record.h"

namespace {

using wl::cudart::parse_watch;

TEST(RunRecord, WatchSpecifications)
{
    const auto specs = parse_watch("vadd,ns::scale<3>:2@5,reduce@7");
    ASSERT_EQ(specs.size(), 3u);
    EXPECT_EQ(specs[0].kernel, "vadd");
    EXPECT_EQ(specs[0].launch, 1u);
    EXPECT_EQ(specs[0].block, 0u);
    EXPECT_EQ(specs[1].kernel, "ns::scale<3>");  // "::" is part of the name, the last ':' the launch's
    EXPECT_EQ(specs[1].launch, 2u);
    EXPECT_EQ(specs[1].block, 5u);
    EXPECT_EQ(specs[2].kernel, "reduce");
    EXPECT_EQ(specs[2].block, 7u);
    for (const char* bad : {"vadd:x", "vadd:0", "@3", "vadd@", "vadd:2@-1"})
        EXPECT_THROW(parse_watch(bad), std::invalid_argument) << bad;
}

// --fail: the call and its count; each bad form refused with a line naming it.
TEST(RunRecord, InjectedFailures)
{
    using wl::cudart::InjectedFailure;
    using wl::cudart::parse_injected_failure;
    EXPECT_EQ(parse_injected_failure("launch:2").call, InjectedFailure::Call::Launch);
    EXPECT_EQ(parse_injected_failure("launch:2").nth, 2u);
    EXPECT_EQ(parse_injected_failure("alloc:1").call, InjectedFailure::Call::Allocation);
    EXPECT_EQ(parse_injected_failure("alloc:17").nth, 17u);
    for (const char* bad : {"launch", "alloc", "launch:0", "launch:", "malloc:1", "launch:2x", ":3", ""}) {
        try {
            parse_injected_failure(bad);
            ADD_FAILURE() << "'" << bad << "' was read";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("--fail '" + std::string(bad) + "'"), std::string::npos) << e.what();
        }
    }
}

TEST(RunRecord, KernelNames)
{
    using wl::cudart::names_kernel;
    EXPECT_TRUE(names_kernel("scale", "ns::scale<3>", "_ZN2ns5scaleILi3EEEvPf"));
    EXPECT_TRUE(names_kernel("ns::scale<3>", "ns::scale<3>", "_ZN2ns5scaleILi3EEEvPf"));
    EXPECT_TRUE(names_kernel("_ZN2ns5scaleILi3EEEvPf", "ns::scale<3>", "_ZN2ns5scaleILi3EEEvPf"));
    EXPECT_FALSE(names_kernel("scal", "ns::scale<3>", "_ZN2ns5scaleILi3EEEvPf"));
    EXPECT_FALSE(names_kernel("scale<4>", "ns::scale<3>", "_ZN2ns5scaleILi3EEEvPf"));
}

TEST(RunRecord, RecordsReadBackAsWritten)
{
    wl::cudart::LaunchRecord r;
    r.index = 3, r.kernel = "vadd", r.grid[0] = 4, r.block[0] = 256, r.shared_bytes = 1024, r.emulated_ms = 1.5;
    r.lane_instructions = 5'000'000'000;  // past 32 bits
    r.error = "kernel fault: ...", r.trace = "launch-3.json", r.watched_block = 2;
    r.host_line = "/home/student/lab/prog.cu:44";
    const wl::cudart::LaunchRecord back = wl::cudart::launch_from_json(to_json(r));
    EXPECT_EQ(back.index, 3u);
    EXPECT_EQ(back.kernel, "vadd");
    EXPECT_EQ(back.grid[0], 4u);
    EXPECT_EQ(back.grid[1], 1u);
    EXPECT_EQ(back.block[0], 256u);
    EXPECT_EQ(back.shared_bytes, 1024u);
    EXPECT_EQ(back.emulated_ms, 1.5);
    EXPECT_EQ(back.lane_instructions, 5'000'000'000u);
    EXPECT_EQ(back.error, r.error);
    EXPECT_EQ(back.trace, r.trace);
    EXPECT_EQ(back.watched_block, 2u);
    EXPECT_EQ(back.host_line, r.host_line);
}

// The table shows the host line without the file's directory, "-" where the
// program had no -g; a record written before launches had lines reads as unknown.
TEST(RunRecord, HostLineShownWithoutItsDirectory)
{
    wl::cudart::LaunchRecord r;
    r.host_line = "/home/student/lab/prog.cu:44";
    EXPECT_EQ(short_host_line(r), "prog.cu:44");
    r.host_line = "prog.cu:7";
    EXPECT_EQ(short_host_line(r), "prog.cu:7");
    r.host_line.clear();
    EXPECT_EQ(short_host_line(r), "-");
    EXPECT_FALSE(to_json(r).contains("host_line"));
    const nlohmann::json old = {{"index", 1}, {"kernel", "k"}, {"grid", {1, 1, 1}}, {"block", {32, 1, 1}}, {"shared_bytes", 0}, {"emulated_ms", 0.5}};
    EXPECT_EQ(wl::cudart::launch_from_json(old).host_line, "");
}

}  // namespace
