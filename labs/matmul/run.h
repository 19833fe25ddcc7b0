// The matmul lab as the run skeleton sees it (labs/common/run_skeleton.h):
// bad input refused, and one run of a version on any backend: seeded A and B,
// the version's launch (its tiles by size and SM count; v12's padding and
// v14's BF16 inputs made inside it), and C checked against the CPU's product.
// Its registry line is in labs/common/registry.cpp.
#pragma once
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "labs/common/run_skeleton.h"
#include "labs/matmul/driver.h"
#include "labs/matmul/lab.h"

namespace warplab::matmul {

struct Description {
    using Versions = matmul::Versions;
    static constexpr const KernelFiles& kernels = kKernels;
    static constexpr const char* ptx = kPtx;

    template <class V> static void validate(const RunRequest& req)
    {
        const Shape s = shape_of(req);
        refuse_emulating_gpu_only(V::meta, req);
        if constexpr (requires { V::untraced; })
            if (runs_on_gpu(req) && req.record)  // an untraced run (the bench's, the gpu tests') is fine
                throw std::invalid_argument(std::string(V::meta.id) + " is not traced: " + V::untraced);
        if (req.block != 0 && req.block != V::threads)
            throw std::invalid_argument(std::string(V::meta.id) + "'s block is fixed by its tiles: " + dims(V::block()) +
                                        " = " + std::to_string(V::threads) + " threads");
        // The grid (and the watched block in it) depends on the tiles, which may
        // depend on the SM count: describe_launch checks it on the backend.
        if (req.type != "float") throw std::invalid_argument("matmul multiplies floats: --type " + req.type + " is not offered");
        const std::size_t bytes = (s.m * s.k + s.k * s.n + 2 * s.m * s.n) * sizeof(float) * 2;  // host and device copies
        require_host_memory(req, bytes, "shape " + s.text());
    }

    template <class V, class Backend> static void run(Backend& be, const RunRequest& req, RunResult& out)
    {
        const Shape s = shape_of(req);
        const unsigned sms = be.multiprocessors();
        out.problem = describe(req.version, s, sms);
        out.shape = {s.m, s.n, s.k};
        describe_launch<V>(out, s, req, sms);
        const Inputs in = make_inputs(s, req.seed);
        float* a = be.template alloc<float>(in.a.size());
        float* b = be.template alloc<float>(in.b.size());
        float* c = be.template alloc<float>(s.m * s.n);
        be.copy_to_device(a, in.a.data(), in.a.size());
        be.copy_to_device(b, in.b.data(), in.b.size());
        // C starts as NaN: an element no thread writes fails the comparison.
        const std::vector<float> unwritten(s.m * s.n, std::numeric_limits<float>::quiet_NaN());
        be.copy_to_device(c, unwritten.data(), unwritten.size());
        multiply_on<V>(be, a, b, c, s);
        std::vector<float> product(s.m * s.n);
        be.copy_to_host(product.data(), static_cast<const float*>(c), product.size());
        be.free(a);
        be.free(b);
        be.free(c);
        check_product(out, s, in, product, arithmetic_of<V>());
    }

    static DeviceBytes device_bytes(const RunRequest& req)
    {
        const Shape s = shape_of(req);
        return {(s.m * s.k + s.k * s.n + s.m * s.n) * sizeof(float), "shape " + s.text()};
    }
};

}  // namespace warplab::matmul
