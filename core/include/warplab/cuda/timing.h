// Timing on the GPU: CUDA events around each run, warm-up
// first, L2 flushed before each timed run unless warm, repeated until the
// relative standard error of the mean is under 1 % or the time budget is spent.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "warplab/cuda/device.h"

namespace wl::cuda {

struct Timing {
    double median_ms = 0, min_ms = 0, rse = 0;
    int samples = 0;
};

// Writes a buffer twice the size of L2, so the next run starts with a cold cache.
class L2Flusher {
public:
    L2Flusher()
    {
        int device = 0, l2 = 0;
        check(cudaGetDevice(&device), "cudaGetDevice");
        check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "cudaDeviceGetAttribute(L2)");
        bytes_ = std::size_t(l2) * 2;
        check(cudaMalloc(&buffer_, bytes_), "cudaMalloc(L2 flush buffer)");
    }
    ~L2Flusher() { cudaFree(buffer_); }
    L2Flusher(const L2Flusher&) = delete;
    L2Flusher& operator=(const L2Flusher&) = delete;
    void flush() { check(cudaMemsetAsync(buffer_, ++value_, bytes_), "cudaMemsetAsync(L2 flush)"); }

private:
    void* buffer_ = nullptr;
    std::size_t bytes_ = 0;
    unsigned char value_ = 0;
};

template <class Run> Timing time_runs(Run&& run, bool warm, double seconds, int warmups = 3, int max_samples = 2000)
{
    L2Flusher flusher;
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    for (int i = 0; i < warmups; ++i) run();
    check(cudaDeviceSynchronize(), "warm-up");

    std::vector<double> ms;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    double rse = 1;
    while (static_cast<int>(ms.size()) < max_samples) {
        if (!warm) flusher.flush();
        check(cudaEventRecord(start), "cudaEventRecord");
        run();
        check(cudaEventRecord(stop), "cudaEventRecord");
        check(cudaEventSynchronize(stop), "timed run");
        float t = 0;
        check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
        ms.push_back(t);
        if (ms.size() >= 10) {
            double mean = 0, var = 0;
            for (double x : ms) mean += x;
            mean /= ms.size();
            for (double x : ms) var += (x - mean) * (x - mean);
            rse = std::sqrt(var / (ms.size() - 1) / ms.size()) / mean;
            if (rse < 0.01 && ms.size() >= 20) break;
            if (std::chrono::steady_clock::now() > deadline) break;
        }
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::sort(ms.begin(), ms.end());
    return Timing{ms[ms.size() / 2], ms.front(), rse, static_cast<int>(ms.size())};
}

}  // namespace wl::cuda
