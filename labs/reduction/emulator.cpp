// Runs a reduction version on the CPU SIMT emulator, from the lab's PTX.
#include <optional>

#include "labs/common/emulator_backend.h"
#include "labs/reduction/lab.h"
#include "labs/reduction/run.h"

namespace warplab::reduction {

const wl::ptx::Module& ptx_module()
{
    static const wl::ptx::Module module = parse_lab_ptx(kPtx, "reduction");
    return module;
}

RunResult run_on_emulator(const RunRequest& req)
{
    wl::emu::Emulator emu;
    configure(emu, req);
    // Records only the first launch: the first pass is the one the lab is about.
    EmulatorBackend backend{emu, ptx_module(), kKernels, kEmulatedMultiprocessors, true};
    std::optional<UserKernel> user;
    if (!req.file.empty()) backend.user = &user.emplace(req.file, req.kernel, kKernels, req.shared_bytes);
    RunResult out = with_element_type(req.type, [&]<class T>() { return reduce_request<T>(backend, req); });
    out.backend = emulator_name(req.schedule);
    take_trace(emu, out);
    if (user) out.user_kernel = user->note();
    return out;
}

}  // namespace warplab::reduction
