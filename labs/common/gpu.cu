// GPU availability, as the CUDA runtime sees it.
#include <cuda_runtime.h>

#include "labs/common/lab.h"

namespace warplab {

GpuStatus gpu_status()
{
    static const GpuStatus status = [] {
        int count = 0;
        const cudaError_t e = cudaGetDeviceCount(&count);
        if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
            return GpuStatus{false, "", "no NVIDIA GPU or driver on this machine"};
        if (e != cudaSuccess) return GpuStatus{false, "", std::string("no usable CUDA GPU: ") + cudaGetErrorString(e)};
        if (count == 0) return GpuStatus{false, "", "no CUDA GPU on this machine"};
        cudaDeviceProp prop{};
        cudaGetDeviceProperties(&prop, 0);
        return GpuStatus{true, prop.name, "", static_cast<unsigned>(prop.multiProcessorCount)};
    }();
    return status;
}

}  // namespace warplab

// ---- provenance and the copy kernel, for the benchmarks ----
#include <cctype>
#include <chrono>
#include <ctime>
#include <fstream>

#include "labs/common/bench.h"
#include "warplab/cuda/timing.h"

#ifndef WARPLAB_COMMIT
#define WARPLAB_COMMIT "unknown"
#endif

namespace warplab {

namespace {
int attribute(cudaDeviceAttr a)
{
    int device = 0, value = 0;
    wl::cuda::check(cudaGetDevice(&device), "cudaGetDevice");
    wl::cuda::check(cudaDeviceGetAttribute(&value, a, device), "cudaDeviceGetAttribute");
    return value;
}

// "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ..."
std::string nvidia_driver_version()
{
    std::ifstream f("/proc/driver/nvidia/version");
    std::string word;
    while (f >> word) {
        const bool dotted_number = word.find('.') != std::string::npos &&
                                   word.find_first_not_of("0123456789.") == std::string::npos && std::isdigit(word[0]);
        if (dotted_number) return word;
    }
    int v = 0;
    cudaDriverGetVersion(&v);
    return "CUDA driver API " + std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

__global__ void copy_int4(const int4* __restrict__ in, int4* __restrict__ out, std::size_t count)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = in[i];
}

// Reads every int4 once, four loads in flight per thread, and writes nothing
// unless the XOR of all it read is a value the input (all bytes 1) cannot
// give: the compiler cannot drop the loads, and no store competes with them.
__global__ void read_int4(const int4* __restrict__ in, std::size_t count, int* never_written)
{
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    int x = 0;
    for (; i + 3 * stride < count; i += 4 * stride) {
        const int4 a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];
        x ^= (a.x ^ a.y ^ a.z ^ a.w) ^ (b.x ^ b.y ^ b.z ^ b.w) ^ (c.x ^ c.y ^ c.z ^ c.w) ^ (d.x ^ d.y ^ d.z ^ d.w);
    }
    for (; i < count; i += stride) x ^= in[i].x ^ in[i].y ^ in[i].z ^ in[i].w;
    if (x == 0x7f7f7f7f) *never_written = x;
}

// Blocks of 256 threads for `count` int4: enough for 8 per SM, fewer for small inputs.
unsigned stream_blocks(std::size_t count)
{
    return static_cast<unsigned>(std::min<std::size_t>((count + 255) / 256, std::size_t(attribute(cudaDevAttrMultiProcessorCount)) * 8));
}
}  // namespace

Provenance gpu_provenance(const std::string& command)
{
    Provenance p;
    p.gpu = gpu_status().name;
    p.driver = nvidia_driver_version();
    int rt = 0;
    cudaRuntimeGetVersion(&rt);
    p.cuda_runtime = std::to_string(rt / 1000) + "." + std::to_string(rt % 1000 / 10);
    p.sm_clock_mhz = attribute(cudaDevAttrClockRate) / 1000;
    p.mem_clock_mhz = attribute(cudaDevAttrMemoryClockRate) / 1000;
    p.bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth);
    p.sms = attribute(cudaDevAttrMultiProcessorCount);
    p.l2_bytes = static_cast<std::size_t>(attribute(cudaDevAttrL2CacheSize));
    const std::time_t now = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    p.date = date;
    p.command = command;
    p.commit = WARPLAB_COMMIT;
    return p;
}

double measure_copy_gbps(std::size_t bytes, bool warm, double seconds)
{
    const std::size_t count = (bytes + 15) / 16;
    int4 *in = nullptr, *out = nullptr;
    wl::cuda::check(cudaMalloc(&in, count * 16), "cudaMalloc(copy in)");
    wl::cuda::check(cudaMalloc(&out, count * 16), "cudaMalloc(copy out)");
    wl::cuda::check(cudaMemset(in, 1, count * 16), "cudaMemset(copy in)");
    const unsigned blocks = stream_blocks(count);
    const wl::cuda::Timing t = wl::cuda::time_runs([&] { copy_int4<<<blocks, 256>>>(in, out, count); }, warm, seconds);
    cudaFree(in);
    cudaFree(out);
    return 2.0 * count * 16 / 1e9 / (t.median_ms / 1e3);
}

double measure_read_gbps(std::size_t bytes, bool warm, double seconds)
{
    const std::size_t count = (bytes + 15) / 16;
    int4* in = nullptr;
    int* never_written = nullptr;
    wl::cuda::check(cudaMalloc(&in, count * 16), "cudaMalloc(read probe in)");
    wl::cuda::check(cudaMalloc(&never_written, sizeof(int)), "cudaMalloc(read probe out)");
    wl::cuda::check(cudaMemset(in, 1, count * 16), "cudaMemset(read probe in)");
    const unsigned blocks = stream_blocks(count);
    const wl::cuda::Timing t = wl::cuda::time_runs([&] { read_int4<<<blocks, 256>>>(in, count, never_written); }, warm, seconds);
    wl::cuda::check(cudaGetLastError(), "read probe");
    cudaFree(in);
    cudaFree(never_written);
    return double(count) * 16 / 1e9 / (t.median_ms / 1e3);
}

}  // namespace warplab
