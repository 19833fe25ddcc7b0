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
    emu.options.schedule = req.schedule == ScheduleChoice::Lockstep ? wl::emu::Schedule::Lockstep : wl::emu::Schedule::Independent;
    emu.options.watched_blocks = {req.watched_block};
    emu.options.record = req.record;
    emu.options.seed = req.seed;
    // Records only the first launch: the first pass is the one the lab is about.
    EmulatorBackend backend{emu, ptx_module(), kKernelNamespace, kEmulatedMultiprocessors, true};
    std::optional<UserKernel> user;
    if (!req.file.empty()) backend.user = &user.emplace(req.file, req.kernel);
    RunResult out = with_element_type(req.type, [&]<class T>() { return reduce_request<T>(backend, req); });
    out.backend = std::string("cpu emulator (") + wl::emu::to_string(emu.options.schedule) + ")";
    out.records = emu.take_records();
    return out;
}

}  // namespace warplab::reduction
