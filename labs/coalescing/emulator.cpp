// Runs a copy version on the CPU SIMT emulator, from the lab's PTX.
#include <optional>

#include "labs/common/emulator_backend.h"
#include "labs/coalescing/lab.h"
#include "labs/coalescing/run.h"

namespace warplab::coalescing {

const wl::ptx::Module& ptx_module()
{
    static const wl::ptx::Module module = parse_lab_ptx(kPtx, "coalescing");
    return module;
}

RunResult run_on_emulator(const RunRequest& req)
{
    wl::emu::Emulator emu;
    configure(emu, req);
    EmulatorBackend backend{emu, ptx_module(), kKernels};
    std::optional<UserKernel> user;
    if (!req.file.empty()) backend.user = &user.emplace(req.file, req.kernel, kKernels, req.shared_bytes);
    RunResult out = copy_request(backend, req);
    out.backend = emulator_name(req.schedule);
    take_trace(emu, out);
    if (user) out.user_kernel = user->note();
    return out;
}

}  // namespace warplab::coalescing
