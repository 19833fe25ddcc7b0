// The GPU as a tracing lab backend (nvcc only): the first launch runs the
// lab's PTX instrumented (wl::cuda::trace_on_gpu) and records the watched
// block; every later launch (the further passes of a reduction) runs the
// kernel as nvcc compiled it. The lab's kernels.cuh gives kernel_pointer().
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "labs/common/kernel_instance.h"
#include "warplab/cuda/device.h"
#include "warplab/trace/record.h"
#if defined(WARPLAB_HAVE_PTX_TRACE)
#include "warplab/cuda/ptx_trace.h"
#endif

namespace wl::ptx {
class Module;
}

namespace warplab {

// Where this build cannot record on the GPU, why not (empty: it can).
inline std::string gpu_trace_unavailable()
{
#if defined(WARPLAB_HAVE_PTX_TRACE)
    return "";
#else
    return "the GPU trace is being rebuilt to record from the lab's PTX and is not in this build; "
           "trace on the emulator (--backend cpu)";
#endif
}

struct GpuTraceBackend : wl::cuda::Device {
    const wl::ptx::Module& module;
    const char* kernel_namespace;  // the lab's (versions.h)
    std::uint32_t watched_block = 0;
    bool record = true;  // record the first launch
    std::vector<wl::trace::LaneRecord> records;

    GpuTraceBackend(const wl::ptx::Module& m, const char* ns, std::uint32_t watched, bool rec)
        : module(m), kernel_namespace(ns), watched_block(watched), record(rec)
    {
        if (record && !gpu_trace_unavailable().empty()) throw std::invalid_argument(gpu_trace_unavailable());
    }

    template <class V, class Args, class... A>
    void launch(KernelInstance<V, Args> kernel, dim3 grid, dim3 block, A&&... args)
    {
        if (!record) {
            wl::cuda::Device::launch(V::meta.kernel, kernel_pointer(kernel), grid, block, std::forward<A>(args)...);
            return;
        }
        record = false;
#if defined(WARPLAB_HAVE_PTX_TRACE)
        const std::vector<wl::ptx::Arg> list{wl::ptx::Arg(args)...};
        records = wl::cuda::trace_on_gpu(
            {&module, entry_name(kernel_namespace, kernel), grid, block, 0, list, {watched_block}});
#endif
    }
};

}  // namespace warplab
