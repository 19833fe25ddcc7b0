// The GPU as a tracing lab backend (nvcc only): the first launch runs the
// lab's PTX instrumented (wl::cuda::trace_on_gpu) and records the watched
// block; every later launch (the further passes of a reduction) runs the
// kernel as nvcc compiled it. The lab's kernels.cuh gives kernel_pointer().
// With a user's --file, every launch runs the user's kernel from its PTX
// instead (UserKernelOnGpu): the first instrumented, the later ones as they
// are, since no nvcc build of it is linked in.
#pragma once
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "labs/common/kernel_instance.h"
#include "labs/common/lab.h"
#include "labs/common/user_kernel.h"
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

#if defined(WARPLAB_HAVE_PTX_TRACE)
// The user's --file kernel on the GPU, from its PTX: each instance (the
// template arguments of the version it stands in for) loaded once, so that
// timing loops launch it without reloading.
class UserKernelOnGpu {
public:
    UserKernelOnGpu(std::string file, std::string kernel, const KernelFiles& lab, std::optional<std::uint32_t> shared_bytes)
        : lab_(lab), user_(std::move(file), std::move(kernel), lab, shared_bytes) {}

    const UserKernel& user() const { return user_; }

    // The launch that trace_on_gpu records.
    template <class V, class Args>
    wl::cuda::TraceLaunch traced(KernelInstance<V, Args> k, dim3 grid, dim3 block, unsigned shared_bytes,
                                 std::span<const wl::ptx::Arg> args, std::uint32_t watched)
    {
        const UserKernel::Entry& e = user_.entry(user_launch(lab_, k, block, shared_bytes));
        return {e.module, e.name, grid, block, e.shared_bytes, args, {watched}};
    }

    template <class V, class Args>
    void launch(KernelInstance<V, Args> k, dim3 grid, dim3 block, unsigned shared_bytes, std::span<const wl::ptx::Arg> args)
    {
        const UserKernel::Entry& e = user_.entry(user_launch(lab_, k, block, shared_bytes));
        auto it = loaded_.find(&e);
        if (it == loaded_.end()) it = loaded_.emplace(&e, wl::cuda::GpuKernel(*e.module, e.name)).first;
        it->second.launch(grid, block, args, e.shared_bytes);
    }

private:
    const KernelFiles& lab_;
    UserKernel user_;
    std::map<const UserKernel::Entry*, wl::cuda::GpuKernel> loaded_;  // an entry's address is stable (std::map)
};
#endif

struct GpuTraceBackend : wl::cuda::Device, LaunchWithoutShared<GpuTraceBackend> {
    const wl::ptx::Module& module;
    const KernelFiles& kernels;  // the lab's (versions.h)
    std::uint32_t watched_block = 0;
    bool record = true;  // record the first launch
    std::vector<wl::trace::LaneRecord> records;

#if defined(WARPLAB_HAVE_PTX_TRACE)
    std::optional<UserKernelOnGpu> user;  // the request's --file: runs in place of every version's kernel
#endif

    GpuTraceBackend(const wl::ptx::Module& m, const KernelFiles& lab, const RunRequest& req)
        : module(m), kernels(lab), watched_block(req.watched_block), record(req.record)
    {
        const bool from_ptx = record || !req.file.empty();
        if (from_ptx && !gpu_trace_unavailable().empty()) throw std::invalid_argument(gpu_trace_unavailable());
#if defined(WARPLAB_HAVE_PTX_TRACE)
        if (!req.file.empty()) user.emplace(req.file, req.kernel, lab, req.shared_bytes);
#endif
    }

    // For the trace header: which instance of the user's kernel ran, its
    // dynamic shared memory (UserKernel::note) and what nvcc warned about it.
    void describe_user_kernel(RunResult& out) const
    {
#if defined(WARPLAB_HAVE_PTX_TRACE)
        if (user) out.user_kernel = user->user().note(), out.compile_warnings = user->user().warnings();
#else
        (void)out;
#endif
    }

    using LaunchWithoutShared<GpuTraceBackend>::launch;
    template <class V, class Args, class... A>
    void launch_with_shared(KernelInstance<V, Args> kernel, dim3 grid, dim3 block, unsigned shared_bytes, A&&... args)
    {
#if defined(WARPLAB_HAVE_PTX_TRACE)
        const std::vector<wl::ptx::Arg> list{wl::ptx::Arg(args)...};
        if (record) {
            record = false;
            records = wl::cuda::trace_on_gpu(user && user_stands_in<V> ? user->traced(kernel, grid, block, shared_bytes, list, watched_block)
                                                  : wl::cuda::TraceLaunch{&module, entry_name(kernels, kernel), grid,
                                                                          block, shared_bytes, list, {watched_block}});
            return;
        }
        if (user && user_stands_in<V>) {
            last_kernel = user->user().kernel();
            user->launch(kernel, grid, block, shared_bytes, list);
            if (synchronize_each_launch) wl::cuda::finish_within_deadline(user->user().kernel());
            return;
        }
#endif
        wl::cuda::Device::launch_with_shared(V::meta.name, kernel_pointer(kernel), grid, block, shared_bytes,
                                             std::forward<A>(args)...);
    }
};

}  // namespace warplab
