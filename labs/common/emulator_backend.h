// The CPU SIMT emulator as a lab backend: the GPU's alloc / free / zero /
// copy interface, and launch of a version's kernel from the lab's PTX.
#pragma once
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <map>
#include <string>

#include "labs/common/data_dir.h"
#include "labs/common/kernel_instance.h"
#include "labs/common/lab.h"
#include "labs/common/user_kernel.h"
#include "labs/common/without_barrier.h"
#include "warplab/emu/emulator.h"
#include "warplab/ptx/kernel_file.h"
#include "warplab/ptx/ptx.h"
#include "warplab/trace/events.h"

namespace warplab {

// A lab's embedded PTX, parsed; `lab` names the shipped copy in messages. Its
// kernels' parameters take the names kernels/<lab>/*.cuh declare (where the
// data folder holds them), so that a fault says `in[4096]`, not `argument 0[4096]`.
inline wl::ptx::Module parse_lab_ptx(const char* ptx, const std::string& lab)
{
    wl::ptx::Module m = wl::ptx::Module::parse(ptx, "kernels/ptx/" + lab + ".ptx");
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(data_dir() / "kernels" / lab, ec)) {
        std::ifstream f(e.path(), std::ios::binary);
        if (e.path().extension() != ".cuh" || !f) continue;
        const std::string source((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        wl::ptx::name_parameters(m, source);
    }
    return m;
}

// An emulator set up for a request: its schedule, lane-order seed and watched block.
inline void configure(wl::emu::Emulator& emu, const RunRequest& req)
{
    emu.options = {.schedule = req.schedule, .watched_blocks = {req.watched_block}, .record = req.record, .seed = req.seed,
                   .warp_width = req.warp_width};
    emu.options.engine = req.engine;
    if (req.max_instructions) emu.options.max_instructions = req.max_instructions;
    emu.options.progress = req.progress;
}

// The watched block's records, the warnings and whether the records were cut, into a run's result.
inline void take_trace(wl::emu::Emulator& emu, RunResult& out)
{
    out.records_cut = emu.records_cut();
    out.records = emu.take_records();
    out.warp_width = emu.options.warp_width;
    out.engine = wl::emu::engines_that_ran(emu.launches_on(wl::emu::Engine::Fast), emu.launches_on(wl::emu::Engine::Interpret));
    for (const wl::emu::Warning& w : emu.take_warnings())
        out.warnings.push_back(w.at.message() + (w.count > 1 ? " (" + std::to_string(w.count) + " times)" : ""));
}

// What ran a request, for the status line: "cpu emulator (independent)", or
// "cpu emulator (lockstep, emulated 64-wide wavefront)" at warp width 64.
inline std::string emulator_name(const RunRequest& req)
{
    const std::string width = wl::trace::warp_width_label(req.warp_width);
    return std::string("cpu emulator (") + wl::emu::to_string(req.schedule) + (width.empty() ? "" : ", " + width) + ")";
}

// The module a backend launches from: one parsed already, or one that
// another thread is still parsing (make_lab.h), which its first launch waits for.
class ModuleRef {
public:
    ModuleRef(const wl::ptx::Module& parsed) : parsed_(&parsed) {}  // implicit: a backend takes a module as it took its reference
    explicit ModuleRef(std::shared_future<const wl::ptx::Module*> parsing) : parsing_(std::move(parsing)) {}
    const wl::ptx::Module& get() const { return parsed_ ? *parsed_ : *parsing_.get(); }

private:
    const wl::ptx::Module* parsed_ = nullptr;
    std::shared_future<const wl::ptx::Module*> parsing_;
};

struct EmulatorBackend {
    wl::emu::Emulator& emu;
    ModuleRef module;
    const KernelFiles& kernels;  // the lab's (versions.h)
    unsigned sms = 0;              // what multiprocessors() reports, for grids sized by the GPU
    bool record_first_launch_only = false;
    UserKernel* user = nullptr;    // set: the user's kernel runs in place of every version's
    void* scratch_memory = nullptr;
    std::size_t scratch_bytes = 0;
    std::uint32_t without_barrier = 0;  // RunRequest::without_barrier: every launch runs its module without that line's barriers
    std::map<const wl::ptx::Module*, wl::ptx::Module> edited{};  // those modules, by the one they were made from
    static constexpr bool host_memory = true;  // the emulator's memory is the host's: inputs are written in place

    template <class T> T* alloc(std::size_t n) { return emu.alloc<T>(n); }
    void free(void* p) { emu.free(p); }
    // Emulator memory starts poisoned: counters are zeroed explicitly, as on the GPU.
    template <class T> void zero(T* p, std::size_t n) { std::memset(static_cast<void*>(p), 0, n * sizeof(T)); }
    unsigned multiprocessors() const { return sms; }
    // A kernel's workspace: at least `bytes`, zeroed when allocated, the same
    // memory on every call that fits (kernels that count in it reset their
    // counters). The emulator frees it with the rest of its memory.
    void* scratch(std::size_t bytes)
    {
        if (bytes > scratch_bytes) {
            scratch_memory = emu.alloc_bytes(bytes);
            std::memset(scratch_memory, 0, bytes);
            scratch_bytes = bytes;
        }
        return scratch_memory;
    }
    template <class T> void copy_to_device(T* dst, const T* src, std::size_t n) { emu.copy_to_device(dst, src, n); }
    template <class T> void copy_to_host(T* dst, const T* src, std::size_t n) { emu.copy_to_host(dst, src, n); }

    // The module a launch runs: `m`, or `m` without the barriers at line
    // without_barrier of `file`; `lab` names a lab's module (empty: a user's).
    const wl::ptx::Module& as_run(const wl::ptx::Module& m, const std::string& file, const std::string& lab)
    {
        if (!without_barrier) return m;
        auto it = edited.find(&m);
        if (it == edited.end()) it = edited.emplace(&m, module_without_barrier(m, file, without_barrier, lab)).first;
        return it->second;
    }

    template <class V, class Args, class... A>
    void launch(KernelInstance<V, Args> kernel, dim3 grid, dim3 block, const A&... args)
    {
        launch_with_shared(kernel, grid, block, 0, args...);
    }
    template <class V, class Args, class... A>
    void launch_with_shared(KernelInstance<V, Args> kernel, dim3 grid, dim3 block, unsigned shared_bytes, const A&... args)
    {
        if (user && user_stands_in<V>) {
            const UserKernel::Entry& e = user->entry(user_launch(kernels, kernel, block, shared_bytes));
            wl::ptx::launch(emu, as_run(*e.module, user->file(), ""), e.name, grid, block, e.shared_bytes, args...);
        } else {
            wl::ptx::launch(emu, as_run(module.get(), kernel_file(kernels, V::meta), kernels.lab), entry_name(kernels, kernel), grid,
                            block, shared_bytes, args...);
        }
        if (record_first_launch_only) emu.options.record = false;
    }
};

}  // namespace warplab
