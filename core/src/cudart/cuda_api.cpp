// warplab's CUDA runtime, the CUDA-facing half: the functions a program built
// with `nvcc -cudart none` calls (cuda_runtime_api.h's, with their own
// signatures, and the registration and launch entry points nvcc's host code
// calls), the error state CUDA keeps, and CUDA's structs filled in. The work
// is device.cpp's, on the emulator; everything runs in order, so streams and
// events only keep their handles and the emulator's clock.
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <cuda_profiler_api.h>

#include "cuda_facing.h"
#include "device.h"
#include "texture.h"

namespace wl::cudart {
namespace {

thread_local cudaError_t last_error = cudaSuccess;
std::atomic<cudaError_t> sticky_error{cudaSuccess};  // a kernel fault: every later call fails, as on a GPU

cudaError_t cuda_error(Error e)
{
    switch (e) {
    case Error::InvalidValue: return cudaErrorInvalidValue;
    case Error::InvalidConfiguration: return cudaErrorInvalidConfiguration;
    case Error::LaunchFailure: return cudaErrorLaunchFailure;
    case Error::InvalidDeviceFunction: return cudaErrorInvalidDeviceFunction;
    case Error::InvalidSymbol: return cudaErrorInvalidSymbol;
    case Error::MemoryAllocation: return cudaErrorMemoryAllocation;
    case Error::InvalidDevicePointer: return cudaErrorInvalidDevicePointer;
    case Error::InvalidMemcpyDirection: return cudaErrorInvalidMemcpyDirection;
    case Error::InvalidPtx: return cudaErrorInvalidPtx;
    case Error::CooperativeLaunchTooLarge: return cudaErrorCooperativeLaunchTooLarge;
    case Error::NotSupported: return cudaErrorNotSupported;
    }
    return cudaErrorUnknown;
}

cudaError_t fail(cudaError_t e)
{
    last_error = e;
    return e;
}

// Runs the call's work; a Failure becomes its cudaError_t (and its line on stderr).
template <class F> cudaError_t guarded(F&& work)
{
    if (const cudaError_t sticky = sticky_error.load(); sticky != cudaSuccess) return fail(sticky);
    try {
        work();
        return cudaSuccess;
    } catch (const Failure& f) {
        if (*f.what()) std::fprintf(stderr, "warplab: %s\n", f.what());
        const cudaError_t e = cuda_error(f.error);
        if (f.error == Error::LaunchFailure) sticky_error = e;
        return fail(e);
    }
}

// A call that waits for the device. After a kernel fault it returns the fault, and still waits:
// the kernels have ended, so the host touching managed memory after it is no mistake.
cudaError_t wait_for_device()
{
    if (sticky_error.load() != cudaSuccess) synchronise();
    return guarded(synchronise);
}

Direction direction(cudaMemcpyKind kind)
{
    switch (kind) {
    case cudaMemcpyHostToHost: return Direction::HostToHost;
    case cudaMemcpyHostToDevice: return Direction::HostToDevice;
    case cudaMemcpyDeviceToHost: return Direction::DeviceToHost;
    case cudaMemcpyDeviceToDevice: return Direction::DeviceToDevice;
    case cudaMemcpyDefault: return Direction::Default;
    }
    throw Failure(Error::InvalidMemcpyDirection, "a copy of kind " + std::to_string(int(kind)) + ", which is no cudaMemcpyKind");
}

Dims dims(dim3 d) { return Dims{d.x, d.y, d.z}; }

struct CallConfiguration {
    dim3 grid, block;
    size_t shared;
    cudaStream_t stream;
};
thread_local std::vector<CallConfiguration> configurations;  // <<< >>> pushes, the launch stub pops

// Streams and events: handles the program passes back; work runs when it is issued.
struct CUstream_handle {
    int id;
};
struct CUevent_handle {
    double at_ms = -1;  // the emulator's clock when recorded; < 0: never recorded
};

// Every launch entry point comes here, so that the call site it takes reaches the program's call.
cudaError_t launch_kernel(const void* kernel, dim3 grid, dim3 block, void** args, size_t shared, bool cooperative = false)
{
    const CallSite site = call_site();
    return guarded([&] { launch(kernel, dims(grid), dims(block), args, shared, cooperative, site); });
}

// A launch by the kernel's host function (cudaLaunchKernel and its kin).
cudaError_t launch_function(const void* func, dim3 grid, dim3 block, void** args, size_t shared, bool cooperative)
{
    const void* kernel = nullptr;
    if (const cudaError_t e = guarded([&] { kernel = kernel_of(func); }); e != cudaSuccess) return e;
    return launch_kernel(kernel, grid, block, args, shared, cooperative);
}

template <class P> cudaError_t null_argument(const P* p, const char* call)
{
    if (p) return cudaSuccess;
    std::fprintf(stderr, "warplab: %s: a null pointer for its result\n", call);
    return fail(cudaErrorInvalidValue);
}

// *out = value, where the program gave somewhere to put it.
template <class T> cudaError_t give(T* out, T value, const char* call)
{
    if (!out) return null_argument(out, call);
    *out = value;
    return cudaSuccess;
}

// *out = a new allocation of `kind`; every allocating entry point comes here,
// so that the call site it takes reaches the program's call (as launch_kernel's).
cudaError_t allocate_into(void** out, size_t size, Memory kind, const char* call)
{
    if (!out) return null_argument(out, call);
    const CallSite site = call_site();
    return guarded([&] { *out = allocate(size, kind, site); });
}

// Host ranges cudaHostRegister pinned, by base: their bytes.
std::mutex& registered_mutex()
{
    static std::mutex* m = new std::mutex;
    return *m;
}
std::map<std::uintptr_t, size_t>& registered()
{
    static auto* ranges = new std::map<std::uintptr_t, size_t>;
    return *ranges;
}
bool registered_at_locked(const void* p)
{
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    auto it = registered().upper_bound(a);
    if (it == registered().begin()) return false;
    --it;
    return a < it->first + it->second;
}
bool registered_at(const void* p)
{
    std::lock_guard lock(registered_mutex());
    return registered_at_locked(p);
}

}  // namespace

cudaError_t unsupported(const char* function)
{
    static std::mutex m;
    static std::set<std::string> told;
    {
        std::lock_guard lock(m);
        if (told.insert(function).second)
            std::fprintf(stderr, "warplab: %s is not supported by warplab's CUDA runtime (cudaErrorNotSupported)\n", function);
    }
    return fail(cudaErrorNotSupported);
}

}  // namespace wl::cudart

