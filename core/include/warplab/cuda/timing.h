// Timing on the GPU: CUDA events around each run, warm-up
// first, L2 flushed before each timed run unless warm, repeated until the
// relative standard error of the mean is under 1 % or the time budget is spent.
// Runs to be compared are timed in turns, one of each per round, and each
// only once the host has queued all of it.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <chrono>
#include <cmath>
#include <functional>
#include <vector>

#include "warplab/cuda/device.h"

namespace wl::cuda {

struct Timing {
    double median_ms = 0, min_ms = 0, rse = 0;
    int samples = 0;
};

// Reads every Word (an int4) of `in` once, four loads in flight per thread,
// and writes nothing unless the XOR of all it read is 0x7f7f7f7f, which
// neither a buffer of zero bytes nor one of bytes 1 can give: the compiler
// cannot drop the loads, and no store competes with them. The L2 flush below
// runs it, and so does the benchmarks' read-only probe.
template <class Word> __global__ void read_all(const Word* __restrict__ in, std::size_t count, int* never_written)
{
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
    std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    int x = 0;
    for (; i + 3 * stride < count; i += 4 * stride) {
        const Word a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];
        x ^= (a.x ^ a.y ^ a.z ^ a.w) ^ (b.x ^ b.y ^ b.z ^ b.w) ^ (c.x ^ c.y ^ c.z ^ c.w) ^ (d.x ^ d.y ^ d.z ^ d.w);
    }
    for (; i < count; i += stride) x ^= in[i].x ^ in[i].y ^ in[i].z ^ in[i].w;
    if (x == 0x7f7f7f7f) *never_written = x;
}

// Reads a buffer twice the size of L2, so the next run starts with a cold
// cache that holds only clean lines. A memset would leave up to a cache of
// dirty lines, written back to DRAM during the timed run: ncu showed 23 MB
// of writes inside a read-only reduction of 1 GiB.
class L2Flusher {
public:
    L2Flusher()
    {
        int device = 0, l2 = 0;
        check(cudaGetDevice(&device), "cudaGetDevice");
        check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "cudaDeviceGetAttribute(L2)");
        check(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute(SMs)");
        count_ = std::size_t(l2) * 2 / sizeof(int4);
        check(cudaMalloc(&buffer_, count_ * sizeof(int4) + sizeof(int)), "cudaMalloc(L2 flush buffer)");
        check(cudaMemset(buffer_, 0, count_ * sizeof(int4)), "cudaMemset(L2 flush buffer)");
        check(cudaDeviceSynchronize(), "cudaMemset(L2 flush buffer)");
    }
    ~L2Flusher()
    {
        if (!gpu_abandoned()) cudaFree(buffer_);  // deadline.h
    }
    L2Flusher(const L2Flusher&) = delete;
    L2Flusher& operator=(const L2Flusher&) = delete;
    void flush()
    {
        read_all<<<unsigned(sms_) * 8, 256>>>(buffer_, count_, reinterpret_cast<int*>(buffer_ + count_));
        check(cudaGetLastError(), "L2 flush");
    }

private:
    int4* buffer_ = nullptr;
    std::size_t count_ = 0;
    int sms_ = 0;
};

// Holds the GPU until the host has queued the whole of a timed run, so that
// the time between its two events is the GPU's alone. Without it a run whose
// host side is slow (a library choosing its kernel, a cache gone cold while
// other runs were timed) leaves the GPU idle after the start event, and the
// wait counts as the run's: timed in turns without it, cuBLAS's BF16 median
// at 4096^3 was 13 % above its minimum, v14's 1.6 %; with it, both within
// 1 %. It lets go when the host says so, or by
// itself after `timeout_ns`, so that a run that waits for the GPU inside
// costs a slow sample, not a hang.
template <class Flag> __global__ void wait_for_release(const volatile Flag* released, unsigned long long timeout_ns)
{
    unsigned long long start = 0, now = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (*released == 0 && now - start < timeout_ns);
}

