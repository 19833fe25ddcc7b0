// The GPU backend for lab drivers (nvcc only): the same alloc / free / copy /
// launch interface as wl::emu::Emulator, with every CUDA call checked.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "warplab/cuda/deadline.h"

namespace wl::cuda {

inline void check(cudaError_t e, const std::string& what)
{
    if (e != cudaSuccess) throw std::runtime_error("CUDA error in " + what + ": " + cudaGetErrorString(e));
}

// Waits for `event`, as cudaEventSynchronize, within the GPU deadline (deadline.h).
inline void wait_for_event(cudaEvent_t event, const std::string& kernel)
{
    wait_within_deadline(
        [&] {
            const cudaError_t e = cudaEventQuery(event);
            if (e == cudaErrorNotReady) return false;
            check(e, kernel);
            return true;
        },
        kernel);
}

// Waits for all work queued so far, as cudaDeviceSynchronize, within the GPU deadline.
inline void finish_within_deadline(const std::string& kernel)
{
    cudaEvent_t done = nullptr;
    check(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), "cudaEventCreate");
    check(cudaEventRecord(done), "cudaEventRecord");
    wait_for_event(done, kernel);
    cudaEventDestroy(done);
    check(cudaDeviceSynchronize(), kernel);
}

// Refuses, in one sentence, work whose device buffers need `bytes` when the
// GPU has less free: "<what> needs N MiB, more than the GPU's M MiB of free memory".
inline void require_free_memory(std::size_t bytes, const std::string& what)
{
    std::size_t free_bytes = 0, total_bytes = 0;
    check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    if (bytes > free_bytes)
        throw std::invalid_argument(what + " needs " + std::to_string(bytes >> 20) + " MiB, more than the GPU's " +
                                    std::to_string(free_bytes >> 20) + " MiB of free memory");
}

class Device {
public:
    template <class T> T* alloc(std::size_t count)
    {
        void* p = nullptr;
        check(cudaMalloc(&p, count * sizeof(T)), "cudaMalloc(" + std::to_string(count * sizeof(T)) + " bytes)");
        return static_cast<T*>(p);
    }
    void free(void* p)
    {
        if (!gpu_abandoned()) cudaFree(p);  // it would wait for the kernel still running
    }
    template <class T> void zero(T* p, std::size_t count) { check(cudaMemset(p, 0, count * sizeof(T)), "cudaMemset"); }
    // A kernel's workspace: at least `bytes`, zeroed when allocated, the same
    // memory on every call that fits (so a timed launch allocates nothing;
    // kernels that count in it reset their counters). Freed with the Device.
    void* scratch(std::size_t bytes)
    {
        if (bytes > scratch_bytes_) {
            void* p = nullptr;
            check(cudaMalloc(&p, bytes), "cudaMalloc(" + std::to_string(bytes) + " bytes of workspace)");
            scratch_.reset(p, [](void* q) {
                if (!gpu_abandoned()) cudaFree(q);
            });
            check(cudaMemset(p, 0, bytes), "cudaMemset of workspace");
            scratch_bytes_ = bytes;
        }
        return scratch_.get();
    }
    unsigned multiprocessors() const
    {
        int device = 0, sms = 0;
        check(cudaGetDevice(&device), "cudaGetDevice");
        check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
        return static_cast<unsigned>(sms);
    }
    template <class T> void copy_to_device(T* dst, const T* src, std::size_t count)
    {
        check(cudaMemcpy(dst, src, count * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy to device");
    }
    // Waits for the kernels queued before it within the GPU deadline: a copy
    // back is where a run that never synchronised would wait forever.
    template <class T> void copy_to_host(T* dst, const T* src, std::size_t count)
    {
        finish_within_deadline(last_kernel);
        check(cudaMemcpy(dst, src, count * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy to host");
    }

    // Launches and checks the launch.
    template <class... P, class... A>
    void launch(const char* name, void (*kernel)(P...), dim3 grid, dim3 block, A&&... args)
    {
        launch_with_shared(name, kernel, grid, block, 0, std::forward<A>(args)...);
    }

    // As launch, with `shared_bytes` of dynamic shared memory (above 48 KB the
    // kernel's limit is raised first, as CUDA requires).
    template <class... P, class... A>
    void launch_with_shared(const char* name, void (*kernel)(P...), dim3 grid, dim3 block, unsigned shared_bytes, A&&... args)
    {
        static_assert(sizeof...(P) == sizeof...(A), "launch: wrong number of kernel arguments");
        if (shared_bytes > 48 * 1024)
            check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared_bytes)),
                  std::string("shared memory limit of ") + name);
        last_kernel = name;
        kernel<<<grid, block, shared_bytes>>>(static_cast<P>(std::forward<A>(args))...);
        check(cudaGetLastError(), std::string("launch of ") + name);
        if (synchronize_each_launch) finish_within_deadline(name);
    }

    bool synchronize_each_launch = true;  // turn off for timing
    std::string last_kernel = "the last kernel";  // what a wait past the deadline names

private:
    std::shared_ptr<void> scratch_;
    std::size_t scratch_bytes_ = 0;
};

}  // namespace wl::cuda