using namespace wl::cudart;

// ---- registration and launch: what nvcc's host code calls (crt/host_runtime.h) --

extern "C" {

void** CUDARTAPI __cudaRegisterFatBinary(void* fatCubin) { return static_cast<void**>(register_module(fatCubin)); }
void CUDARTAPI __cudaRegisterFatBinaryEnd(void**) {}
void CUDARTAPI __cudaUnregisterFatBinary(void**) {}  // modules stay: the program's atexit handlers may still launch
char CUDARTAPI __cudaInitModule(void**) { return 1; }

void CUDARTAPI __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun, char* deviceFun, const char*, int, uint3*, uint3*,
                                      dim3*, dim3*, int*)
{
    register_kernel(fatCubinHandle, hostFun, deviceFun);
}

void CUDARTAPI __cudaRegisterVar(void** fatCubinHandle, char* hostVar, char*, const char* deviceName, int, size_t size, int, int)
{
    register_variable(fatCubinHandle, hostVar, deviceName, size);
}

void CUDARTAPI __cudaRegisterManagedVar(void** fatCubinHandle, void** hostVarPtrAddress, char*, const char* deviceName, int,
                                        size_t size, int, int)
{
    *hostVarPtrAddress = register_managed_variable(fatCubinHandle, hostVarPtrAddress, deviceName, size);
}

unsigned CUDARTAPI __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, struct CUstream_st* stream)
{
    configurations.push_back({gridDim, blockDim, sharedMem, stream});
    return 0;
}

cudaError_t CUDARTAPI __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem, void* stream)
{
    if (configurations.empty()) return fail(cudaErrorMissingConfiguration);
    const CallConfiguration c = configurations.back();
    configurations.pop_back();
    *gridDim = c.grid, *blockDim = c.block, *sharedMem = c.shared;
    *static_cast<cudaStream_t*>(stream) = c.stream;
    return cudaSuccess;
}

cudaError_t CUDARTAPI __cudaGetKernel(cudaKernel_t* kernel, const void* hostFun)
{
    return guarded([&] { *kernel = static_cast<cudaKernel_t>(const_cast<void*>(kernel_of(hostFun))); });
}

cudaError_t CUDARTAPI __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem, cudaStream_t)
{
    return launch_kernel(kernel, gridDim, blockDim, args, sharedMem);
}

cudaError_t CUDARTAPI __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                                              cudaStream_t)
{
    return launch_kernel(kernel, gridDim, blockDim, args, sharedMem);
}

}  // extern "C"

// ---- the runtime API (cuda_runtime_api.h) ---------------------------------

extern "C" {

cudaError_t CUDARTAPI cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem, cudaStream_t)
{
    return launch_function(func, gridDim, blockDim, args, sharedMem, false);
}

cudaError_t CUDARTAPI cudaLaunchCooperativeKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                                                  cudaStream_t)
{
    return launch_function(func, gridDim, blockDim, args, sharedMem, true);
}

