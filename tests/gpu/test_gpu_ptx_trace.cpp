// GPU tests (skip, saying why, where no CUDA GPU is present): the trace the
// instrumented PTX records on the GPU equals, event for event, the trace the
// PTX interpreter records on the emulator for the same launch. Both backends'
// lane records are grouped by the same code (events.cpp), so a difference
// means that the lanes recorded different accesses, sites, steps or values.
//
// Kernels: tests/gpu/instrument/trace_kernels.cu (global, shared, generic and
// dynamic-shared accesses of 1 to 16 bytes, atomics, barriers, shuffles,
// ballots, __syncwarp, a .func, __constant__ lookups). Inputs are seeded; grids and blocks are
// chosen so that every value is deterministic on both (no two blocks' atomics
// on one address in a watched block's records).
#if defined(WARPLAB_HAVE_PTX_TRACE)
#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "gpu_test_helpers.h"
#include "instrumented_sites.h"
#include "warplab/cuda/ptx_trace.h"
#include "warplab/emu/emulator.h"
#include "warplab/ptx/ptx.h"
#include "warplab/random.h"
#include "warplab/trace/analysis.h"
#include "warplab/trace/events.h"

namespace {

using warplab::test::first_difference;

#define REQUIRE_DRIVER_GPU()                                                             \
    do {                                                                                 \
        const std::string why = wl::cuda::gpu_unavailable_reason();                     \
        if (!why.empty()) GTEST_SKIP() << "no GPU: " << why;                            \
    } while (0)

const wl::ptx::Module& test_module()
{
    static const wl::ptx::Module m = wl::ptx::Module::parse(warplab::test::read_file(warplab::test::test_ptx_path()), "trace_kernels.cu");
    return m;
}

// One buffer on both backends, holding the same bytes.
struct Buffer {
    std::size_t bytes;
    void* emu;
    void* gpu;
};

class TwoBackends {
public:
    Buffer buffer(const std::vector<unsigned char>& init)
    {
        Buffer b{init.size(), emu_.alloc_bytes(init.size()), wl::cuda::device_alloc(init.size())};
        std::memcpy(b.emu, init.data(), init.size());
        wl::cuda::copy_to_device(b.gpu, init.data(), init.size());
        gpu_.push_back(b.gpu);
        return b;
    }
    template <class T> Buffer buffer(const std::vector<T>& init)
    {
        std::vector<unsigned char> bytes(init.size() * sizeof(T));
        std::memcpy(bytes.data(), init.data(), bytes.size());
        return buffer(bytes);
    }
    ~TwoBackends()
    {
        for (void* p : gpu_) wl::cuda::device_free(p);
    }