class LaunchGate {
public:
    LaunchGate()
    {
        void* host = nullptr;
        void* device = nullptr;
        check(cudaHostAlloc(&host, sizeof(int), cudaHostAllocMapped), "cudaHostAlloc(launch gate)");
        check(cudaHostGetDevicePointer(&device, host, 0), "cudaHostGetDevicePointer(launch gate)");
        host_ = static_cast<volatile int*>(host);
        device_ = static_cast<const int*>(device);
    }
    ~LaunchGate()
    {
        if (!gpu_abandoned()) cudaFreeHost(const_cast<int*>(host_));  // deadline.h
    }
    LaunchGate(const LaunchGate&) = delete;
    LaunchGate& operator=(const LaunchGate&) = delete;
    // The GPU stops here until open(), 20 ms at most.
    void close()
    {
        *host_ = 0;
        wait_for_release<<<1, 1>>>(device_, 20'000'000ull);
        check(cudaGetLastError(), "launch gate");
    }
    void open()
    {
        std::atomic_thread_fence(std::memory_order_seq_cst);
        *host_ = 1;
    }

private:
    volatile int* host_ = nullptr;
    const int* device_ = nullptr;
};

// The relative standard error of the mean of `ms`.
inline double relative_standard_error(const std::vector<double>& ms)
{
    double mean = 0, var = 0;
    for (double x : ms) mean += x;
    mean /= ms.size();
    for (double x : ms) var += (x - mean) * (x - mean);
    return std::sqrt(var / (ms.size() - 1) / ms.size()) / mean;
}

// Several runs timed in turns: each round times every run once, L2 flushed
// before each unless warm, and starts one run later than the round before.
// The GPU's clocks and temperature drift over the seconds a table takes
// (recordings of the same kernel made minutes apart differ by a few percent);
// in turns the drift falls on every run alike, so the ratio of two runs'
// medians measures the runs, not when each was timed. Rounds go on until
// every run's relative standard error is under 1 % (20 rounds at least) or
// `seconds` per run are spent (10 rounds at least).
inline std::vector<Timing> time_in_turns(const std::vector<std::function<void()>>& runs, bool warm, double seconds, int warmups = 3,
                                         int max_rounds = 2000)
{
    const std::size_t n = runs.size();
    if (n == 0) return {};
    L2Flusher flusher;
    LaunchGate gate;
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    for (const auto& run : runs)
        for (int i = 0; i < warmups; ++i) run();
    finish_within_deadline("the warm-up runs");

    std::vector<std::vector<double>> ms(n);
    std::vector<double> rse(n, 1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds * n);
    for (int round = 0; round < max_rounds; ++round) {
        for (std::size_t turn = 0; turn < n; ++turn) {
            const std::size_t r = (round + turn) % n;
            gate.close();
            if (!warm) flusher.flush();
            check(cudaEventRecord(start), "cudaEventRecord");
            runs[r]();
            check(cudaEventRecord(stop), "cudaEventRecord");
            gate.open();
            wait_for_event(stop, "the timed run");
            float t = 0;
            check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
            ms[r].push_back(t);
        }
        if (round + 1 < 10) continue;
        for (std::size_t r = 0; r < n; ++r) rse[r] = relative_standard_error(ms[r]);
        const bool steady = round + 1 >= 20 && std::all_of(rse.begin(), rse.end(), [](double x) { return x < 0.01; });
        if (steady || std::chrono::steady_clock::now() > deadline) break;
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::vector<Timing> out;
    for (std::size_t r = 0; r < n; ++r) {
        std::sort(ms[r].begin(), ms[r].end());
        out.push_back(Timing{ms[r][ms[r].size() / 2], ms[r].front(), rse[r], static_cast<int>(ms[r].size())});
    }
    return out;
}

// One run, timed alone.
template <class Run> Timing time_runs(Run&& run, bool warm, double seconds, int warmups = 3, int max_samples = 2000)
{
    return time_in_turns({std::function<void()>(std::forward<Run>(run))}, warm, seconds, warmups, max_samples).front();
}

}  // namespace wl::cuda
