// Runs a matmul version on the CPU SIMT emulator, from the lab's PTX.
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "labs/common/emulator_backend.h"
#include "labs/matmul/driver.h"
#include "labs/matmul/lab.h"

namespace warplab::matmul {

namespace {

template <class T> T* to_device(wl::emu::Emulator& emu, const std::vector<T>& host)
{
    T* d = emu.alloc<T>(host.size());
    emu.copy_to_device(d, host.data(), host.size());
    return d;
}

}  // namespace

const wl::ptx::Module& ptx_module()
{
    static const wl::ptx::Module module = parse_lab_ptx(kPtx, "matmul");
    return module;
}

RunResult run_on_emulator(const RunRequest& req)
{
    const Shape s = shape_of(req);
    wl::emu::Emulator emu;
    configure(emu, req);

    const Inputs in = make_inputs(s, req.seed);
    const float* d_a = to_device(emu, in.a);
    const float* d_b = to_device(emu, in.b);
    // C starts as NaN: an element no thread writes fails the comparison.
    float* d_c = to_device(emu, std::vector<float>(s.m * s.n, std::numeric_limits<float>::quiet_NaN()));

    RunResult out;
    out.backend = emulator_name(req);
    out.problem = describe(req.version, s, kEmulatedMultiprocessors);
    out.shape = {s.m, s.n, s.k};
    std::optional<UserKernel> user;
    if (!req.file.empty()) user.emplace(req.file, req.kernel, kKernels, req.shared_bytes);
    Arithmetic arithmetic = Arithmetic::Fp32;
    const bool found = with_version<Versions>(req.version, [&](auto v) {
        using V = decltype(v);
        arithmetic = arithmetic_of<V>();
        describe_launch<V>(out, s, req, kEmulatedMultiprocessors);
        EmulatorBackend backend{emu, ptx_module(), kKernels, kEmulatedMultiprocessors};
        if (user) backend.user = &*user;
        backend.without_barrier = req.without_barrier;
        with_compile_warnings(backend.user, [&] { multiply_on<V>(backend, d_a, d_b, d_c, s); });
    });
    if (!found) throw std::invalid_argument("unknown matmul version '" + req.version + "'");

    std::vector<float> c(s.m * s.n);
    emu.copy_to_host(c.data(), d_c, c.size());
    check_product(out, s, in, c, arithmetic);
    take_trace(emu, out);
    if (user) out.user_kernel = user->note(), out.compile_warnings = user->warnings();
    return out;
}

}  // namespace warplab::matmul
