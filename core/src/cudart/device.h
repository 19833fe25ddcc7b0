// The emulated device behind warplab's CUDA runtime: what cuda_api.cpp (the
// CUDA-facing half, which includes NVIDIA's headers) asks of device.cpp (the
// warplab-facing half, on the emulator). Neither CUDA's types nor warplab's
// dim3 appear here: the two declare different dim3s, so no translation unit
// sees both.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include "host_access.h"

namespace wl::cudart {

// What went wrong, in CUDA's terms; cuda_api.cpp maps each to its cudaError_t.
enum class Error {
    InvalidValue,
    InvalidConfiguration,
    LaunchFailure,
    InvalidDeviceFunction,
    InvalidSymbol,
    MemoryAllocation,
    InvalidDevicePointer,
    InvalidMemcpyDirection,
    InvalidPtx,
    CooperativeLaunchTooLarge,
    NotSupported,
};

// A failed call: its error and, when not empty, a line for stderr.
struct Failure : std::runtime_error {
    Failure(Error e, const std::string& line) : std::runtime_error(line), error(e) {}
    Error error;
};

struct Dims {
    unsigned x = 1, y = 1, z = 1;
};

enum class Memory { Device, Managed, Host, Array };  // Array: a CUDA array's texels (cudaMallocArray)
enum class Direction { HostToHost, HostToDevice, DeviceToHost, DeviceToDevice, Default };

// A kernel's attributes, as cudaFuncGetAttributes reports them.
struct KernelAttributes {
    std::size_t static_shared = 0, local_bytes = 0;
    int max_threads = 0;
    int max_dynamic_shared = 0;
    int ptx_version = 0;  // 90 for compute_90
};

// The emulated GPU's limits: an H100's (the occupancy model's, and its data sheet's).
struct DeviceLimits {
    const char* name;
    int major, minor;
    int warp_size, max_threads_per_block, max_block_dims[3], max_grid_dims[3];
    int multiprocessors, max_threads_per_sm, max_blocks_per_sm, registers_per_sm, registers_per_block;
    std::size_t shared_per_block, shared_per_block_optin, shared_per_sm, reserved_shared_per_block;
    std::size_t global_bytes, constant_bytes, l2_bytes;
    int memory_bus_width;
};
const DeviceLimits& device_limits();

// Registration, from the host code nvcc generates. Handles are opaque to the caller.
void* register_module(const void* fatbin_wrapper);
void register_kernel(void* module, const void* host_function, const char* mangled);
void register_variable(void* module, const void* host_variable, const char* name, std::size_t bytes);
void* register_managed_variable(void* module, const void* host_variable, const char* name, std::size_t bytes);  // its device address

// The kernel a host function (a __global__ function's address) launches; throws InvalidDeviceFunction.
const void* kernel_of(const void* host_function);
// Runs the kernel with args[i] pointing at its i-th argument; throws Failure.
// Cooperative (cudaLaunchCooperativeKernel): every block resident at once,
// this_grid().sync() a barrier of the grid; a grid larger than the device
// holds at once is refused. `site`: the calls that made it (call_site), for
// the launch's host line.
void launch(const void* kernel, Dims grid, Dims block, void** args, std::size_t dynamic_shared, bool cooperative,
            const CallSite& site);
KernelAttributes kernel_attributes(const void* kernel);
void set_max_dynamic_shared(const void* kernel, int bytes);  // throws InvalidValue past the device's limit
// Blocks of this kernel one SM holds (the occupancy model; registers not counted: no ptxas here).
int blocks_per_sm(const void* kernel, int block_threads, std::size_t dynamic_shared);

// site: the return address of the runtime call, for messages that name the program's line.
void* allocate(std::size_t bytes, Memory kind, const CallSite& site);
void release(void* p, Memory kind, const CallSite& site);  // throws InvalidValue for memory of another kind or not allocated
void copy(void* dst, const void* src, std::size_t bytes, Direction direction, const char* call);
void fill(void* dst, int value, std::size_t bytes, const char* call);
// Throws InvalidValue unless [p, p + bytes) lies in one device allocation; `what` names p in the message.
void check_device_range(const void* p, std::size_t bytes, const char* call, const char* what);
// The kind of allocation holding p (a __device__ variable's is Device), or none: host memory of the program's own.
std::optional<Memory> memory_at(const void* p);
// A __device__ or __constant__ variable's storage, by the host variable registered for it.
std::span<unsigned char> symbol(const void* host_variable);

// The program waits for the device (cudaDeviceSynchronize and kin): managed memory is the host's again.
void synchronise();
// cudaDeviceReset: every allocation ends (none is left to report as never freed).
void reset(const CallSite& site);

// The device heap kernels' malloc and new draw on (cudaLimitMallocHeapSize), in bytes.
std::size_t heap_bytes();
void set_heap_bytes(std::size_t bytes);

// The emulator's time for every launch so far, in milliseconds (not GPU time).
double emulated_clock_ms();

}  // namespace wl::cudart
