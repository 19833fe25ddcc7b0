// A trace recorded on the GPU from the same PTX the emulator runs.
//
// The PTX is instrumented: after each memory access, atomic, barrier and warp
// collective, every lane of a watched block appends the LaneRecord the
// emulator would make for it to a device buffer. The instrumented module is
// loaded with the driver API (cuModuleLoadData) and launched with
// cuLaunchKernel; timing never uses it (benchmarks run nvcc's ordinary build).
//
//   std::vector<wl::ptx::Arg> args{d_in, d_out, n};   // device pointers from cudaMalloc
//   auto records = wl::cuda::trace_on_gpu({&module, "reduce_v1<256u, float>", grid, block, 0, args, {0}});
//
// Built only where CUDA is (library warplab_cuda); throws std::runtime_error
// with the driver's message, std::invalid_argument for a launch that does not
// fit the kernel.
//
// Include this from a .cpp file, not a .cu: ptx.h brings the emulator's CUDA
// names (dim3, ...), which clash with the CUDA runtime's headers. Device
// memory for the arguments comes from the functions at the end (driver API;
// cudaMalloc'ed pointers work as well: both use the primary context).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "warplab/ptx/ptx.h"
#include "warplab/trace/record.h"

namespace wl::cuda {

struct TraceLaunch {
    const ptx::Module* module = nullptr;
    std::string kernel;                       // as ptx::Module::find takes it
    dim3 grid, block;
    std::uint32_t dynamic_shared_bytes = 0;
    std::span<const ptx::Arg> args;           // pointers are device pointers
    std::vector<std::uint32_t> watched_blocks{0};
};

// Runs the instrumented kernel once; returns the watched blocks' records in
// the order the emulator's grouping expects (by block, thread, seq).
std::vector<trace::LaneRecord> trace_on_gpu(const TraceLaunch& launch);

// The instrumented PTX text itself (for tests and for reading).
std::string instrument(const ptx::Module& module, std::string_view kernel);

// Why the GPU trace cannot run here ("no CUDA driver: ...", "no CUDA device"),
// or empty when it can.
std::string gpu_unavailable_reason();

// Device memory through the driver API, for callers that include no CUDA header.
void* device_alloc(std::size_t bytes);
void device_free(void* p) noexcept;
void copy_to_device(void* dst, const void* src, std::size_t bytes);
void copy_to_host(void* dst, const void* src, std::size_t bytes);
void device_memset(void* dst, unsigned char byte, std::size_t bytes);

}  // namespace wl::cuda
