// The coalescing lab as the run skeleton sees it (labs/common/run_skeleton.h):
// bad input refused, and one copy on any backend: seeded input, one launch,
// and every output element checked against the CPU. The benchmark checks its
// copies with the same first_wrong. Its registry line is in labs/common/registry.cpp.
#pragma once
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "labs/coalescing/versions.h"
#include "labs/common/bench.h"
#include "labs/common/run_skeleton.h"
#include "warplab/random.h"

namespace warplab::coalescing {

// The lab's kernels as PTX (labs/coalescing/kernels.cu, or
// kernels/ptx/coalescing.ptx where the build had no nvcc), embedded in the library.
extern const char kPtx[];

// Bench tables are measured at this many output elements: 64 MiB read and
// 64 MiB written, beyond any L2, so the sweep measures DRAM traffic.
constexpr std::size_t kBenchElements = std::size_t(1) << 24;

// nvcc only (gpu_bench.cu): the GPU trace and check of the run skeleton, and
// the benchmark, which times each version at every setting of its sweep.
GpuBackends gpu_backends();
BenchTable bench_on_gpu(const BenchOptions& options);

// Floats in [0, 1) from the seed; each element differs from its neighbours
// (almost surely), so a copy from the wrong index shows.
inline std::vector<float> make_input(std::size_t n, std::uint64_t seed)
{
    wl::Random rng(seed);
    std::vector<float> v(n);
    for (float& x : v) x = rng.uniform_float(0.0f, 1.0f);
    return v;
}

// The first output element that is not in[source_index(i)] (a copy is exact),
// or n when every one is.
template <class V> std::size_t first_wrong(const std::vector<float>& in, const std::vector<float>& out, unsigned setting)
{
    for (std::size_t i = 0; i < out.size(); ++i)
        if (!(out[i] == in[V::source_index(i, setting)])) return i;
    return out.size();
}

// The setting a request runs with: its own, or the version's default.
template <class V> unsigned resolved_setting(const RunRequest& req)
{
    return req.setting < 0 ? V::setting.standard : static_cast<unsigned>(req.setting);
}

struct Description {
    using Versions = coalescing::Versions;
    static constexpr const KernelFiles& kernels = kKernels;
    static constexpr const char* ptx = kPtx;

    template <class V> static void validate(const RunRequest& req)
    {
        const Setting& s = V::setting;
        if (req.setting >= 0 && (unsigned(req.setting) < s.first || unsigned(req.setting) > s.last))
            throw std::invalid_argument(std::string(s.name) + " " + std::to_string(req.setting) + " is out of range: " +
                                        V::meta.id + " takes " + std::to_string(s.first) + " to " + std::to_string(s.last));
        if (req.type != "float") throw std::invalid_argument("the coalescing lab copies floats: --type " + req.type + " is not offered");
        require_n_in_32_bits(req.n);  // the kernels index `out` with unsigned int
        if (req.block < 32 || req.block > 1024 || req.block % 32)
            throw std::invalid_argument("block " + std::to_string(req.block) + " is out of range: use a multiple of 32 from 32 to 1024");
        const std::size_t bytes = (input_elements<V>(req.n, resolved_setting<V>(req)) + req.n) * sizeof(float) * 2;  // host and device
        require_host_memory(req, bytes, "n = " + std::to_string(req.n));
        validate_launch(req, dim3(unsigned(blocks_for(req.n, req.block))), "n = " + std::to_string(req.n));
    }

    template <class V, class Backend> static void run(Backend& be, const RunRequest& req, RunResult& out)
    {
        const unsigned setting = resolved_setting<V>(req);
        const std::vector<float> in = make_input(input_elements<V>(req.n, setting), req.seed);
        float* d_in = be.template alloc<float>(in.size());
        float* d_out = be.template alloc<float>(req.n);
        be.copy_to_device(d_in, in.data(), in.size());
        // out starts as NaN: an element no thread writes fails the check.
        const std::vector<float> unwritten(req.n, std::numeric_limits<float>::quiet_NaN());
        be.copy_to_device(d_out, unwritten.data(), req.n);
        launch<V>(be, static_cast<const float*>(d_in), d_out, req.n, setting, req.block);
        std::vector<float> result(req.n);
        be.copy_to_host(result.data(), static_cast<const float*>(d_out), req.n);
        be.free(d_in);
        be.free(d_out);

        const std::size_t blocks = blocks_for(req.n, req.block);
        out.threads_per_block = req.block;
        out.block_dim = {req.block, 1, 1};
        out.grid_dim = {static_cast<unsigned>(blocks), 1, 1};
        out.problem = "out[i] = in[i " + std::string(V::setting.op) + " " + std::to_string(setting) + "], n = " + std::to_string(req.n) + " floats, " + std::to_string(blocks) +
                      (blocks == 1 ? " block" : " blocks") + " of " + std::to_string(req.block) + " threads";
        const std::size_t wrong = first_wrong<V>(in, result, setting);
        out.ok = wrong == req.n;
        out.value = static_cast<double>(wrong);
        out.expected = static_cast<double>(req.n);
        out.check = out.ok ? "all " + std::to_string(req.n) + " elements copied"
                           : "out[" + std::to_string(wrong) + "] = " + std::to_string(result[wrong]) + ", expected in[" +
                                 std::to_string(V::source_index(wrong, setting)) + "] = " +
                                 std::to_string(in[V::source_index(wrong, setting)]);
    }
};

}  // namespace warplab::coalescing
