// `warplab run --backend gpu`: the program is built against NVIDIA's shared
// runtime (nvcc -cudart shared) and linked with these definitions of the
// entry points its host code calls, which stand in front of the runtime's
// (an executable's symbols come first): each registration is passed on and
// noted (gpu_device.cpp reads the fat binary's PTX), each launch is counted,
// an unwatched one passed on as it is, a watched one run instrumented on the
// GPU in its place (trace_on_gpu), with the same arguments.
#include <dlfcn.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <cuda_runtime_api.h>

#include "gpu_device.h"
#include "gpu_faults.h"

using namespace wl::cudart;

namespace {

// NVIDIA's definition of an entry point this file stands in front of.
template <class F> F* next_definition(const char* name)
{
    void* f = dlsym(RTLD_NEXT, name);
    if (!f) {
        std::fprintf(stderr, "warplab: NVIDIA's CUDA runtime has no %s (build the program with -cudart shared)\n", name);
        std::abort();
    }
    return reinterpret_cast<F*>(f);
}
// Inside the entry point `name`, whose own type is the definition's.
#define WL_NVIDIA(name) static auto* const nvidia = next_definition<decltype(name)>(#name)

// Set while a launch is handled: a launch the runtime makes from within (one
// entry point calling another) passes straight through, counted once.
thread_local bool handling = false;

std::string describe(cudaError_t e) { return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")"; }

wl::cuda::Dims dims(dim3 d) { return wl::cuda::Dims(d.x, d.y, d.z); }

void* program_symbol(const void* host_variable)
{
    void* p = nullptr;
    if (cudaGetSymbolAddress(&p, host_variable) == cudaSuccess) return p;
    cudaGetLastError();  // warplab's question, not the program's error
    return nullptr;
}

// A launch by the program: `nvidia` makes it as the program asked.
template <class Launch>
cudaError_t launch(const void* host_function, dim3 grid, dim3 block, void** args, size_t shared, bool cooperative, Launch nvidia)
{
    if (handling) return nvidia();
    handling = true;
    struct Done {
        ~Done() { handling = false; }
    } done;
    const CallSite site = call_site();
    gpu::Launch l = gpu::begin_launch(host_function, dims(grid), dims(block), shared, site);
    if (!l.watched_block) {
        const cudaError_t e = nvidia();
        if (e != cudaSuccess) {
            l.record.error = describe(e);
        } else {
            // Waited for, as the emulator runs launches in order: a fault the GPU
            // reports only at a later call is tied to this launch. The error stays
            // the context's, so the program's own check still sees it.
            gpu::launch_given(l, site);
            if (const cudaError_t fault = cudaDeviceSynchronize(); fault != cudaSuccess) {
                l.record.error = "kernel fault on the GPU: " + describe(fault);
                if (const std::string said = gpu::launch_fault(describe(fault)); !said.empty()) std::fprintf(stderr, "%s\n", said.c_str());
            } else {
                gpu::launches_finished();
            }
        }
        gpu::end_launch(l);
        return e;
    }
    // The work before it done first: the instrumented kernel runs on the default stream.
    if (const cudaError_t earlier = cudaDeviceSynchronize(); earlier != cudaSuccess) {
        l.record.error = "not run: an earlier launch failed: " + describe(earlier);
        gpu::end_launch(l);
        return earlier;
    }
    std::string why;
    try {
        gpu::trace_launch(l, args, cooperative, program_symbol);
        gpu::end_launch(l);
        return cudaSuccess;
    } catch (const std::exception& e) {
        why = e.what();
    }
    // A fault loses the context, as the program's own launch would have; anything else ran nothing.
    if (const cudaError_t fault = cudaDeviceSynchronize(); fault != cudaSuccess) {
        l.record.error = "kernel fault on the GPU: " + why;
        std::fprintf(stderr, "warplab: kernel %s faulted on the GPU (launch %u): %s\n", l.record.kernel.c_str(), l.record.index, why.c_str());
        gpu::end_launch(l);
        return fault;
    }
    const cudaError_t e = nvidia();
    if (e != cudaSuccess) l.record.error = describe(e);
    else std::fprintf(stderr, "warplab: launch %u of %s is not traced on the GPU: %s\n", l.record.index, l.record.kernel.c_str(), why.c_str());
    gpu::end_launch(l);
    return e;
}

}  // namespace