namespace {
// Launch attributes that only hint at scheduling, caching or memory ordering
// between kernels: the emulator runs each launch whole, in order, so none
// changes what it does. Programmatic stream serialization (cub's launches on
// sm_90) lets a kernel start before the one ahead of it ends, which the
// kernel must allow for; running them one after the other is always right.
bool only_a_hint(cudaLaunchAttributeID id)
{
    switch (id) {
    case cudaLaunchAttributeIgnore:
    case cudaLaunchAttributeAccessPolicyWindow:
    case cudaLaunchAttributeSynchronizationPolicy:
    case cudaLaunchAttributeClusterSchedulingPolicyPreference:
    case cudaLaunchAttributeProgrammaticStreamSerialization:
    case cudaLaunchAttributePriority:
    case cudaLaunchAttributeMemSyncDomainMap:
    case cudaLaunchAttributeMemSyncDomain:
    case cudaLaunchAttributePreferredSharedMemoryCarveout: return true;
    default: return false;
    }
}
}  // namespace

// cudaLaunchKernelEx's launch: of its attributes, only cooperative changes what
// the emulator does; the hints are accepted; the others (clusters, events) refused.
cudaError_t CUDARTAPI cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args)
{
    if (!config) return null_argument(config, "cudaLaunchKernelExC");
    bool cooperative = false;
    for (unsigned i = 0; i < config->numAttrs; ++i) {
        const cudaLaunchAttribute& a = config->attrs[i];
        if (a.id == cudaLaunchAttributeCooperative) cooperative = a.val.cooperative != 0;
        else if (!only_a_hint(a.id))
            return unsupported(("cudaLaunchKernelEx with launch attribute " + std::to_string(int(a.id))).c_str());
    }
    return launch_function(func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes, cooperative);
}

// errors
cudaError_t CUDARTAPI cudaGetLastError(void)
{
    const cudaError_t e = last_error;
    last_error = sticky_error.load();
    return e;
}
cudaError_t CUDARTAPI cudaPeekAtLastError(void) { return last_error; }

const char* CUDARTAPI cudaGetErrorName(cudaError_t error)
{
    const char* name = error_name(error);
    return name ? name : "unrecognized error code";
}

const char* CUDARTAPI cudaGetErrorString(cudaError_t error)
{
    switch (error) {  // the words NVIDIA's runtime uses for the errors programs meet most
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorInvalidSymbol: return "invalid device symbol";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidPtx: return "a PTX JIT compilation failed";
    case cudaErrorNotSupported: return "operation not supported";
    case cudaErrorMissingConfiguration: return "__global__ function call is not configured";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorCooperativeLaunchTooLarge: return "too many blocks in cooperative launch";
    default: return cudaGetErrorName(error);
    }
}

// device
cudaError_t CUDARTAPI cudaGetDeviceCount(int* count) { return give(count, 1, "cudaGetDeviceCount"); }
cudaError_t CUDARTAPI cudaGetDevice(int* device) { return give(device, 0, "cudaGetDevice"); }
cudaError_t CUDARTAPI cudaSetDevice(int device) { return device == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice); }
cudaError_t CUDARTAPI cudaSetDeviceFlags(unsigned int) { return cudaSuccess; }
cudaError_t CUDARTAPI cudaDeviceSynchronize(void) { return wait_for_device(); }
cudaError_t CUDARTAPI cudaDeviceReset(void)
{
    const CallSite site = call_site();
    return guarded([&] { reset(site); });
}
// cuda_profiler_api.h: a profiler's collection starts and stops around a region; there is none to tell
cudaError_t CUDARTAPI cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t CUDARTAPI cudaProfilerStop(void) { return cudaSuccess; }
cudaError_t CUDARTAPI cudaDriverGetVersion(int* version) { return give(version, CUDART_VERSION, "cudaDriverGetVersion"); }
cudaError_t CUDARTAPI cudaRuntimeGetVersion(int* version) { return give(version, CUDART_VERSION, "cudaRuntimeGetVersion"); }

