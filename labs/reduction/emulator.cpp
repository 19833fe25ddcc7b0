// Runs a reduction version on the CPU SIMT emulator.
#include <cstring>

#include "labs/reduction/lab.h"
#include "labs/reduction/run.h"
#include "warplab/emu/emulator.h"

namespace warplab::reduction {

namespace {

// Records only the first launch: the first pass is the one the lab is about.
struct FirstLaunchRecorder {
    wl::emu::Emulator& emu;
    template <class T> T* alloc(std::size_t n) { return emu.alloc<T>(n); }
    void free(void* p) { emu.free(p); }
    template <class T> void zero(T* p, std::size_t n) { std::memset(p, 0, n * sizeof(T)); }
    unsigned multiprocessors() const { return kEmulatedMultiprocessors; }
    template <class T> void copy_to_device(T* dst, const T* src, std::size_t n) { emu.copy_to_device(dst, src, n); }
    template <class T> void copy_to_host(T* dst, const T* src, std::size_t n) { emu.copy_to_host(dst, src, n); }
    template <class K, class... A> void launch(const char* name, K kernel, dim3 grid, dim3 block, A... args)
    {
        emu.launch(name, kernel, grid, block, args...);
        emu.options.record = false;
    }
};

}  // namespace

RunResult run_on_emulator(const RunRequest& req)
{
    wl::emu::Emulator emu;
    emu.options.schedule = req.schedule == ScheduleChoice::Lockstep ? wl::emu::Schedule::Lockstep : wl::emu::Schedule::Independent;
    emu.options.watched_blocks = {req.watched_block};
    emu.options.record = req.record;
    emu.options.seed = req.seed;
    FirstLaunchRecorder rec{emu};
    RunResult out = with_element_type(req.type, [&]<class T>() { return reduce_request<T>(rec, req); });
    out.backend = std::string("cpu emulator (") + wl::emu::to_string(emu.options.schedule) + ")";
    out.records = emu.take_records();
    return out;
}

}  // namespace warplab::reduction
