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
// This header compiles with nvcc and with the host compiler alike: it names
// ptx::Module without including ptx.h (whose emulator names, dim3 among them,
// clash with the CUDA runtime's), and takes grid and block as Dims, which
// convert from either dim3. Device pointers may come from cudaMalloc or from
// device_alloc below: both live in the device's primary context.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "warplab/ptx/arg.h"
#include "warplab/trace/record.h"

namespace wl::ptx {
class Module;
struct KernelInfo;
}

namespace wl::cuda {

// A grid or block shape; converts from CUDA's dim3 and from the emulator's.
struct Dims {
    unsigned x = 1, y = 1, z = 1;
    Dims() = default;
    Dims(unsigned x_, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
    template <class D>
        requires requires(const D& d) { d.x + d.y + d.z; }
    Dims(const D& d) : x(d.x), y(d.y), z(d.z)  // NOLINT: implicit on purpose
    {
    }
};

// A module-scope variable (__device__, __constant__) of a whole program's
// module, where NVIDIA's runtime loaded it: `warplab run --backend gpu`.
struct ProgramVariable {
    std::string name;     // as the PTX declares it
    void* address = nullptr;  // the program's copy (cudaGetSymbolAddress)
    std::size_t bytes = 0;
};

struct TraceLaunch {
    const ptx::Module* module = nullptr;
    std::string kernel;                       // as ptx::Module::find takes it
    Dims grid, block;
    std::uint32_t dynamic_shared_bytes = 0;
    std::span<const ptx::Arg> args;           // pointers are device pointers
    std::vector<std::uint32_t> watched_blocks{0};
    // The instrumented module is a module of its own, with its own variables:
    // these are copied into it before the launch and back after it.
    std::vector<ProgramVariable> variables;
    bool cooperative = false;  // cuLaunchCooperativeKernel: this_grid().sync() works
};

// Runs the instrumented kernel once; returns the watched blocks' records in
// the order the emulator's grouping expects (by block, thread, seq).
std::vector<trace::LaneRecord> trace_on_gpu(const TraceLaunch& launch);

// A kernel of a PTX module loaded on the GPU as it is, not instrumented: for
// kernels that exist only as PTX (a user's own file), in the untraced launches
// of a run and in timing. The module is JIT-compiled once per process.
class GpuKernel {
public:
    // Throws std::invalid_argument when the module has no such kernel,
    // std::runtime_error with the driver's message when it cannot be loaded.
    GpuKernel(const ptx::Module& module, std::string_view kernel);
    // Launches on the default stream (the runtime's as well, so CUDA events
    // time it) and returns without waiting, as a <<<>>> launch does.
    void launch(Dims grid, Dims block, std::span<const ptx::Arg> args, std::uint32_t dynamic_shared_bytes = 0) const;

private:
    const ptx::KernelInfo* info_;
    void* function_;  // CUfunction; cuda.h is not included here
};

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

}  // namespace wl::cuda
