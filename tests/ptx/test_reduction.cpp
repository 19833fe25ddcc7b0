// The vertical slice: the reduction v1 kernel as plain CUDA, compiled by nvcc,
// run by the interpreter, checked against the sum and the trace it must record.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <random>

#include "ptx_test_util.h"

namespace {

using wl::ptx::testing::compile_module;

const char* kReduceV1 = R"(
template <unsigned BLOCK, class T>
__global__ void reduce_v1(const T* __restrict__ g_in, T* g_out, unsigned n)
{
    __shared__ T sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? g_in[i] : T(0);
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) g_out[blockIdx.x] = sdata[0];
}
template __global__ void reduce_v1<256, float>(const float*, float*, unsigned);
template __global__ void reduce_v1<256, int>(const int*, int*, unsigned);
)";

TEST(PtxReduction, SumsEveryBlockAndRecordsTheTrace)
{
    WL_SKIP_WITHOUT_NVCC();
    const auto mod = compile_module(kReduceV1, "reduce_v1.cu");
    wl::emu::Emulator emu;
    const unsigned n = 1000, blocks = (n + 255) / 256;  // an odd size: the last block is partly empty
    int* in = emu.alloc<int>(n);
    int* out = emu.alloc<int>(blocks);
    std::mt19937 rng(7);
    std::vector<long long> expect(blocks, 0);
    for (unsigned i = 0; i < n; ++i) {
        in[i] = static_cast<int>(rng() % 1000) - 500;
        expect[i / 256] += in[i];
    }
    wl::ptx::launch(emu, mod, "reduce_v1<256u, int>", dim3(blocks), dim3(256), 0, in, out, n);
    for (unsigned b = 0; b < blocks; ++b) EXPECT_EQ(out[b], expect[b]) << "block " << b;

    const auto records = emu.take_records();
    // Block 0: one Declare (thread 0), 256 global loads, 256 shared stores, then per
    // step s = 1..128 the active threads (256 / 2s) load two and store one element,
    // 9 barriers for each of 256 threads, and one global store by thread 0.
    std::size_t declares = 0, gloads = 0, sstores = 0, sloads = 0, syncs = 0, gstores = 0;
    for (const auto& r : records) {
        using wl::trace::Kind;
        using wl::trace::Space;
        if (r.kind == Kind::Declare) ++declares;
        if (r.kind == Kind::Load && r.space == Space::Global) ++gloads;
        if (r.kind == Kind::Store && r.space == Space::Shared) ++sstores;
        if (r.kind == Kind::Load && r.space == Space::Shared) ++sloads;
        if (r.kind == Kind::SyncThreads) ++syncs;
        if (r.kind == Kind::Store && r.space == Space::Global) ++gstores;
    }
    EXPECT_EQ(declares, 1u);
    EXPECT_EQ(gloads, 256u);
    EXPECT_EQ(sstores, 256u + 255u);  // 128+64+...+1 = 255 partial sums
    EXPECT_EQ(sloads, 2u * 255u + 1u);  // two per partial sum, one by thread 0 at the end
    EXPECT_EQ(syncs, 256u * 9u);
    EXPECT_EQ(gstores, 1u);
    const auto decl = *std::find_if(records.begin(), records.end(),
                                    [](const auto& r) { return r.kind == wl::trace::Kind::Declare; });
    EXPECT_EQ(decl.thread, 0u);
    EXPECT_EQ(decl.size, 4u);
    EXPECT_EQ(decl.offset, 256u);
    EXPECT_STREQ(reinterpret_cast<const char*>(decl.value), "sdata");
    // thread 5's global load: argument 0, element 5, on line 8 of reduce_v1.cu
    bool seen = false;
    for (const auto& r : records)
        if (r.thread == 5 && r.kind == wl::trace::Kind::Load && r.space == wl::trace::Space::Global) {
            seen = true;
            EXPECT_EQ(r.array, 0u);
            EXPECT_EQ(r.offset, 5u * 4u);
            EXPECT_EQ(r.size, 4u);
            EXPECT_EQ(r.line, 8u);
            EXPECT_EQ(r.file_hash, wl::trace::file_hash("reduce_v1.cu"));
            EXPECT_EQ(static_cast<int>(r.value[0]), in[5]);
        }
    EXPECT_TRUE(seen);
}

// Also a quick speed reading (printed; the emulator bench is the measurement).
TEST(PtxReduction, FloatSumOfAMillion)
{
    WL_SKIP_WITHOUT_NVCC();
    const auto mod = compile_module(kReduceV1, "reduce_v1.cu");
    wl::emu::Emulator emu;
    const unsigned n = 1u << 20, blocks = n / 256;
    float* in = emu.alloc<float>(n);
    float* out = emu.alloc<float>(blocks);
    for (unsigned i = 0; i < n; ++i) in[i] = static_cast<float>(i % 7);
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    wl::ptx::launch(emu, mod, "reduce_v1<256u, float>", dim3(blocks), dim3(256), 0, in, out, n);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    std::printf("reduce_v1<256, float> on 2^20 floats: %.3f s wall, %.3f s CPU\n", s, cpu);
    double total = 0;
    for (unsigned b = 0; b < blocks; ++b) total += out[b];
    double expect = 0;
    for (unsigned i = 0; i < n; ++i) expect += i % 7;
    EXPECT_EQ(total, expect);
}

}  // namespace
