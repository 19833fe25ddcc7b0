// compile_file / compile_source: nvcc's messages with the user's paths, the
// content cache (a header edit recompiles), prefix stripping, a missing toolkit.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "ptx_test_util.h"

namespace {

namespace fs = std::filesystem;

// A fresh directory per test, removed at the end.
class TempDir {
public:
    TempDir()
    {
        std::random_device rd;
        path_ = fs::temp_directory_path() / ("warplab-ptx-test-" + std::to_string(getpid()) + "-" + std::to_string(rd()));
        fs::create_directories(path_);
    }
    ~TempDir()
    {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    const fs::path& path() const { return path_; }
    void write(const std::string& name, const std::string& text) const { std::ofstream(path_ / name) << text; }

private:
    fs::path path_;
};

wl::ptx::CompileOptions options_in(const TempDir& dir)
{
    wl::ptx::CompileOptions opt;
    opt.cache_dir = (dir.path() / "cache").string();
    return opt;
}

TEST(PtxCompile, ErrorsAreNvccsMessagesWithTheUsersFileName)
{
    WL_SKIP_WITHOUT_NVCC();
    TempDir dir;
    try {
        wl::ptx::compile_source("__global__ void k(int* p) { p[0] = undeclared_name; }\n", "student.cu", options_in(dir));
        FAIL() << "compiled code with an undeclared name";
    } catch (const wl::ptx::CompileError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("student.cu(1)"), std::string::npos) << what;
        EXPECT_NE(what.find("undeclared_name"), std::string::npos) << what;
        EXPECT_EQ(what.find(dir.path().string()), std::string::npos) << "a cache path leaks: " << what;
    }
}

TEST(PtxCompile, TheCacheFollowsIncludedHeaders)
{
    WL_SKIP_WITHOUT_NVCC();
    TempDir dir;
    dir.write("value.h", "#define VALUE 5\n");
    dir.write("k.cu", "#include \"value.h\"\nextern \"C\" __global__ void k(int* p) { p[0] = VALUE; }\n");
    const auto opt = options_in(dir);
    auto run = [&] {
        const auto ptx = wl::ptx::compile_file((dir.path() / "k.cu").string(), opt);
        const auto m = wl::ptx::Module::parse(ptx.text, ptx.origin);
        wl::emu::Emulator emu;
        int* p = emu.alloc<int>(1);
        wl::ptx::launch(emu, m, "k", dim3(1), dim3(1), 0, p);
        return *p;
    };
    EXPECT_EQ(run(), 5);
    const auto entries = std::distance(fs::directory_iterator(opt.cache_dir), fs::directory_iterator{});
    EXPECT_EQ(run(), 5);  // a hit: no new entry
    EXPECT_EQ(std::distance(fs::directory_iterator(opt.cache_dir), fs::directory_iterator{}), entries);
    dir.write("value.h", "#define VALUE 9\n");  // the source is unchanged, its header is not
    EXPECT_EQ(run(), 9);
}

TEST(PtxCompile, StripPrefixMakesFilePathsRelative)
{
    WL_SKIP_WITHOUT_NVCC();
    TempDir dir;
    fs::create_directories(dir.path() / "labs");
    dir.write("labs/k.cu", "extern \"C\" __global__ void k(int* p) { p[threadIdx.x] = 1; }\n");
    auto opt = options_in(dir);
    opt.strip_prefix = dir.path().string();
    const auto ptx = wl::ptx::compile_file((dir.path() / "labs/k.cu").string(), opt);
    EXPECT_NE(ptx.text.find("\"labs/k.cu\""), std::string::npos) << ptx.text.substr(ptx.text.find(".file"), 200);
    EXPECT_EQ(ptx.text.find(dir.path().string()), std::string::npos);
}

// nvcc's warnings come back with the lines they quote, the user's file name
// and no cache path, from a fresh compile and from the cache alike (the second
// compile adds no cache entry); a kernel nvcc does not warn about has none.
TEST(PtxCompile, WarningsSurviveTheCache)
{
    WL_SKIP_WITHOUT_NVCC();
    TempDir dir;
    const auto opt = options_in(dir);
    const std::string warned = "__global__ void down(float* out, unsigned n)\n{\n"
                               "    for (unsigned s = n; s >= 0; --s) out[s] = 0;\n}\n";
    const auto fresh = wl::ptx::compile_source(warned, "countdown.cu", opt);
    EXPECT_NE(fresh.warnings.find("countdown.cu(3): warning #186-D: pointless comparison of unsigned integer with zero\n"
                                  "      for (unsigned s = n; s >= 0; --s) out[s] = 0;"),
              std::string::npos)
        << fresh.warnings;
    EXPECT_EQ(fresh.warnings.find("Remark"), std::string::npos) << fresh.warnings;
    EXPECT_EQ(fresh.warnings.find(dir.path().string()), std::string::npos) << "a cache path leaks: " << fresh.warnings;
    const auto entries = std::distance(fs::directory_iterator(opt.cache_dir), fs::directory_iterator{});
    const auto cached = wl::ptx::compile_source(warned, "countdown.cu", opt);
    EXPECT_EQ(std::distance(fs::directory_iterator(opt.cache_dir), fs::directory_iterator{}), entries);
    EXPECT_EQ(cached.warnings, fresh.warnings);
    const auto quiet = wl::ptx::compile_source("__global__ void up(float* out) { out[threadIdx.x] = 1; }\n", "up.cu", opt);
    EXPECT_EQ(quiet.warnings, "");
}

// The first few of nvcc's warnings, whole (the quoted line and caret kept),
// then how many more: four warnings shown three at a time leave "1 more".
TEST(PtxCompile, FirstWarningsKeepsWholeWarnings)
{
    std::string four;
    for (int line = 1; line <= 4; ++line)
        four += "k.cu(" + std::to_string(line) + "): warning #177-D: variable \"v\" was declared but never referenced\n"
                "      int v;\n          ^\n\n";
    const std::string shown = wl::ptx::first_warnings(four, 3);
    EXPECT_NE(shown.find("k.cu(3): warning"), std::string::npos) << shown;
    EXPECT_EQ(shown.find("k.cu(4)"), std::string::npos) << shown;
    EXPECT_TRUE(shown.ends_with("          ^\n(and 1 more warning)")) << shown;
    EXPECT_EQ(wl::ptx::first_warnings(four, 4), four.substr(0, four.size() - 2));
    EXPECT_EQ(wl::ptx::first_warnings(""), "");
}

TEST(PtxCompile, NoToolkitIsToolkitMissing)
{
    const char* saved = std::getenv("WARPLAB_NVCC");
    const std::string old = saved ? saved : "";
    setenv("WARPLAB_NVCC", "/nonexistent/bin/nvcc", 1);
    EXPECT_EQ(wl::ptx::find_nvcc(), "");
    try {
        wl::ptx::compile_source("__global__ void k() {}", "k.cu");
        ADD_FAILURE() << "compiled without nvcc";
    } catch (const wl::ptx::ToolkitMissing& e) {
        EXPECT_STREQ(e.what(), "compiling CUDA needs the CUDA toolkit (nvcc); none found on PATH or in /usr/local/cuda");
    }
    if (saved) setenv("WARPLAB_NVCC", old.c_str(), 1);
    else unsetenv("WARPLAB_NVCC");
}

}  // namespace
