// What every lab's GPU benchmark shares (nvcc only): a backend that does not
// synchronise after each launch, and a table row made from a timing.
#pragma once
#include <string>
#include <utility>

#include "labs/common/bench.h"
#include "labs/common/kernel_instance.h"
#include "warplab/cuda/device.h"
#include "warplab/cuda/timing.h"

namespace warplab {

// Launches a version's kernel as nvcc compiled it: the lab's kernels.cuh
// gives kernel_pointer() for each instance.
struct TimingDevice : wl::cuda::Device {
    TimingDevice() { synchronize_each_launch = false; }

    using wl::cuda::Device::launch;
    template <class V, class Args, class... A>
    void launch(KernelInstance<V, Args> kernel, dim3 grid, dim3 block, A&&... args)
    {
        wl::cuda::Device::launch(V::meta.kernel, kernel_pointer(kernel), grid, block, std::forward<A>(args)...);
    }
};

// giga_work: what one run does, in billions of the rate's unit (GB moved, or GFLOP).
inline BenchRow timed_row(std::string version, const wl::cuda::Timing& t, double giga_work, bool ok)
{
    BenchRow r;
    r.version = std::move(version);
    r.ok = ok;
    r.median_ms = t.median_ms;
    r.min_ms = t.min_ms;
    r.rse = t.rse;
    r.samples = t.samples;
    r.rate = giga_work / (t.median_ms / 1e3);
    return r;
}

}  // namespace warplab