cudaError_t CUDARTAPI cudaGetDeviceProperties(struct cudaDeviceProp* prop, int device)
{
    if (!prop) return null_argument(prop, "cudaGetDeviceProperties");
    if (device != 0) return fail(cudaErrorInvalidDevice);
    const DeviceLimits& l = device_limits();
    std::memset(prop, 0, sizeof *prop);
    std::snprintf(prop->name, sizeof prop->name, "%s", l.name);
    prop->totalGlobalMem = l.global_bytes;
    prop->sharedMemPerBlock = l.shared_per_block;
    prop->regsPerBlock = l.registers_per_block;
    prop->warpSize = l.warp_size;
    prop->memPitch = 2147483647;
    prop->maxThreadsPerBlock = l.max_threads_per_block;
    for (int i = 0; i < 3; ++i) prop->maxThreadsDim[i] = l.max_block_dims[i], prop->maxGridSize[i] = l.max_grid_dims[i];
    prop->totalConstMem = l.constant_bytes;
    prop->major = l.major, prop->minor = l.minor;
    prop->multiProcessorCount = l.multiprocessors;
    prop->canMapHostMemory = 1;
    prop->concurrentKernels = 1;
    prop->unifiedAddressing = 1;
    prop->memoryBusWidth = l.memory_bus_width;
    prop->l2CacheSize = int(l.l2_bytes);
    prop->maxThreadsPerMultiProcessor = l.max_threads_per_sm;
    prop->sharedMemPerMultiprocessor = l.shared_per_sm;
    prop->regsPerMultiprocessor = l.registers_per_sm;
    prop->managedMemory = 1;
    prop->cooperativeLaunch = 1;
    prop->sharedMemPerBlockOptin = l.shared_per_block_optin;
    prop->maxBlocksPerMultiProcessor = l.max_blocks_per_sm;
    prop->reservedSharedMemPerBlock = l.reserved_shared_per_block;
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device)
{
    if (!value) return null_argument(value, "cudaDeviceGetAttribute");
    if (device != 0) return fail(cudaErrorInvalidDevice);
    const DeviceLimits& l = device_limits();
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = l.max_threads_per_block; break;
    case cudaDevAttrMaxBlockDimX: *value = l.max_block_dims[0]; break;
    case cudaDevAttrMaxBlockDimY: *value = l.max_block_dims[1]; break;
    case cudaDevAttrMaxBlockDimZ: *value = l.max_block_dims[2]; break;
    case cudaDevAttrMaxGridDimX: *value = l.max_grid_dims[0]; break;
    case cudaDevAttrMaxGridDimY: *value = l.max_grid_dims[1]; break;
    case cudaDevAttrMaxGridDimZ: *value = l.max_grid_dims[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = int(l.shared_per_block); break;
    case cudaDevAttrTotalConstantMemory: *value = int(l.constant_bytes); break;
    case cudaDevAttrWarpSize: *value = l.warp_size; break;
    case cudaDevAttrMaxRegistersPerBlock: *value = l.registers_per_block; break;
    case cudaDevAttrMultiProcessorCount: *value = l.multiprocessors; break;
    case cudaDevAttrComputeCapabilityMajor: *value = l.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = l.minor; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = int(l.shared_per_sm); break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = l.registers_per_sm; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = l.max_threads_per_sm; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = int(l.shared_per_block_optin); break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = l.max_blocks_per_sm; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: *value = int(l.reserved_shared_per_block); break;
    case cudaDevAttrL2CacheSize: *value = int(l.l2_bytes); break;
    case cudaDevAttrGlobalMemoryBusWidth: *value = l.memory_bus_width; break;
    case cudaDevAttrManagedMemory: case cudaDevAttrUnifiedAddressing: case cudaDevAttrConcurrentKernels:
    case cudaDevAttrCooperativeLaunch: case cudaDevAttrCanMapHostMemory: *value = 1; break;
    case cudaDevAttrIntegrated: *value = 0; break;
    default:
        std::fprintf(stderr, "warplab: cudaDeviceGetAttribute: attribute %d is not emulated (cudaErrorNotSupported)\n", int(attr));
        return fail(cudaErrorNotSupported);
    }
    return cudaSuccess;
}

// memory
cudaError_t CUDARTAPI cudaMalloc(void** devPtr, size_t size) { return allocate_into(devPtr, size, Memory::Device, "cudaMalloc"); }
cudaError_t CUDARTAPI cudaMallocManaged(void** devPtr, size_t size, unsigned int) { return allocate_into(devPtr, size, Memory::Managed, "cudaMallocManaged"); }
cudaError_t CUDARTAPI cudaMallocHost(void** ptr, size_t size) { return allocate_into(ptr, size, Memory::Host, "cudaMallocHost"); }
cudaError_t CUDARTAPI cudaHostAlloc(void** pHost, size_t size, unsigned int) { return allocate_into(pHost, size, Memory::Host, "cudaHostAlloc"); }
cudaError_t CUDARTAPI cudaHostGetDevicePointer(void** pDevice, void* pHost, unsigned int)
{
    if (!pDevice) return null_argument(pDevice, "cudaHostGetDevicePointer");
    *pDevice = pHost;  // one address space
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height)
{
    if (!devPtr || !pitch) return null_argument(static_cast<void*>(nullptr), "cudaMallocPitch");
    *pitch = (width + 511) / 512 * 512;  // rows start 512-byte aligned, as on the GPU
    const CallSite site = call_site();
    return guarded([&] { *devPtr = allocate(*pitch * height, Memory::Device, site); });
}
cudaError_t CUDARTAPI cudaFree(void* devPtr)
{
    const CallSite site = call_site();
    return guarded([&] {
        synchronise();  // cudaFree waits for the device
        release(devPtr, Memory::Device, site);
    });
}
cudaError_t CUDARTAPI cudaFreeHost(void* ptr)
{
    const CallSite site = call_site();
    return guarded([&] { release(ptr, Memory::Host, site); });
}

