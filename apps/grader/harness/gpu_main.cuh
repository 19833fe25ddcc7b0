// The GPU timing harness (nvcc, the plain build of the student's kernel): an
// exercise's gpu_setup() puts its inputs on the GPU and returns one launch;
// timing_main() checks that it runs, times it (warplab/cuda/timing.h: L2
// flushed, median of repeated runs) and writes one JSON line. Not graded: the
// emulator grades; this says how fast the kernel is beside the reference.
#pragma once
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "warplab/cuda/timing.h"
#include "warplab/random.h"

namespace wl::grade::gpu {

using Launch = std::function<void()>;

template <class T> T* scratch(std::size_t count)
{
    T* p = nullptr;
    wl::cuda::check(cudaMalloc(&p, count * sizeof(T)), "cudaMalloc");
    return p;
}

template <class T> T* upload(const std::vector<T>& host)
{
    T* p = scratch<T>(host.size());
    wl::cuda::check(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
    return p;
}

inline std::vector<int> ints(std::size_t n, std::uint64_t seed, int lo, int hi)
{
    wl::Random rng(seed);
    std::vector<int> v(n);
    for (int& x : v) x = static_cast<int>(rng.uniform_int(lo, hi));
    return v;
}

inline std::vector<float> floats(std::size_t n, std::uint64_t seed, float lo, float hi)
{
    wl::Random rng(seed);
    std::vector<float> v(n);
    for (float& x : v) x = rng.uniform_float(lo, hi);
    return v;
}

inline unsigned multiprocessors()
{
    int sms = 0;
    wl::cuda::check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "cudaDeviceGetAttribute");
    return static_cast<unsigned>(sms);
}

// A per-block reduction (E1, E2, E4, E5): 2^24 ints, blocks of 256, one result a block.
inline Launch block_reduction(void (*kernel)(const int* __restrict__, int*, unsigned), int lo, int hi)
{
    constexpr unsigned n = 1u << 24, block = 256, blocks = n / block;
    const int* in = upload(ints(n, 1, lo, hi));
    int* out = scratch<int>(blocks);
    return [=] { kernel<<<blocks, block>>>(in, out, n); };
}

inline std::string json_string(const std::string& s)
{
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) >= 0x20) out += c;
    }
    return out + "\"";
}

inline int timing_main(int argc, char** argv, Launch (*setup)())
{
    std::FILE* out = stdout;
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], "--result") == 0) out = std::fopen(argv[i + 1], "w");
    if (!out) return 2;
    try {
        cudaDeviceProp prop{};
        wl::cuda::check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
        const Launch launch = setup();
        launch();
        wl::cuda::check(cudaGetLastError(), "the launch");
        wl::cuda::check(cudaDeviceSynchronize(), "the kernel");
        const wl::cuda::Timing t = wl::cuda::time_runs(launch, false, 0.5);
        wl::cuda::check(cudaDeviceSynchronize(), "the timed kernels");
        std::fprintf(out, "{\"gpu\": %s, \"median_ms\": %.6g, \"min_ms\": %.6g, \"samples\": %d}\n",
                     json_string(prop.name).c_str(), t.median_ms, t.min_ms, t.samples);
    } catch (const std::exception& e) {
        std::fprintf(out, "{\"error\": %s}\n", json_string(e.what()).c_str());
    }
    if (out != stdout) std::fclose(out);
    return 0;
}

}  // namespace wl::grade::gpu
