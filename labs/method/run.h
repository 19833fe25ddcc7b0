// The method lab as the run skeleton sees it (labs/common/run_skeleton.h):
// bad input refused, and one launch of a version on any backend with its
// output checked: exactly against the CPU for the kernels that store, untouched
// for the compute-only variants (their stores wait for a condition that is
// false at run time), within an ulp bound of the double-precision value for
// the math functions, within the error bound of any order of additions for
// the sum. Its registry line is in labs/common/registry.cpp.
#pragma once
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "labs/common/bench.h"
#include "labs/common/emulator_backend.h"
#include "labs/common/run_skeleton.h"
#include "labs/method/problem.h"
#include "labs/method/versions.h"
#include "warplab/emu/texture.h"

namespace warplab::method {

// The lab's kernels as PTX (labs/method/kernels.cu, or kernels/ptx/method.ptx
// where the build had no nvcc), embedded in the library.
extern const char kPtx[];

// Bench tables are measured at this many elements: 64 MiB a float array,
// beyond any L2, so that the memory-heavy kernels meet DRAM.
constexpr std::size_t kBenchElements = std::size_t(1) << 24;

// nvcc only (gpu_bench.cu): the GPU trace and check of the run skeleton, and the benchmark.
GpuBackends gpu_backends();
BenchTable bench_on_gpu(const BenchOptions& options);

// A texture object over n floats of device memory at `texels`, as the
// texture version reads them (cudaResourceTypeLinear, point sampling, floats
// read as stored), and its end. On the GPU: CUDA's (nvcc only, gpu_bench.cu).
TextureObject cuda_linear_texture(const float* texels, std::size_t n);
void cuda_destroy_texture(TextureObject texture);

// The same texture on any backend: the emulator's own (warplab/emu/texture.h), or CUDA's.
template <class Backend> TextureObject linear_texture(Backend&, const float* texels, std::size_t n)
{
    if constexpr (std::is_base_of_v<EmulatorBackend, Backend>)
        return wl::emu::create_texture({.texels = reinterpret_cast<const unsigned char*>(texels), .width = n, .pitch = n * sizeof(float),
                                        .linear = true});
    else
        return cuda_linear_texture(texels, n);
}
template <class Backend> void destroy_texture(Backend&, TextureObject texture)
{
    if constexpr (std::is_base_of_v<EmulatorBackend, Backend>) wl::emu::destroy_texture(texture);
    else cuda_destroy_texture(texture);
}

// How one run's output compares with what the version must leave.
struct Checked {
    bool ok = false;
    double value = 0, expected = 0;
    std::string text;
};

// Every element of `out` against the version's expectation (see the file's opening).
template <class V> Checked check_output(const std::vector<float>& in, const std::vector<float>& out)
{
    const std::size_t n = out.size();
    Checked c;
    if constexpr (V::family == Family::Sum) {
        const double exact = exact_sum(in), bound = sum_error_bound(in, in.size() - 1), error = std::abs(double(out[0]) - exact);
        char line[200];
        std::snprintf(line, sizeof line, "sum %.9g, exact %.9g: off by %.3g, %s the %.3g that any order of the additions may be",
                      double(out[0]), exact, error, error <= bound ? "within" : "beyond", bound);
        c = {error <= bound, double(out[0]), exact, line};
    } else if constexpr (V::family == Family::Map) {
        double worst = 0;
        std::size_t at = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const double e = ulp_error(out[i], exact<V>(in[i]));
            if (!(e <= worst)) worst = e, at = i;  // NaN (an unwritten element) counts as worst
        }
        char line[160];
        std::snprintf(line, sizeof line, "worst error %.2f ulp (out[%zu]) of the double-precision value; %s accepts %.0f", worst, at,
                      V::meta.id, V::max_ulp);
        c = {worst <= V::max_ulp, worst, V::max_ulp, line};
    } else if constexpr (keeps_of<V>() == Keeps::Compute) {
        std::size_t written = 0;
        for (float v : out) written += !std::isnan(v);
        c = {written == 0, double(written), 0,
             written == 0 ? "no element written: the store's condition was false at run time, as meant"
                          : std::to_string(written) + " elements written: the store's condition was true at run time"};
    } else {
        std::size_t wrong = n;
        for (std::size_t i = 0; i < n && wrong == n; ++i)
            if (!(out[i] == expected<V>(in, i, n))) wrong = i;
        c = {wrong == n, double(wrong), double(n),
             wrong == n ? "all " + std::to_string(n) + " elements as the CPU computes them"
                        : "out[" + std::to_string(wrong) + "] = " + std::to_string(out[wrong]) + ", expected " +
                              std::to_string(expected<V>(in, wrong, n))};
    }
    return c;
}