    // Runs the kernel on both; returns {gpu, emulator} block traces of the watched blocks.
    std::pair<std::vector<wl::trace::BlockTrace>, std::vector<wl::trace::BlockTrace>> trace(
        const std::string& kernel, dim3 grid, dim3 block, std::uint32_t dynamic_shared,
        const std::vector<wl::ptx::Arg>& gpu_args, const std::vector<wl::ptx::Arg>& emu_args,
        std::vector<std::uint32_t> watched, const wl::ptx::Module& module = test_module())
    {
        const std::uint32_t threads = block.x * block.y * block.z;
        const auto gpu = wl::cuda::trace_on_gpu({&module, kernel, grid, block, dynamic_shared, gpu_args, watched});
        emu_.options.watched_blocks = watched;
        wl::ptx::launch_args(emu_, module, kernel, grid, block, dynamic_shared, emu_args);
        return {wl::trace::group_records(gpu, threads), wl::trace::group_records(emu_.take_records(), threads)};
    }

private:
    wl::emu::Emulator emu_;
    std::vector<void*> gpu_;
};

void expect_equal_traces(const std::vector<wl::trace::BlockTrace>& gpu, const std::vector<wl::trace::BlockTrace>& cpu,
                         std::size_t watched)
{
    ASSERT_EQ(gpu.size(), watched);
    ASSERT_EQ(cpu.size(), watched);
    for (std::size_t b = 0; b < watched; ++b) {
        ASSERT_FALSE(cpu[b].events.empty());
        EXPECT_EQ(gpu[b].block, cpu[b].block);
        EXPECT_EQ(gpu[b].steps, cpu[b].steps) << "block " << cpu[b].block;
        EXPECT_TRUE(gpu[b].events == cpu[b].events) << "block " << cpu[b].block << ": "
                                                    << first_difference(gpu[b].events, cpu[b].events);
        ASSERT_EQ(gpu[b].shared_arrays.size(), cpu[b].shared_arrays.size());
        for (std::size_t k = 0; k < cpu[b].shared_arrays.size(); ++k) {
            EXPECT_EQ(gpu[b].shared_arrays[k].name, cpu[b].shared_arrays[k].name);
            EXPECT_EQ(gpu[b].shared_arrays[k].count, cpu[b].shared_arrays[k].count);
            EXPECT_EQ(gpu[b].shared_arrays[k].elem_size, cpu[b].shared_arrays[k].elem_size);
        }
    }
}

std::vector<float> seeded_floats(std::size_t n, unsigned seed)
{
    wl::Random rng(seed);
    std::vector<float> v(n);
    for (float& x : v) x = static_cast<float>(rng.uniform_int(-50, 50));  // small integers: every sum is exact in float
    return v;
}

// The tree at two block sizes, an odd n that leaves the last block partly
// filled, and two watched blocks, the first and that last one.
TEST(GpuPtxTrace, TreeSumEqualsEmulator)
{
    REQUIRE_DRIVER_GPU();
    for (auto [kernel, block, n] : {std::tuple{"_Z8tree_sumILj256EEvPKfPfj", 256u, 1000u},
                                    std::tuple{"_Z8tree_sumILj64EEvPKfPfj", 64u, 257u}}) {
        TwoBackends two;
        const unsigned blocks = (n + block - 1) / block;
        const Buffer in = two.buffer(seeded_floats(n, 11));
        const Buffer out = two.buffer(std::vector<float>(blocks, 0.0f));
        auto [gpu, cpu] = two.trace(kernel, dim3(blocks), dim3(block), 0, {in.gpu, out.gpu, n}, {in.emu, out.emu, n},
                                    {0, blocks - 1});
        SCOPED_TRACE(kernel);
        expect_equal_traces(gpu, cpu, 2);
        // The comparison can fail: block 0 against the last block differs.
        EXPECT_FALSE(gpu[0].events == cpu[1].events);
    }
}

// float4 loads, five shuffles, a ballot, __syncwarp, atomics (their records
// hold the values they stored). One block: the atomics' order is then fixed
// (one lane adds to counters[0] and to out[1]; eight lanes of one warp take
// the max of eight equal ballots).
TEST(GpuPtxTrace, WarpSumsEqualsEmulator)
{
    REQUIRE_DRIVER_GPU();
    TwoBackends two;
    const unsigned n4 = 200;  // 800 floats; threads 200..255 load nothing
    const Buffer in = two.buffer(seeded_floats(4 * n4, 12));
    const Buffer out = two.buffer(std::vector<float>(2, 0.0f));
    const Buffer counters = two.buffer(std::vector<unsigned>(65, 0u));
    auto [gpu, cpu] = two.trace("_Z9warp_sumsPKfPfPjj", dim3(1), dim3(256), 0, {in.gpu, out.gpu, counters.gpu, n4},
                                {in.emu, out.emu, counters.emu, n4}, {0});
    expect_equal_traces(gpu, cpu, 1);
}

// __constant__ lookups (ld.const by symbol and by register, two variables)
// in full and partial warps: the GPU's constant events, and so the constant
// cache's n-way, equal the emulator's. Blocks of 48, n = 90: warps of 32 and
// 16 lanes in block 0, 32 and 10 in block 1. Five loads a warp, 20 in all;
// their distinct addresses by hand (test_instrumented_on_emulator.cpp's
// ConstantLookupsCountTheirAddresses derives each): 1 + 1 + 4 + 16 + 4 = 26
// for a full warp, 1 + 1 + 4 + 16 + 2 = 24 for 16 lanes, 1 + 1 + 4 + 10 + 2
// = 18 for 10 lanes: 26 + 24 + 26 + 18 = 94.
TEST(GpuPtxTrace, ConstantLookupsEqualEmulator)
{
    REQUIRE_DRIVER_GPU();
    TwoBackends two;
    const unsigned n = 90;
    std::vector<unsigned> keys(n);
    for (unsigned i = 0; i < n; ++i) keys[i] = 7 * i + 3;
    const Buffer in = two.buffer(keys), out = two.buffer(std::vector<float>(n, 0.0f));
    auto [gpu, cpu] = two.trace("_Z16constant_lookupsPKjPfj", dim3(2), dim3(48), 0, {in.gpu, out.gpu, n},
                                {in.emu, out.emu, n}, {0, 1});
    expect_equal_traces(gpu, cpu, 2);
    std::uint32_t loads = 0, addresses = 0;
    for (const wl::trace::BlockTrace& b : gpu)
        for (const wl::trace::WarpEvent& e : b.events)
            if (e.space == wl::trace::Space::Constant) ++loads, addresses += wl::trace::constant_addresses(e.mask, e.offset);
    EXPECT_EQ(loads, 20u);
    EXPECT_EQ(addresses, 94u);
}

// 1-, 2- and 8-byte accesses, dynamic shared memory, and generic loads and
// stores in a .func that lanes call with shared and with global pointers.
TEST(GpuPtxTrace, NarrowWideGenericAndDynamicEqualsEmulator)
{
    REQUIRE_DRIVER_GPU();
    TwoBackends two;
    const unsigned threads = 64;
    std::vector<unsigned char> bytes(threads);
    std::vector<short> shorts(threads);
    std::vector<double> doubles(threads);
    for (unsigned i = 0; i < threads; ++i) {
        bytes[i] = static_cast<unsigned char>(i * 7 + 3);
        shorts[i] = static_cast<short>(1000 - 37 * static_cast<int>(i));
        doubles[i] = 0.5 * i - 3.25;
    }
    const Buffer b = two.buffer(bytes), s = two.buffer(shorts), d = two.buffer(doubles);
    auto [gpu, cpu] = two.trace("_Z15narrow_and_widePhPsPd", dim3(1), dim3(threads), threads * sizeof(double),
                                {b.gpu, s.gpu, d.gpu}, {b.emu, s.emu, d.emu}, {0});
    expect_equal_traces(gpu, cpu, 1);
}

// Kernels as public code writes them (tests/corpus): warpSize, the lane
// masks, a cooperative-groups tile of 16 and one warp storing one value to
// one shared word. Each is deterministic: no atomics between warps.
const wl::ptx::Module& corpus_module(const std::string& file)
{
    static std::map<std::string, std::unique_ptr<wl::ptx::Module>> modules;
    auto& m = modules[file];
    if (!m) {
        const std::string root = std::string(__FILE__).substr(0, std::string(__FILE__).rfind("/tests/gpu/"));
        wl::ptx::CompileOptions opt;
        opt.strip_prefix = root + "/";
        const auto ptx = wl::ptx::compile_file(root + "/tests/corpus/" + file, opt);
        m = std::make_unique<wl::ptx::Module>(wl::ptx::Module::parse(ptx.text, ptx.origin));
    }
    return *m;
}

TEST(GpuPtxTrace, PublicStyleKernelsEqualEmulator)
{
    REQUIRE_DRIVER_GPU();
    {
        TwoBackends two;
        const Buffer out = two.buffer(std::vector<int>(33, 0));
        auto [gpu, cpu] = two.trace("_Z10warp_widthPi", dim3(1), dim3(33), 0, {out.gpu}, {out.emu}, {0}, corpus_module("warp_size.cu"));
        SCOPED_TRACE("warp_width");
        expect_equal_traces(gpu, cpu, 1);
    }
    {
        TwoBackends two;
        const Buffer out = two.buffer(std::vector<unsigned>(8 * 40, 0u));
        auto [gpu, cpu] = two.trace("_Z17special_registersPj", dim3(1), dim3(40), 160, {out.gpu}, {out.emu}, {0},
                                    corpus_module("warp_size.cu"));
        SCOPED_TRACE("special_registers");
        expect_equal_traces(gpu, cpu, 1);
    }
    {
        TwoBackends two;
        std::vector<int> values(512);
        for (int i = 0; i < 512; ++i) values[i] = (i * 37) % 101 - 50;
        const Buffer in = two.buffer(values), out = two.buffer(std::vector<int>(32, 0));
        auto [gpu, cpu] = two.trace("_Z9tile_sumsILj16EEvPKiPi", dim3(2), dim3(256), 0, {in.gpu, out.gpu}, {in.emu, out.emu},
                                    {0, 1}, corpus_module("cg_wide_tiles.cu"));
        SCOPED_TRACE("tile_sums<16>");
        expect_equal_traces(gpu, cpu, 2);
    }
    {
        TwoBackends two;
        const Buffer in = two.buffer(std::vector<float>{2.5f}), out = two.buffer(std::vector<float>(32, 0.0f));
        auto [gpu, cpu] = two.trace("_Z16same_value_storePKfPf", dim3(1), dim3(32), 0, {in.gpu, out.gpu}, {in.emu, out.emu},
                                    {0}, corpus_module("cuda_races.cu"));
        SCOPED_TRACE("same_value_store");
        expect_equal_traces(gpu, cpu, 1);
    }
}

}  // namespace
#endif
