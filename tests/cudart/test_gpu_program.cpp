// `warplab run --backend gpu`'s build (warplab/cudart/program.h with gpu set):
// a program written as NVIDIA's samples are, built with nvcc against NVIDIA's
// shared runtime and warplab's entry points in front of it. Here, without a
// GPU, the program must still start: its registrations pass through to
// NVIDIA's runtime, whose first allocation then reports that there is no
// device, and the program's own error check exits 1. With a GPU it runs right.
// (Its traces against the emulator's: tests/run/compare_backends.py, label gpu.)
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "warplab/cudart/program.h"
#include "program_output.h"
#include "warplab/ptx/ptx.h"

namespace {

namespace fs = std::filesystem;
using warplab::test::Output;
using warplab::test::run;

wl::cudart::Program build_for_gpu(const fs::path& cache)
{
    wl::cudart::ProgramOptions o;
    o.sources = {std::string(WARPLAB_SOURCE_DIR) + "/tests/run/programs/vector_add.cu"};
    o.cache_dir = cache.string();
    o.gpu = true;
    return wl::cudart::build_program(o);
}

TEST(GpuProgram, LinksWarplabsEntryPointsInFrontOfNvidiasRuntime)
{
    const fs::path cache = fs::temp_directory_path() / ("warplab-gpu-program-" + std::to_string(getpid()));
    wl::cudart::Program program;
    try {
        program = build_for_gpu(cache);
    } catch (const wl::ptx::ToolkitMissing& e) {
        GTEST_SKIP() << e.what();
    }
    // The launch and registration entry points are the program's own (T): they
    // come before those of libcudart.so, which the program loads.
    const Output symbols = run("nm " + program.executable);
    for (const char* entry : {"__cudaRegisterFatBinary", "__cudaRegisterFunction", "__cudaRegisterVar", "__cudaLaunchKernel",
                              "__cudaGetKernel", "cudaLaunchKernel", "cudaLaunchCooperativeKernel"})
        EXPECT_NE(symbols.text.find(std::string(" T ") + entry + "\n"), std::string::npos) << entry << " is not defined by the program";
    const Output libraries = run("ldd " + program.executable);
    EXPECT_NE(libraries.text.find("libcudart.so"), std::string::npos) << libraries.text;
    // It finds NVIDIA's libcudart.so by its run path, without LD_LIBRARY_PATH:
    // a toolkit in /usr/local/cuda is not on a fresh Debian's loader path.
    const Output dynamic = run("readelf -d " + program.executable);
    const std::size_t tag = dynamic.text.find("(RUNPATH)");
    ASSERT_NE(tag, std::string::npos) << dynamic.text;
    const std::size_t open = dynamic.text.find('[', tag), close = dynamic.text.find(']', tag);
    const std::string run_path = dynamic.text.substr(open + 1, close - open - 1);
    EXPECT_TRUE(fs::exists(fs::path(run_path) / "libcudart.so.13")) << run_path;
    const Output resolved = run("env -u LD_LIBRARY_PATH ldd " + program.executable);
    EXPECT_NE(resolved.text.find("libcudart.so.13 => " + run_path + "/libcudart.so.13"), std::string::npos) << resolved.text;

    // Started without a GPU: vector_add.cu's first cudaMalloc (line 32) fails and its check exits 1;
    // with one, the sum is right. Either way no abort (a missing NVIDIA entry point) and no signal.
    const Output ran = run(program.executable + " 100");
    ASSERT_TRUE(WIFEXITED(ran.status)) << ran.text;
    EXPECT_EQ(ran.text.find("NVIDIA's CUDA runtime has no"), std::string::npos) << ran.text;
    if (WEXITSTATUS(ran.status) == 0)
        EXPECT_EQ(ran.text, "vector_add: 100 elements, correct\n");
    else
        EXPECT_TRUE(WEXITSTATUS(ran.status) == 1 && ran.text.find("vector_add.cu:32: ") != std::string::npos) << ran.text;

    // A second build of the same file is the cached one.
    EXPECT_TRUE(build_for_gpu(cache).reused);
    std::error_code ec;
    fs::remove_all(cache, ec);
}

}  // namespace
