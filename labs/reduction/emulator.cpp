// Runs a reduction version on the CPU SIMT emulator.
#include <cstring>
#include <stdexcept>

#include "labs/reduction/driver.h"
#include "labs/reduction/lab.h"
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
    template <class T> void copy_to_host(T* dst, const T* src, std::size_t n) { emu.copy_to_host(dst, src, n); }
    template <class K, class... A> void launch(const char* name, K kernel, dim3 grid, dim3 block, A... args)
    {
        emu.launch(name, kernel, grid, block, args...);
        emu.options.record = false;
    }
};

template <class T> RunResult run_typed(const RunRequest& req)
{
    wl::emu::Emulator emu;
    emu.options.schedule = req.schedule == ScheduleChoice::Lockstep ? wl::emu::Schedule::Lockstep : wl::emu::Schedule::Independent;
    emu.options.watched_blocks = {req.watched_block};
    emu.options.record = req.record;
    emu.options.seed = req.seed;

    const std::vector<T> input = make_input<T>(req.n, req.seed);
    T* d_in = emu.alloc<T>(req.n);
    emu.copy_to_device(d_in, input.data(), req.n);

    RunResult out;
    out.backend = std::string("cpu emulator (") + wl::emu::to_string(emu.options.schedule) + ")";
    out.threads_per_block = req.block;
    FirstLaunchRecorder rec{emu};
    const bool found = for_each_version<Versions>([&](auto v) {
        using V = decltype(v);
        if (req.version != V::meta.id) return false;
        out.value = static_cast<double>(reduce_on<V>(rec, d_in, req.n, req.block));
        return true;
    });
    if (!found) throw std::invalid_argument("unknown reduction version '" + req.version + "'");
    out.expected = reference_sum(input);
    out.ok = sum_matches<T>(out.value, out.expected);
    out.records = emu.take_records();
    return out;
}

}  // namespace

RunResult run_on_emulator(const RunRequest& req)
{
    if (req.type == "int") return run_typed<int>(req);
    if (req.type == "float") return run_typed<float>(req);
    throw std::invalid_argument("unknown type '" + req.type + "' (use int or float)");
}

}  // namespace warplab::reduction
