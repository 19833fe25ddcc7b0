// wl::ptx::KernelFile, the C++ API's entry for a user's .cu file: the
// one-line errors, and templates instantiated to fit a launch (or taken from the
// file's explicit instantiations), run on the emulator against a CPU sum.
// The .cu files are the CLI tests' (tests/cli/kernels/), and one written here.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "ptx_test_util.h"
#include "tests/fault_of.h"
#include "warplab/ptx/kernel_file.h"

namespace {

using warplab::test::fault_of;
using wl::ptx::KernelFile;
using wl::ptx::KernelFileError;

std::string kernel_path(const std::string& name) { return std::string(WARPLAB_SOURCE_DIR) + "/tests/cli/kernels/" + name; }

// What the message of the KernelFileError that f throws says; "" when none is thrown.
template <class F> std::string error_of(F&& f)
{
    try {
        f();
    } catch (const KernelFileError& e) {
        return e.what();
    }
    return "";
}

// A kernel reading past its input: the fault names the parameter as the
// source does, with its position. tree_sum<256, int> reads in[i] for i < n; n
// = 300 but in holds 200, so block 0's threads 200..255 read past it (which
// one faults first is the schedule's): "in[2xx] (argument 0) is outside its 200 elements".
TEST(KernelFile, FaultsNameTheParameterAsTheSourceDoes)
{
    if (wl::ptx::find_nvcc().empty()) GTEST_SKIP() << "needs nvcc (the CUDA toolkit)";
    KernelFile f(kernel_path("tree_sum.cu"), {}, "tree_sum.cu");
    const KernelFile::Instance& k = f.instance("tree_sum", {.types = {"int"}, .values = {256}, .launch = "a test"});
    ASSERT_EQ(k.info->params.size(), 3u);
    EXPECT_EQ(k.info->params[0].source_name, "in");
    EXPECT_EQ(k.info->params[2].source_name, "n");
    wl::emu::Emulator emu;
    int* in = emu.alloc<int>(200);
    int* out = emu.alloc<int>(2);
    const std::vector<int> ones(200, 1);
    emu.copy_to_device(in, ones.data(), ones.size());
    const auto past_end = fault_of([&] { wl::ptx::launch(emu, *k.module, k.entry, dim3(2), dim3(256), 0, in, out, 300u); });
    ASSERT_TRUE(past_end);
    const std::string what = past_end->what();
    EXPECT_NE(what.find("out-of-bounds load: in[2"), std::string::npos) << what;
    EXPECT_NE(what.find("] (argument 0) is outside its 200 elements"), std::string::npos) << what;
}

TEST(KernelFile, FilesWithNothingToRunSayWhyInOneLine)
{
    const std::string empty = error_of([] { KernelFile f(kernel_path("empty.cu"), {}, "empty.cu"); });
    const std::string none = error_of([] { KernelFile f(kernel_path("no_kernel.cu"), {}, "no_kernel.cu"); });
    const std::string missing = error_of([] { KernelFile f(kernel_path("missing.cu"), {}, "missing.cu"); });
    EXPECT_EQ(empty, "empty.cu is empty: write a __global__ kernel in it");
    EXPECT_EQ(none, "no_kernel.cu declares no __global__ function: only a kernel (a __global__ function) can be launched");
    EXPECT_EQ(missing, "cannot read kernel file 'missing.cu'");
}

TEST(KernelFile, PickListsTheKernelsWhenTheNameMatchesNothing)
{
    KernelFile f(kernel_path("harris_style.cu"), {}, "harris_style.cu");
    EXPECT_EQ(f.pick("reduce_halves").name, "reduce_halves");
    EXPECT_EQ(error_of([&] { f.pick("reduce_nothing"); }),
              "no kernel 'reduce_nothing' in harris_style.cu; its kernels: reduce_modulo, reduce_halves, reduce_two_loads, "
              "reduce_stops_early");
    EXPECT_NE(error_of([&] { f.pick(""); }).find("has 4 kernels: name one with --kernel"), std::string::npos);
}

// Runs reduce2 (sequential addressing over dynamic shared memory, one sum per
// block) on 1000 seeded ints in blocks of 256 and compares each block's sum
// with the CPU's: blocks 0..2 hold 256 elements, block 3 the last 232.
template <class T> void expect_block_sums(const KernelFile::Instance& k)
{
    constexpr unsigned n = 1000, block = 256, blocks = 4;
    std::mt19937 rng(7);
    std::vector<T> in(n);
    for (T& x : in) x = static_cast<T>(rng() % 100);
    wl::emu::Emulator emu;
    T* d_in = emu.alloc<T>(n);
    T* d_out = emu.alloc<T>(blocks);
    emu.copy_to_device(d_in, in.data(), n);
    wl::ptx::launch(emu, *k.module, k.entry, dim3(blocks), dim3(block), block * sizeof(T), d_in, d_out, n);
    std::vector<T> out(blocks);
    emu.copy_to_host(out.data(), d_out, blocks);
    for (unsigned b = 0; b < blocks; ++b) {
        const auto first = in.begin() + b * block, last = in.begin() + std::min(n, (b + 1) * block);
        EXPECT_EQ(out[b], std::accumulate(first, last, T(0))) << "block " << b;
    }
}

TEST(KernelFile, ExplicitInstantiationWhereItFitsElseInstantiated)
{
    WL_SKIP_WITHOUT_NVCC();
    KernelFile f(kernel_path("sample_style.cu"), {}, "sample_style.cu");
    const KernelFile::Instance& as_int = f.instance("reduce2", {{"int"}, {256}, "a launch of ints"});
    EXPECT_EQ(as_int.how, "reduce2<int>, the file's explicit instantiation");
    ASSERT_EQ(as_int.info->shared.size(), 1u);
    EXPECT_TRUE(as_int.info->shared[0].dynamic);
    expect_block_sums<int>(as_int);
    const KernelFile::Instance& as_float = f.instance("reduce2", {{"float"}, {256}, "a launch of floats"});
    EXPECT_EQ(as_float.how, "reduce2<float>, instantiated for a launch of floats");
    expect_block_sums<float>(as_float);
    EXPECT_EQ(error_of([&] { f.instance("reduce6", {{"float"}, {256}, "a launch of floats"}); }),
              "warplab cannot fill template parameter 'bool nIsPow2' of reduce6 from a launch of floats, and no explicit "
              "instantiation in sample_style.cu fits: give it a default or instantiate it in the file");
}

// A lab's own instance as ptxas prints it gives a user's template its
// arguments (fill_of), and the instance KernelFile makes of them must be that
// same instance: one reading of printed arguments on both sides. The pair type
// is a template itself (its comma inside the argument), and UNROLL keeps its
// default 2: each block sums BLOCK * 2 = 128 pairs, so 300 pairs are 3 blocks
// (128, 128, 44). Pair i is (i % 7, 0.5): block b's sum is the sum of i % 7
// over its pairs plus half their count, which the CPU computes below.
TEST(KernelFile, ALabsPrintedInstanceFillsATemplateOfTemplates)
{
    const wl::ptx::TemplateFill fill = wl::ptx::fill_of("pair_sums<Pair<int, float>, 64u>", "a launch of pairs");
    EXPECT_EQ(fill.types, (std::vector<std::string>{"Pair<int, float>"}));
    EXPECT_EQ(fill.values, (std::vector<long long>{64}));
    WL_SKIP_WITHOUT_NVCC();
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("warplab_pairs_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "pairs.cu") << R"src(template <class A, class B> struct Pair { A first; B second; };

template <class P, unsigned BLOCK, unsigned UNROLL = 2>
__global__ void pair_sums(const P* in, float* out, unsigned n)
{
    __shared__ float partial[BLOCK];
    float sum = 0.0f;
    for (unsigned k = 0; k < UNROLL; ++k) {
        const unsigned i = blockIdx.x * BLOCK * UNROLL + k * BLOCK + threadIdx.x;
        if (i < n) sum += float(in[i].first) + in[i].second;
    }
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}
)src";
    KernelFile f((dir / "pairs.cu").string(), {}, "pairs.cu");
    const KernelFile::Instance& k = f.instance("pair_sums", fill);
    std::filesystem::remove_all(dir);
    EXPECT_EQ(k.how, "pair_sums<Pair<int, float>, 64u, 2u>, instantiated for a launch of pairs");
    struct Pair {
        int first;
        float second;
    };
    constexpr unsigned n = 300, blocks = 3;
    std::vector<Pair> in(n);
    for (unsigned i = 0; i < n; ++i) in[i] = {int(i % 7), 0.5f};
    wl::emu::Emulator emu;
    Pair* d_in = emu.alloc<Pair>(n);
    float* d_out = emu.alloc<float>(blocks);
    emu.copy_to_device(d_in, in.data(), n);
    wl::ptx::launch(emu, *k.module, k.entry, dim3(blocks), dim3(64), 0, d_in, d_out, n);
    std::vector<float> out(blocks);
    emu.copy_to_host(out.data(), d_out, blocks);
    for (unsigned b = 0; b < blocks; ++b) {
        float expected = 0;  // small whole numbers and halves: exact in float, in any order
        for (unsigned i = b * 128; i < std::min(n, (b + 1) * 128); ++i) expected += float(in[i].first) + in[i].second;
        EXPECT_EQ(out[b], expected) << "block " << b;
    }
}

}  // namespace