cudaError_t CUDARTAPI cudaMemGetInfo(size_t* free, size_t* total)
{
    if (!free || !total) return null_argument(static_cast<void*>(nullptr), "cudaMemGetInfo");
    *total = device_limits().global_bytes;
    *free = *total;  // emulated memory is the host's; it has no device to run out of first
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind)
{
    return guarded([&] {
        synchronise();  // a plain cudaMemcpy waits for the kernels before it
        copy(dst, src, count, direction(kind), "cudaMemcpy");
    });
}
cudaError_t CUDARTAPI cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind, cudaStream_t)
{
    return guarded([&] { copy(dst, src, count, direction(kind), "cudaMemcpyAsync"); });
}
cudaError_t CUDARTAPI cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                                   enum cudaMemcpyKind kind)
{
    return guarded([&] {
        if (width > dpitch || width > spitch) throw Failure(Error::InvalidValue, "cudaMemcpy2D: a row is wider than its pitch");
        synchronise();
        for (size_t row = 0; row < height; ++row)
            copy(static_cast<char*>(dst) + row * dpitch, static_cast<const char*>(src) + row * spitch, width, direction(kind),
                 "cudaMemcpy2D");
    });
}
cudaError_t CUDARTAPI cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                                        enum cudaMemcpyKind kind, cudaStream_t)
{
    return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}
cudaError_t CUDARTAPI cudaMemset(void* devPtr, int value, size_t count)
{
    return guarded([&] { fill(devPtr, value, count, "cudaMemset"); });
}
cudaError_t CUDARTAPI cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t)
{
    return guarded([&] { fill(devPtr, value, count, "cudaMemsetAsync"); });
}
cudaError_t CUDARTAPI cudaMemset2D(void* devPtr, size_t pitch, int value, size_t width, size_t height)
{
    return guarded([&] {
        if (width > pitch && height > 1) throw Failure(Error::InvalidValue, "cudaMemset2D: a row is wider than its pitch");
        for (size_t row = 0; row < height; ++row) fill(static_cast<char*>(devPtr) + row * pitch, value, width, "cudaMemset2D");
    });
}
cudaError_t CUDARTAPI cudaMemset2DAsync(void* devPtr, size_t pitch, int value, size_t width, size_t height, cudaStream_t)
{
    return cudaMemset2D(devPtr, pitch, value, width, height);
}
// 3D: extent.width bytes of each row, extent.height rows of each slice (ysize rows apart), extent.depth slices
cudaError_t CUDARTAPI cudaMalloc3D(struct cudaPitchedPtr* pitchedDevPtr, struct cudaExtent extent)
{
    if (!pitchedDevPtr) return null_argument(pitchedDevPtr, "cudaMalloc3D");
    const size_t pitch = (extent.width + 511) / 512 * 512;  // as cudaMallocPitch
    const CallSite site = call_site();
    return guarded([&] {
        void* p = allocate(pitch * extent.height * extent.depth, Memory::Device, site);
        *pitchedDevPtr = cudaPitchedPtr{p, pitch, extent.width, extent.height};
    });
}
cudaError_t CUDARTAPI cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent)
{
    return guarded([&] {
        if (extent.width > pitchedDevPtr.pitch && extent.height * extent.depth > 1)
            throw Failure(Error::InvalidValue, "cudaMemset3D: a row is wider than its pitch");
        if (extent.height > pitchedDevPtr.ysize && extent.depth > 1)
            throw Failure(Error::InvalidValue, "cudaMemset3D: a slice has more rows than the pointer's ysize");
        const size_t slice = pitchedDevPtr.pitch * pitchedDevPtr.ysize;
        for (size_t z = 0; z < extent.depth; ++z)
            for (size_t y = 0; y < extent.height; ++y)
                fill(static_cast<char*>(pitchedDevPtr.ptr) + z * slice + y * pitchedDevPtr.pitch, value, extent.width, "cudaMemset3D");
    });
}
cudaError_t CUDARTAPI cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent, cudaStream_t)
{
    return cudaMemset3D(pitchedDevPtr, value, extent);
}

// The stream-ordered allocator: the stream's earlier work has run, so the memory is allocated or freed at once
cudaError_t CUDARTAPI cudaMallocAsync(void** devPtr, size_t size, cudaStream_t)
{
    return allocate_into(devPtr, size, Memory::Device, "cudaMallocAsync");
}
cudaError_t CUDARTAPI cudaFreeAsync(void* devPtr, cudaStream_t)
{
    const CallSite site = call_site();
    return guarded([&] { release(devPtr, Memory::Device, site); });
}

// What memory a pointer is in. Memory no allocation holds is the program's own (unregistered) host memory.
cudaError_t CUDARTAPI cudaPointerGetAttributes(struct cudaPointerAttributes* attributes, const void* ptr)
{
    if (!attributes) return null_argument(attributes, "cudaPointerGetAttributes");
    std::optional<Memory> kind = memory_at(ptr);
    if (!kind && registered_at(ptr)) kind = Memory::Host;
    void* p = const_cast<void*>(ptr);
    *attributes = cudaPointerAttributes{};
    attributes->device = 0;
    if (!kind) {
        attributes->type = cudaMemoryTypeUnregistered;
        attributes->device = -2;  // what NVIDIA's runtime gives for memory of no device
    } else if (*kind == Memory::Managed) {
        attributes->type = cudaMemoryTypeManaged, attributes->devicePointer = p, attributes->hostPointer = p;
    } else if (*kind == Memory::Host) {
        attributes->type = cudaMemoryTypeHost, attributes->devicePointer = p, attributes->hostPointer = p;  // one address space
    } else {
        attributes->type = cudaMemoryTypeDevice, attributes->devicePointer = p;
    }
    return cudaSuccess;
}

