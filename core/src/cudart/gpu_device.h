// The GPU behind `warplab run --backend gpu`: what gpu_intercept.cpp (the
// CUDA-facing half, which stands between the program and NVIDIA's runtime)
// asks of gpu_device.cpp (the warplab-facing half: the program's PTX, the
// watch rules, the instrumented launch). As device.h for the emulator, no
// dim3 appears here, CUDA's or warplab's.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "warplab/cuda/ptx_trace.h"
#include "warplab/cudart/run_record.h"
#include "host_access.h"  // CallSite

namespace wl::cudart::gpu {

// Registration, as nvcc's host code makes it: `module` is the handle NVIDIA's
// runtime returned for the fat binary.
void register_module(void** module, const void* fatbin_wrapper);
void register_kernel(void** module, const void* host_function, const char* mangled);
void register_variable(void** module, const void* host_variable, const char* name, std::size_t bytes);
// CUDA 13's host code launches by a kernel handle that __cudaGetKernel gave for a host function.
void register_kernel_handle(const void* handle, const void* host_function);
const void* host_function_of(const void* handle);  // nullptr for a handle no __cudaGetKernel gave

// A launch the program makes, counted as the emulator counts it.
struct Launch {
    LaunchRecord record;  // index, kernel, shape; error and trace once done
    std::optional<std::uint32_t> watched_block;
    const void* kernel = nullptr;
};
// `site`: the calls that made it (call_site), for the record's host line.
Launch begin_launch(const void* host_function, cuda::Dims grid, cuda::Dims block, std::size_t dynamic_shared,
                    const CallSite& site);

// The program's copy of a variable (cudaGetSymbolAddress), nullptr where it has none.
using SymbolAddress = std::function<void*(const void* host_variable)>;
// Runs a watched launch's kernel instrumented on the GPU in place of the
// program's own launch (it computes the same), and writes its trace. Throws
// std::exception with the reason when it cannot, or when the kernel faults.
void trace_launch(Launch& launch, void** args, bool cooperative, const SymbolAddress& symbol_address);
// Appends the launch's record to the run's list.
void end_launch(const Launch& launch);

// Faults tied to their launches (gpu_faults.h): an unwatched launch given to
// the GPU, called from the program at `site` (call_site); then
// whether the GPU finished it, or the error it reported: the paragraph naming
// the launch, said once ("" after).
void launch_given(const Launch& launch, const CallSite& site);
void launches_finished();
std::string launch_fault(const std::string& error);

}  // namespace wl::cudart::gpu