// ---- registration: nvcc's host code (crt/host_runtime.h) ------------------

extern "C" {

void** CUDARTAPI __cudaRegisterFatBinary(void* fatCubin)
{
    WL_NVIDIA(__cudaRegisterFatBinary);
    void** module = nvidia(fatCubin);
    gpu::register_module(module, fatCubin);
    return module;
}

void CUDARTAPI __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun, char* deviceFun, const char* deviceName,
                                      int thread_limit, uint3* tid, uint3* bid, dim3* bDim, dim3* gDim, int* wSize)
{
    WL_NVIDIA(__cudaRegisterFunction);
    nvidia(fatCubinHandle, hostFun, deviceFun, deviceName, thread_limit, tid, bid, bDim, gDim, wSize);
    gpu::register_kernel(fatCubinHandle, hostFun, deviceFun);
}

void CUDARTAPI __cudaRegisterVar(void** fatCubinHandle, char* hostVar, char* deviceAddress, const char* deviceName, int ext,
                                 size_t size, int constant, int global)
{
    WL_NVIDIA(__cudaRegisterVar);
    nvidia(fatCubinHandle, hostVar, deviceAddress, deviceName, ext, size, constant, global);
    gpu::register_variable(fatCubinHandle, hostVar, deviceName, size);
}

void CUDARTAPI __cudaRegisterManagedVar(void** fatCubinHandle, void** hostVarPtrAddress, char* deviceAddress, const char* deviceName,
                                        int ext, size_t size, int constant, int global)
{
    WL_NVIDIA(__cudaRegisterManagedVar);
    nvidia(fatCubinHandle, hostVarPtrAddress, deviceAddress, deviceName, ext, size, constant, global);
    gpu::register_variable(fatCubinHandle, hostVarPtrAddress, deviceName, size);
}

cudaError_t CUDARTAPI __cudaGetKernel(cudaKernel_t* kernel, const void* hostFun)
{
    WL_NVIDIA(__cudaGetKernel);
    const cudaError_t e = nvidia(kernel, hostFun);
    if (e == cudaSuccess && kernel) gpu::register_kernel_handle(*kernel, hostFun);
    return e;
}

// ---- launches ---------------------------------------------------------------

cudaError_t CUDARTAPI __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                                         cudaStream_t stream)
{
    WL_NVIDIA(__cudaLaunchKernel);
    return launch(gpu::host_function_of(kernel), gridDim, blockDim, args, sharedMem, false,
                  [&] { return nvidia(kernel, gridDim, blockDim, args, sharedMem, stream); });
}

cudaError_t CUDARTAPI __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                                              cudaStream_t stream)
{
    WL_NVIDIA(__cudaLaunchKernel_ptsz);
    return launch(gpu::host_function_of(kernel), gridDim, blockDim, args, sharedMem, false,
                  [&] { return nvidia(kernel, gridDim, blockDim, args, sharedMem, stream); });
}

cudaError_t CUDARTAPI cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem, cudaStream_t stream)
{
    WL_NVIDIA(cudaLaunchKernel);
    return launch(func, gridDim, blockDim, args, sharedMem, false, [&] { return nvidia(func, gridDim, blockDim, args, sharedMem, stream); });
}

cudaError_t CUDARTAPI cudaLaunchCooperativeKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                                                  cudaStream_t stream)
{
    WL_NVIDIA(cudaLaunchCooperativeKernel);
    return launch(func, gridDim, blockDim, args, sharedMem, true, [&] { return nvidia(func, gridDim, blockDim, args, sharedMem, stream); });
}

cudaError_t CUDARTAPI cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args)
{
    WL_NVIDIA(cudaLaunchKernelExC);
    if (!config) return nvidia(config, func, args);
    bool cooperative = false;
    for (unsigned i = 0; i < config->numAttrs; ++i)
        if (config->attrs[i].id == cudaLaunchAttributeCooperative) cooperative = config->attrs[i].val.cooperative != 0;
    return launch(func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes, cooperative,
                  [&] { return nvidia(config, func, args); });
}

}  // extern "C"