// cudaHostRegister pins memory the program allocated itself: the emulator's host memory needs no pinning,
// so only the range is kept, for cudaPointerGetAttributes and cudaHostUnregister.
cudaError_t CUDARTAPI cudaHostRegister(void* ptr, size_t size, unsigned int)
{
    if (!ptr || size == 0) return fail(cudaErrorInvalidValue);
    std::lock_guard lock(registered_mutex());
    if (registered_at_locked(ptr)) return fail(cudaErrorHostMemoryAlreadyRegistered);
    registered()[reinterpret_cast<std::uintptr_t>(ptr)] = size;
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaHostUnregister(void* ptr)
{
    std::lock_guard lock(registered_mutex());
    if (registered().erase(reinterpret_cast<std::uintptr_t>(ptr)) == 0) return fail(cudaErrorHostMemoryNotRegistered);
    return cudaSuccess;
}

// Limits: the device heap's size is the emulator's; the stack and printf's
// buffer are only remembered (a thread's local memory has a fixed room, and
// printf writes straight to stdout). The defaults are an H100's.
namespace {
std::size_t g_stack_limit = 1024, g_printf_fifo_limit = std::size_t{1} << 20;
}  // namespace
cudaError_t CUDARTAPI cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    switch (limit) {
    case cudaLimitMallocHeapSize: wl::cudart::set_heap_bytes(value); return cudaSuccess;
    case cudaLimitStackSize: g_stack_limit = value; return cudaSuccess;
    case cudaLimitPrintfFifoSize: g_printf_fifo_limit = value; return cudaSuccess;
    default: return unsupported("cudaDeviceSetLimit of this limit");
    }
}
cudaError_t CUDARTAPI cudaDeviceGetLimit(size_t* pValue, enum cudaLimit limit)
{
    if (!pValue) return null_argument(pValue, "cudaDeviceGetLimit");
    switch (limit) {
    case cudaLimitMallocHeapSize: *pValue = wl::cudart::heap_bytes(); return cudaSuccess;
    case cudaLimitStackSize: *pValue = g_stack_limit; return cudaSuccess;
    case cudaLimitPrintfFifoSize: *pValue = g_printf_fifo_limit; return cudaSuccess;
    default: return unsupported("cudaDeviceGetLimit of this limit");
    }
}

// Hints of where managed memory should live and how it is used: the emulator
// has one memory, so each only checks its range (memory of one allocation, as
// on a GPU, where a bad range is cudaErrorInvalidValue) and changes nothing.
cudaError_t CUDARTAPI cudaMemPrefetchAsync(const void* devPtr, size_t count, struct cudaMemLocation, unsigned int, cudaStream_t)
{
    return guarded([&] { check_device_range(devPtr, count, "cudaMemPrefetchAsync", "range"); });
}
cudaError_t CUDARTAPI cudaMemAdvise(const void* devPtr, size_t count, enum cudaMemoryAdvise, struct cudaMemLocation)
{
    return guarded([&] { check_device_range(devPtr, count, "cudaMemAdvise", "range"); });
}

// CUDA arrays and texture objects (texture.cpp)
struct cudaChannelFormatDesc CUDARTAPI cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f)
{
    return cudaChannelFormatDesc{x, y, z, w, f};
}
cudaError_t CUDARTAPI cudaMallocArray(cudaArray_t* array, const struct cudaChannelFormatDesc* desc, size_t width, size_t height,
                                      unsigned int flags)
{
    if (!array) return null_argument(array, "cudaMallocArray");
    if (!desc) return null_argument(desc, "cudaMallocArray");
    const CallSite site = call_site();
    return guarded([&] { *array = make_array(*desc, width, height, flags, site); });
}
cudaError_t CUDARTAPI cudaFreeArray(cudaArray_t array)
{
    const CallSite site = call_site();
    return guarded([&] {
        synchronise();  // as cudaFree, it waits for the device
        free_array(array, site);
    });
}
cudaError_t CUDARTAPI cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src, size_t spitch, size_t width,
                                          size_t height, enum cudaMemcpyKind kind)
{
    return guarded([&] {
        synchronise();
        copy_to_array(dst, ArrayRegion{wOffset, hOffset, width, height}, src, spitch, direction(kind), "cudaMemcpy2DToArray");
    });
}
cudaError_t CUDARTAPI cudaMemcpy2DFromArray(void* dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                            size_t width, size_t height, enum cudaMemcpyKind kind)
{
    return guarded([&] {
        synchronise();
        copy_from_array(dst, dpitch, src, ArrayRegion{wOffset, hOffset, width, height}, direction(kind), "cudaMemcpy2DFromArray");
    });
}
cudaError_t CUDARTAPI cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src, size_t count,
                                        enum cudaMemcpyKind kind)
{
    return guarded([&] {
        synchronise();
        copy_run_to_array(dst, wOffset, hOffset, src, count, direction(kind));
    });
}
cudaError_t CUDARTAPI cudaCreateTextureObject(cudaTextureObject_t* pTexObject, const struct cudaResourceDesc* pResDesc,
                                              const struct cudaTextureDesc* pTexDesc, const struct cudaResourceViewDesc* pResViewDesc)
{
    if (!pTexObject) return null_argument(pTexObject, "cudaCreateTextureObject");
    if (!pResDesc || !pTexDesc) {
        std::fprintf(stderr, "warplab: cudaCreateTextureObject: a null resource or texture descriptor\n");
        return fail(cudaErrorInvalidValue);
    }
    return guarded([&] { *pTexObject = make_texture_object(*pResDesc, *pTexDesc, pResViewDesc); });
}
cudaError_t CUDARTAPI cudaDestroyTextureObject(cudaTextureObject_t texObject)
{
    return guarded([&] { destroy_texture_object(texObject); });
}