// One launch of V over `in` on any backend; the output, NaN where unwritten
// (the sum's: the one float it added into, from zero).
template <class V, class Backend> std::vector<float> run_once(Backend& be, const std::vector<float>& in, std::size_t n, unsigned block)
{
    const std::size_t size = outputs<V>(n);
    float* d_in = be.template alloc<float>(in.size());
    float* d_out = be.template alloc<float>(size);
    be.copy_to_device(d_in, in.data(), in.size());
    const std::vector<float> start(size, output_start<V>());
    be.copy_to_device(d_out, start.data(), size);
    const TextureObject texture = reads_texture<V>() ? linear_texture(be, d_in, in.size()) : 0;
    launch<V>(be, static_cast<const float*>(d_in), d_out, n, block, texture);
    if (texture) destroy_texture(be, texture);
    std::vector<float> out(size);
    be.copy_to_host(out.data(), static_cast<const float*>(d_out), size);
    be.free(d_in);
    be.free(d_out);
    return out;
}

struct Description {
    using Versions = method::Versions;
    static constexpr const KernelFiles& kernels = kKernels;
    static constexpr const char* ptx = kPtx;

    template <class V> static void validate(const RunRequest& req)
    {
        if (req.type != "float") throw std::invalid_argument("the method lab's kernels take floats: --type " + req.type + " is not offered");
        require_n_in_32_bits(req.n);  // the kernels index with unsigned int
        if (V::inputs * req.n > (std::size_t(1) << 31) - 1)
            throw std::invalid_argument("n = " + std::to_string(req.n) + " is above " + V::meta.id + "'s limit of 2^30 - 1 (its input is 2n floats)");
        if (reads_texture<V>() && req.n > wl::emu::kMaxLinearTexels)
            throw std::invalid_argument("n = " + std::to_string(req.n) + " is above " + V::meta.id +
                                        "'s limit of 2^28: a 1D texture over linear memory holds at most 2^28 texels");
        if (req.block < 32 || req.block > 1024 || req.block % 32)
            throw std::invalid_argument("block " + std::to_string(req.block) + " is out of range: use a multiple of 32 from 32 to 1024");
        require_host_memory(req, (V::inputs + 1) * req.n * sizeof(float) * 2, "n = " + std::to_string(req.n));  // host and device
        validate_launch(req, dim3(blocks_for(req.n, req.block)), "n = " + std::to_string(req.n));
    }

    template <class V, class Backend> static void run(Backend& be, const RunRequest& req, RunResult& out)
    {
        const std::vector<float> in = make_input<V>(req.n, req.seed);
        const std::vector<float> result = run_once<V>(be, in, req.n, req.block);
        const std::size_t blocks = blocks_for(req.n, req.block);
        out.threads_per_block = req.block;
        out.block_dim = {req.block, 1, 1};
        out.grid_dim = {static_cast<unsigned>(blocks), 1, 1};
        out.problem = std::string(V::meta.idea) + "; n = " + std::to_string(req.n) + " floats, " + std::to_string(blocks) +
                      (blocks == 1 ? " block" : " blocks") + " of " + std::to_string(req.block) + " threads";
        const Checked c = check_output<V>(in, result);
        out.ok = c.ok, out.value = c.value, out.expected = c.expected, out.check = c.text;
    }
};

}  // namespace warplab::method
