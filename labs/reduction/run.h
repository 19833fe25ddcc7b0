// The reduction lab as the run skeleton sees it (labs/common/run_skeleton.h):
// bad input refused, and one request on any backend: seeded input, the
// version's passes, and the check against the CPU reference. Its registry
// line is in labs/common/registry.cpp.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "labs/common/run_skeleton.h"
#include "labs/reduction/driver.h"
#include "labs/reduction/lab.h"
#include "labs/reduction/problem.h"

namespace warplab::reduction {

// Calls f.template operator()<T>() with T = int or float, as `type` names it.
template <class F> decltype(auto) with_element_type(const std::string& type, F&& f)
{
    if (type == "int") return f.template operator()<int>();
    if (type == "float") return f.template operator()<float>();
    throw std::invalid_argument("unknown type '" + type + "' (use int or float)");
}

// A version with more than one launch path says which it takes (V10::path).
// A named concept, not an inline requires-expression: nvcc 13 rejects the
// latter where the version has no such member.
template <class V>
concept TakesPaths = requires(std::size_t n, unsigned block, unsigned sms) { V::path(n, block, sms); };

struct Description {
    using Versions = reduction::Versions;
    static constexpr const KernelFiles& kernels = kKernels;
    static constexpr const char* ptx = kPtx;

    template <class V> static void validate(const RunRequest& req)
    {
        refuse_emulating_gpu_only(V::meta, req);
        if (req.type != "int" && req.type != "float")
            throw std::invalid_argument("unknown type '" + req.type + "' (use int or float)");
        require_n_in_32_bits(req.n);  // kernels index with unsigned int and add up to 2*BLOCK*gridDim.x to an index
        if (req.block < 32 || req.block > 1024 || (req.block & (req.block - 1)))
            throw std::invalid_argument("block " + std::to_string(req.block) + " is out of range: use a power of two from 32 to 1024");
        if (req.block < V::min_block)
            throw std::invalid_argument(req.version + " needs a block of at least " + std::to_string(V::min_block));
        const std::size_t bytes = req.n * 4 * 2;  // the input, its copy on the device, and the partial sums
        require_host_memory(req, bytes, "n = " + std::to_string(req.n));
        validate_launch(req, dim3(unsigned(V::blocks(req.n, req.block, kEmulatedMultiprocessors))),
                              "n = " + std::to_string(req.n) + " in its first pass");
    }

    // Seeded input, the version's passes (only the first is traced), and the check against the CPU sum.
    template <class V, class Backend> static void run(Backend& be, const RunRequest& req, RunResult& out)
    {
        with_element_type(req.type, [&]<class T>() {
            T* d_in = be.template alloc<T>(req.n);
            out.expected = fill_on_device(be, d_in, req.n, [&](std::span<T> in) { fill_input(in, req.seed); },
                                          [](std::span<const T> in) { return reference_sum(in); });
            out.threads_per_block = req.block;
            out.grid_dim = {static_cast<unsigned>(V::blocks(req.n, req.block, be.multiprocessors())), 1, 1};  // the first pass's
            if constexpr (TakesPaths<V>) out.path = V::path(req.n, req.block, be.multiprocessors());
            out.value = static_cast<double>(reduce_on<V>(be, d_in, req.n, req.block));
            be.free(d_in);
            out.ok = sum_matches<T>(out.value, out.expected);
        });
    }

    static DeviceBytes device_bytes(const RunRequest& req) { return {req.n * 4 * 2, "the input"}; }
};

}  // namespace warplab::reduction
