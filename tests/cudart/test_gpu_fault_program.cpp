// A kernel fault on the GPU tied to its launch (`warplab run --backend gpu`,
// core/src/cudart/gpu_faults.h): tests/run/programs/gpu_fault.cu, built for
// the GPU, makes two unwatched launches; the second stores to an address 4
// GiB past its array. NVIDIA's runtime reports cudaErrorIllegalAddress at the
// program's cudaDeviceSynchronize; warplab names launch 2, the scatter, its
// grid (512 / 128 = 4 blocks) and block (128), and the line of its launch.
// Skipped, saying why, where there is no GPU (or no nvcc).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "warplab/cudart/program.h"
#include "program_output.h"
#include "warplab/ptx/ptx.h"

namespace {

namespace fs = std::filesystem;
using warplab::test::Output;
using warplab::test::run;

const std::string kSource = std::string(WARPLAB_SOURCE_DIR) + "/tests/run/programs/gpu_fault.cu";

// The line of the source that holds `marker`, from 1; 0 when none does.
unsigned line_of(const std::string& marker)
{
    std::ifstream in(kSource);
    std::string line;
    for (unsigned n = 1; std::getline(in, line); ++n)
        if (line.find(marker) != std::string::npos) return n;
    return 0;
}

TEST(GpuFaultProgram, AnUnwatchedLaunchsFaultIsNamedWithItsLaunch)
{
    const fs::path cache = fs::temp_directory_path() / ("warplab-gpu-fault-" + std::to_string(getpid()));
    wl::cudart::ProgramOptions o;
    o.sources = {kSource};
    o.cache_dir = cache.string();
    o.gpu = true;
    wl::cudart::Program program;
    try {
        program = wl::cudart::build_program(o);
    } catch (const wl::ptx::ToolkitMissing& e) {
        GTEST_SKIP() << "no GPU: no toolkit to build the program with: " << e.what();
    }
    const Output ran = run(program.executable);
    std::error_code ec;
    fs::remove_all(cache, ec);
    if (ran.text.find("cudaErrorNoDevice") != std::string::npos || ran.text.find("cudaErrorInsufficientDriver") != std::string::npos)
        GTEST_SKIP() << "no GPU: " << ran.text;
    ASSERT_TRUE(WIFEXITED(ran.status)) << ran.text;
    EXPECT_EQ(WEXITSTATUS(ran.status), 1) << ran.text;
    // Which sticky memory error the GPU reports depends on where the wild store
    // lands (an H100 gave cudaErrorInvalidAddressSpace for gpu_fault.cu's); warplab
    // names that error, and the program's own check still sees it at its synchronize.
    const std::string reported = "the GPU reported ";
    const std::size_t error_at = ran.text.find(reported);
    ASSERT_NE(error_at, std::string::npos) << ran.text;
    const std::string error = ran.text.substr(error_at + reported.size(), ran.text.find(' ', error_at + reported.size()) - error_at - reported.size());
    EXPECT_TRUE(error == "cudaErrorIllegalAddress" || error == "cudaErrorInvalidAddressSpace") << ran.text;
    EXPECT_NE(ran.text.find("synchronize: " + error + "\n"), std::string::npos) << ran.text;
    const unsigned launch_line = line_of("// the faulting launch");
    ASSERT_GT(launch_line, 0u);
    const std::string named = " after launch 2: kernel scatter, grid (4,1,1), block (128,1,1), launched at ";
    const std::size_t at = ran.text.find(named);
    ASSERT_NE(at, std::string::npos) << ran.text;
    const std::string line = ran.text.substr(at + named.size(), ran.text.find('\n', at) - at - named.size());
    EXPECT_TRUE(line.ends_with("gpu_fault.cu:" + std::to_string(launch_line))) << line;
    EXPECT_EQ(ran.text.find("launch 1"), std::string::npos) << "the right launch is not named: " << ran.text;
}

}  // namespace
