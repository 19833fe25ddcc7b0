// __constant__ loads in the trace: each warp instruction's distinct addresses,
// the requests the constant cache serialises them into (analysis.h), for a
// lookup with a warp-uniform index and with divergent ones. Kernels written
// as public code writes them: a table set from the host, read by index.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>

#include "ptx_test_util.h"

namespace {

// The lookups, one a kernel, each storing weights[k] * x[i] for its index k.
const char* kLookups = R"(
__constant__ float weights[64];

// k is the block's: every lane of a warp reads one address.
__global__ void uniform_lookup(const float* x, float* out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = weights[blockIdx.x % 64] * x[i];
}

// k = lane / 8: lanes 0-7 read weights[0], 8-15 weights[1], and so on.
__global__ void grouped_lookup(const float* x, float* out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = weights[(threadIdx.x % warpSize) / 8] * x[i];
}

// k = the thread's own index modulo 64: every lane its own address.
__global__ void divergent_lookup(const float* x, float* out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = weights[threadIdx.x % 64] * x[i];
}
)";

// Each constant-space load record's lanes' distinct offsets, by (warp, line):
// the n-way the analysis reports, counted here straight from the records.
std::map<unsigned, std::set<std::uint64_t>> constant_addresses_by_warp(const std::vector<wl::trace::LaneRecord>& records)
{
    std::map<unsigned, std::set<std::uint64_t>> by_warp;
    for (const auto& r : records)
        if (r.space == wl::trace::Space::Constant) {
            EXPECT_EQ(r.kind, wl::trace::Kind::Load);
            by_warp[r.thread / 32].insert(r.offset);
        }
    return by_warp;
}

struct Lookup {
    const char* kernel;
    // By hand, for a block of 64 threads (two warps): the byte offsets into weights each warp reads.
    std::set<std::uint64_t> warp0, warp1;
    float out5;  // thread 5 of block 0: 2 * weights[k] = 2 * (k + 1)
};

class ConstantMemory : public ::testing::TestWithParam<Lookup> {};

TEST_P(ConstantMemory, EachWarpReadsTheAddressesItsIndexNames)
{
    WL_SKIP_WITHOUT_NVCC();
    const auto m = wl::ptx::testing::compile_module(kLookups, "lookups.cu");
    float table[64];
    for (int k = 0; k < 64; ++k) table[k] = float(k + 1);
    std::memcpy(m.symbol("weights").data(), table, sizeof table);
    wl::emu::Emulator emu;
    auto* x = emu.alloc<float>(128);
    auto* out = emu.alloc<float>(128);
    for (int i = 0; i < 128; ++i) x[i] = 2.0f;
    const Lookup& c = GetParam();
    wl::ptx::launch(emu, m, c.kernel, dim3(2), dim3(64), 0, x, out);
    const auto by_warp = constant_addresses_by_warp(emu.take_records());
    ASSERT_EQ(by_warp.size(), 2u);
    EXPECT_EQ(by_warp.at(0), c.warp0);
    EXPECT_EQ(by_warp.at(1), c.warp1);
    EXPECT_FLOAT_EQ(out[5], c.out5);  // the kernel read what the records say
}

// Block 0 is watched. uniform: k = 0 for both warps, offset 0. grouped: lanes
// 0-31 of either warp read weights[0..3], offsets 0, 4, 8, 12. divergent: warp 0
// reads weights[0..31] (offsets 0..124), warp 1 weights[32..63] (128..252).
// Thread 5 reads k = 0 (uniform, grouped: 5 / 8 = 0) or k = 5 (divergent).
std::set<std::uint64_t> words(unsigned first, unsigned count)
{
    std::set<std::uint64_t> s;
    for (unsigned k = first; k < first + count; ++k) s.insert(4 * k);
    return s;
}

INSTANTIATE_TEST_SUITE_P(Lookups, ConstantMemory,
                         ::testing::Values(Lookup{"uniform_lookup", {0}, {0}, 2.0f}, Lookup{"grouped_lookup", words(0, 4), words(0, 4), 2.0f},
                                           Lookup{"divergent_lookup", words(0, 32), words(32, 32), 12.0f}),
                         [](const auto& info) { return std::string(info.param.kernel); });

}  // namespace
