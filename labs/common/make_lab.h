// A lab's registry entry from its description (labs/common/run_skeleton.h),
// host compiler only: its versions, its run (validated, then on the GPU trace
// or the emulator), its GPU entry points or why there are none, and the hooks
// its versions imply (a setting). Host programs have a description of their own
// (make_host_program_lab).
#pragma once
#include <future>
#include <optional>
#include <string_view>
#include <system_error>
#include <utility>

#include "labs/common/emulator_backend.h"
#include "labs/common/lab.h"
#include "labs/common/run_skeleton.h"
#include "warplab/parts.h"

namespace warplab {

// The lab's PTX, parsed once per process.
template <class D> const wl::ptx::Module& lab_module()
{
    static const wl::ptx::Module module = parse_lab_ptx(D::ptx, D::kernels.lab);
    return module;
}

// The lab's module, parsed on a thread of its own where the host has two
// (lab_module's, the first time): a run draws its inputs while it is parsed,
// and its first launch waits for it.
template <class D> ModuleRef lab_module_in_parse()
{
    if (wl::host_threads() < 2) return lab_module<D>();
    try {
        return ModuleRef(std::async(std::launch::async, [] { return &lab_module<D>(); }).share());
    } catch (const std::system_error&) {  // no thread to be had
        return lab_module<D>();
    }
}

// A request on the emulator, from the lab's PTX (or the user's --file kernel in place of the version's).
template <class D> RunResult run_on_emulator(const RunRequest& req)
{
    wl::emu::Emulator emu;
    configure(emu, req);
    // Grids sized by the GPU see the H100's SMs; only the first launch is
    // recorded (a reduction's first pass; the GPU trace does the same).
    EmulatorBackend backend{emu, lab_module_in_parse<D>(), D::kernels, kEmulatedMultiprocessors, true};
    std::optional<UserKernel> user;
    if (!req.file.empty()) backend.user = &user.emplace(req.file, req.kernel, D::kernels, req.shared_bytes);
    backend.without_barrier = req.without_barrier;
    RunResult out = with_compile_warnings(backend.user, [&] { return run_on<D>(backend, req); });
    out.backend = emulator_name(req);
    take_trace(emu, out);
    if (user) out.user_kernel = user->note(), out.compile_warnings = user->warnings();
    return out;
}

// Validates the request, then runs it on the GPU trace where it asks for a GPU
// (or finds one), else on the emulator.
template <class D> RunResult run_request(const RunRequest& req, const GpuBackends& gpu)
{
    if (!with_version<typename D::Versions>(req.version, [&](auto v) { D::template validate<decltype(v)>(req); }))
        throw unknown_version(D::kernels.lab, req.version);
    if (!runs_on_gpu(req)) return run_on_emulator<D>(req);
    if (!gpu.trace) throw std::invalid_argument("no GPU backend: " + gpu_status().reason);
    return gpu.trace(req, lab_module<D>());
}

// `lab` with its id, title, sizes and hooks filled in by the caller; the rest
// comes from D and from `gpu` (empty where the build has no CUDA).
template <class D> Lab make_lab(Lab lab, GpuBackends gpu)
{
    lab.versions = version_list<typename D::Versions>(D::kernels);
    lab.run = [gpu](const RunRequest& req) { return run_request<D>(req, gpu); };
    lab.bench = gpu.bench ? gpu.bench : [](const BenchOptions&) -> BenchTable {
        throw std::invalid_argument("no GPU to time on: " + gpu_status().reason);
    };
    lab.check_on_gpu = gpu.check ? gpu.check : [](const RunRequest&) -> RunResult {
        throw std::invalid_argument("no GPU: " + gpu_status().reason);
    };
    lab.setting_of = version_setting<typename D::Versions>;
    return lab;
}

// `lab` as make_lab takes it, for a lab whose versions are host programs
// (copies, streams, GPUs around one kernel: labs/transfers/run.h), described by
// D: Versions, kernels, validate<V>, and its GPU entry points run_on_gpu and
// bench_on_gpu (which say why not where the build has no CUDA). Nothing is
// traced and the emulator runs none of them (each version's meta.gpu_only).
template <class D> Lab make_host_program_lab(Lab lab)
{
    lab.versions = version_list<typename D::Versions>(D::kernels);
    lab.run = [](const RunRequest& req) {
        if (!with_version<typename D::Versions>(req.version, [&](auto v) {
                refuse_emulating_gpu_only(decltype(v)::meta, req);
                D::template validate<decltype(v)>(req);
            }))
            throw unknown_version(D::kernels.lab, req.version);
        return D::run_on_gpu(req);
    };
    lab.bench = D::bench_on_gpu;
    lab.host_programs = true;
    return lab;
}

}  // namespace warplab
