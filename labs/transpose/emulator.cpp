// Runs a transpose version on the CPU SIMT emulator, from the lab's PTX.
#include <limits>
#include <optional>
#include <stdexcept>

#include "labs/common/emulator_backend.h"
#include "labs/transpose/driver.h"
#include "labs/transpose/lab.h"

namespace warplab::transpose {

const wl::ptx::Module& ptx_module()
{
    static const wl::ptx::Module module = parse_lab_ptx(kPtx, "transpose");
    return module;
}

RunResult run_on_emulator(const RunRequest& req)
{
    const Shape s = shape_of(req);
    wl::emu::Emulator emu;
    configure(emu, req);

    const std::vector<float> in = make_input(s, req.seed);
    float* d_in = emu.alloc<float>(in.size());
    emu.copy_to_device(d_in, in.data(), in.size());
    // out starts as NaN: an element no thread writes fails the comparison.
    const std::vector<float> poison(s.elements(), std::numeric_limits<float>::quiet_NaN());
    float* d_out = emu.alloc<float>(poison.size());
    emu.copy_to_device(d_out, poison.data(), poison.size());

    RunResult out;
    out.backend = emulator_name(req.schedule);
    out.problem = describe(req.version, s);
    out.shape = {s.rows, s.cols};
    std::optional<UserKernel> user;
    if (!req.file.empty()) user.emplace(req.file, req.kernel, kKernels, req.shared_bytes);
    const bool found = with_version(req.version, [&](auto v) {
        using V = decltype(v);
        describe_launch<V>(out, s, req);
        EmulatorBackend backend{emu, ptx_module(), kKernels};
        if (user) backend.user = &*user;
        transpose_on<V>(backend, d_in, d_out, s);
    });
    if (!found) throw std::invalid_argument("unknown transpose version '" + req.version + "'");

    std::vector<float> result(s.elements());
    emu.copy_to_host(result.data(), d_out, result.size());
    check_transpose(out, s, in, result);
    take_trace(emu, out);
    if (user) out.user_kernel = user->note();
    return out;
}

}  // namespace warplab::transpose
