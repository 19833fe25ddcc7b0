// The one run of a version, written once over the backends (the emulator, the
// GPU trace, the GPU timing build: anything with alloc / free / copy_to_device /
// copy_to_host / launch). A lab describes itself to it as a type D:
//
//     struct Description {
//         using Versions = std::tuple<V1, V2, ...>;          // versions.h
//         static constexpr const KernelFiles& kernels = kKernels;
//         static constexpr const char* ptx = kPtx;          // the lab's embedded PTX
//         // Bad input, refused in one sentence before anything runs (the launch by validate_launch).
//         template <class V> static void validate(const RunRequest& req);
//         // Inputs in, one launch (or a lab's several), outputs back and checked into `out`.
//         template <class V, class Backend> static void run(Backend& be, const RunRequest& req, RunResult& out);
//         // Optional: the device bytes a request needs, checked before the GPU trace allocates.
//         static DeviceBytes device_bytes(const RunRequest& req);
//     };
//
// labs/common/make_lab.h makes the registry's Lab from it (host compiler);
// labs/common/gpu_backends.cuh its GPU entry points (nvcc).
#pragma once
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "labs/common/lab.h"
#include "labs/common/version.h"
#include "warplab/dim3.h"

namespace warplab {

// What a request needs on the device, and how to name it when it does not fit ("shape 64×64").
struct DeviceBytes {
    std::size_t bytes = 0;
    std::string what;
};

inline std::invalid_argument unknown_version(const char* lab, const std::string& version)
{
    return std::invalid_argument(std::string("unknown ") + lab + " version '" + version + "'");
}

// Labs whose kernels index with unsigned int over n elements: n is 1 to 2^31 - 1.
inline void require_n_in_32_bits(std::size_t n)
{
    if (n == 0) throw std::invalid_argument("n must be at least 1");
    if (n > (std::size_t(1) << 31) - 1)
        throw std::invalid_argument("n = " + std::to_string(n) + " is above the kernels' limit of 2^31 - 1 elements (32-bit indices)");
}

// A run on the emulator holds `bytes` of host memory (its inputs, outputs and
// their device copies): refused when more than is free. `what`: "n = 4096", "shape 64×64".
inline void require_host_memory(const RunRequest& req, std::size_t bytes, const std::string& what)
{
    if (req.backend != BackendChoice::Gpu && bytes > available_host_bytes())
        throw std::invalid_argument(what + " needs " + std::to_string(bytes >> 20) + " MiB, more than the " +
                                    std::to_string(available_host_bytes() >> 20) + " MiB of free memory");
}

// A 2D block's or grid's shape as a caption writes it: "16×16".
inline std::string dims(const dim3& d) { return std::to_string(d.x) + "×" + std::to_string(d.y); }

// A grid CUDA can launch: gridDim.y and gridDim.z are at most 65535. `what` names the problem
// ("shape 70000×64", "a 4096×2160 picture"); `blocks` is what the lab calls them ("groups").
inline void require_grid_rows(const dim3& grid, const std::string& what, const char* blocks = "blocks")
{
    for (const auto& [count, axis] : {std::pair{grid.y, "y"}, std::pair{grid.z, "z"}})
        if (count > 65535)
            throw std::invalid_argument(what + " needs " + std::to_string(count) + " " + blocks + " along " + axis + ", above CUDA's 65535");
}

// The launch of a request, checked before anything runs, the same way in every
// lab: a grid CUDA can launch (above), and the request's watched block one of
// it (x first). `what` and `blocks` as above.
inline void validate_launch(const RunRequest& req, const dim3& grid, const std::string& what, const char* blocks = "blocks")
{
    require_grid_rows(grid, what, blocks);
    if (req.watched_block < std::size_t(grid.x) * grid.y * grid.z) return;
    std::string shape = std::to_string(grid.x);
    if (grid.y > 1 || grid.z > 1) shape += "×" + std::to_string(grid.y);
    if (grid.z > 1) shape += "×" + std::to_string(grid.z);
    throw std::invalid_argument("watched block " + std::to_string(req.watched_block) + " does not exist: " + req.version +
                                " runs " + shape + " " + blocks + " for " + what);
}

// Writes n elements of the backend's memory at `device` with fill(std::span<T>)
// and returns what read(std::span<const T>) makes of them (the reference): in
// place where the host may write the backend's memory (Backend::host_memory:
// the emulator's), else in a host copy sent to the device.
template <class T, class Backend, class Fill, class Read>
auto fill_on_device(Backend& be, T* device, std::size_t n, Fill fill, Read read)
{
    if constexpr (requires { Backend::host_memory; }) {
        const std::span<T> in(device, n);
        fill(in);
        return read(std::span<const T>(in));
    } else {
        std::vector<T> in(n);
        fill(std::span<T>(in));
        be.copy_to_device(device, in.data(), n);
        return read(std::span<const T>(in));
    }
}

// Runs the request's version on `be`: the result as D::run leaves it (no
// trace: the backend holds its records).
template <class D, class Backend> RunResult run_on(Backend& be, const RunRequest& req)
{
    RunResult out;
    if (!with_version<typename D::Versions>(req.version, [&](auto v) { D::template run<decltype(v)>(be, req, out); }))
        throw unknown_version(D::kernels.lab, req.version);
    return out;
}

}  // namespace warplab