cudaError_t CUDARTAPI cudaMemcpyToSymbol(const void* symbol_, const void* src, size_t count, size_t offset, enum cudaMemcpyKind kind)
{
    return guarded([&] {
        const auto storage = symbol(symbol_);
        if (offset > storage.size() || count > storage.size() - offset)
            throw Failure(Error::InvalidValue, "cudaMemcpyToSymbol: " + std::to_string(count) + " bytes at offset " + std::to_string(offset) +
                                                   " into a " + std::to_string(storage.size()) + "-byte variable");
        copy(storage.data() + offset, src, count, kind == cudaMemcpyDeviceToDevice ? Direction::DeviceToDevice : Direction::Default,
             "cudaMemcpyToSymbol");
    });
}
cudaError_t CUDARTAPI cudaMemcpyFromSymbol(void* dst, const void* symbol_, size_t count, size_t offset, enum cudaMemcpyKind kind)
{
    return guarded([&] {
        const auto storage = symbol(symbol_);
        if (offset > storage.size() || count > storage.size() - offset)
            throw Failure(Error::InvalidValue, "cudaMemcpyFromSymbol: " + std::to_string(count) + " bytes at offset " + std::to_string(offset) +
                                                   " from a " + std::to_string(storage.size()) + "-byte variable");
        copy(dst, storage.data() + offset, count, kind == cudaMemcpyDeviceToDevice ? Direction::DeviceToDevice : Direction::Default,
             "cudaMemcpyFromSymbol");
    });
}
cudaError_t CUDARTAPI cudaMemcpyToSymbolAsync(const void* symbol_, const void* src, size_t count, size_t offset, enum cudaMemcpyKind kind,
                                              cudaStream_t)
{
    return cudaMemcpyToSymbol(symbol_, src, count, offset, kind);
}
cudaError_t CUDARTAPI cudaMemcpyFromSymbolAsync(void* dst, const void* symbol_, size_t count, size_t offset, enum cudaMemcpyKind kind,
                                                cudaStream_t)
{
    return cudaMemcpyFromSymbol(dst, symbol_, count, offset, kind);
}
cudaError_t CUDARTAPI cudaGetSymbolAddress(void** devPtr, const void* symbol_)
{
    if (!devPtr) return null_argument(devPtr, "cudaGetSymbolAddress");
    return guarded([&] { *devPtr = symbol(symbol_).data(); });
}
cudaError_t CUDARTAPI cudaGetSymbolSize(size_t* size, const void* symbol_)
{
    if (!size) return null_argument(size, "cudaGetSymbolSize");
    return guarded([&] { *size = symbol(symbol_).size(); });
}

// streams and events: in order, at once
cudaError_t CUDARTAPI cudaStreamCreate(cudaStream_t* pStream)
{
    if (!pStream) return null_argument(pStream, "cudaStreamCreate");
    static std::atomic<int> streams{0};
    *pStream = reinterpret_cast<cudaStream_t>(new CUstream_handle{++streams});
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaStreamCreateWithFlags(cudaStream_t* pStream, unsigned int) { return cudaStreamCreate(pStream); }
cudaError_t CUDARTAPI cudaStreamCreateWithPriority(cudaStream_t* pStream, unsigned int, int) { return cudaStreamCreate(pStream); }
cudaError_t CUDARTAPI cudaStreamDestroy(cudaStream_t stream)
{
    delete reinterpret_cast<CUstream_handle*>(stream);
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t) { return wait_for_device(); }
cudaError_t CUDARTAPI cudaStreamQuery(cudaStream_t) { return guarded([] {}); }
cudaError_t CUDARTAPI cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned int) { return guarded([] {}); }

// A host function in a stream runs after the stream's earlier work, which has run: at once, the
// device synchronised (the function may read managed memory the stream's kernels wrote).
cudaError_t CUDARTAPI cudaLaunchHostFunc(cudaStream_t, cudaHostFn_t fn, void* userData)
{
    if (!fn) return fail(cudaErrorInvalidValue);
    if (const cudaError_t e = guarded(synchronise); e != cudaSuccess) return e;
    fn(userData);
    return cudaSuccess;
}
// The callback is told the stream's error: a kernel fault before it, or cudaSuccess.
cudaError_t CUDARTAPI cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* userData, unsigned int flags)
{
    if (!callback || flags != 0) return fail(cudaErrorInvalidValue);
    synchronise();
    callback(stream, sticky_error.load(), userData);
    return cudaSuccess;
}
// Priorities order streams' work; the emulator runs it all in order. An H100's range: 0 (least) to -5 (greatest).
cudaError_t CUDARTAPI cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority)
{
    if (leastPriority) *leastPriority = 0;
    if (greatestPriority) *greatestPriority = -5;
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaEventCreate(cudaEvent_t* event)
{
    if (!event) return null_argument(event, "cudaEventCreate");
    *event = reinterpret_cast<cudaEvent_t>(new CUevent_handle);
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int) { return cudaEventCreate(event); }
cudaError_t CUDARTAPI cudaEventDestroy(cudaEvent_t event)
{
    delete reinterpret_cast<CUevent_handle*>(event);
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaEventRecord(cudaEvent_t event, cudaStream_t)
{
    if (!event) return fail(cudaErrorInvalidResourceHandle);
    reinterpret_cast<CUevent_handle*>(event)->at_ms = emulated_clock_ms();
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaEventSynchronize(cudaEvent_t) { return wait_for_device(); }
cudaError_t CUDARTAPI cudaEventQuery(cudaEvent_t) { return guarded([] {}); }
cudaError_t CUDARTAPI cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end)
{
    if (!ms) return null_argument(ms, "cudaEventElapsedTime");
    if (!start || !end) return fail(cudaErrorInvalidResourceHandle);
    const auto* a = reinterpret_cast<const CUevent_handle*>(start);
    const auto* b = reinterpret_cast<const CUevent_handle*>(end);
    if (a->at_ms < 0 || b->at_ms < 0) return fail(cudaErrorInvalidResourceHandle);
    static std::once_flag told;
    std::call_once(told, [] {
        std::fprintf(stderr, "warplab: cudaEventElapsedTime gives the emulator's time for the launches between the events "
                             "(host time on this machine), not GPU time\n");
    });
    *ms = float(b->at_ms - a->at_ms);
    return cudaSuccess;
}

// kernels
cudaError_t CUDARTAPI cudaFuncGetAttributes(struct cudaFuncAttributes* attr, const void* func)
{
    if (!attr) return null_argument(attr, "cudaFuncGetAttributes");
    return guarded([&] {
        const KernelAttributes a = kernel_attributes(kernel_of(func));
        std::memset(attr, 0, sizeof *attr);
        attr->sharedSizeBytes = a.static_shared;
        attr->localSizeBytes = a.local_bytes;
        attr->maxThreadsPerBlock = a.max_threads;
        attr->numRegs = 0;  // ptxas's count; the emulator runs the PTX, which has no fixed one
        attr->ptxVersion = a.ptx_version;
        attr->binaryVersion = a.ptx_version;
        attr->maxDynamicSharedSizeBytes = a.max_dynamic_shared;
        attr->preferredShmemCarveout = -1;
    });
}
cudaError_t CUDARTAPI cudaFuncSetAttribute(const void* func, enum cudaFuncAttribute attr, int value)
{
    return guarded([&] {
        const void* kernel = kernel_of(func);
        if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) set_max_dynamic_shared(kernel, value);
        // the others (carve-out, cluster shapes) change nothing the emulator models
    });
}
cudaError_t CUDARTAPI cudaFuncSetCacheConfig(const void* func, enum cudaFuncCache)
{
    return guarded([&] { kernel_of(func); });
}
// The split of L1 and shared memory: a hint the emulator, which models neither's size, has no use for
cudaError_t CUDARTAPI cudaDeviceSetCacheConfig(enum cudaFuncCache) { return cudaSuccess; }
cudaError_t CUDARTAPI cudaDeviceGetCacheConfig(enum cudaFuncCache* pCacheConfig)
{
    return give(pCacheConfig, cudaFuncCachePreferNone, "cudaDeviceGetCacheConfig");
}
cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func, int blockSize, size_t dynamicSMemSize)
{
    if (!numBlocks) return null_argument(numBlocks, "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    return guarded([&] { *numBlocks = blocks_per_sm(kernel_of(func), blockSize, dynamicSMemSize); });
}
cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* func, int blockSize,
                                                                             size_t dynamicSMemSize, unsigned int)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, func, blockSize, dynamicSMemSize);
}

}  // extern "C"
