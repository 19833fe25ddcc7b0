// Host side of the CPU SIMT emulator: device memory, launch options, launch.
//
//   wl::emu::Emulator emu;
//   int* d = emu.alloc<int>(n);
//   wl::ptx::launch(emu, module, "reduce_v1", dim3(blocks), dim3(256), 0, d, d_out, n);   // warplab/ptx/ptx.h
//
// Kernels run from nvcc's PTX (core/src/ptx/) on this runtime (core/src/emu/):
// a block's lanes on one host thread, blocks on several. A faulty kernel
// throws KernelFault with a one-paragraph message.
#pragma once
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "warplab/dim3.h"
#include "warplab/emu/engine.h"
#include "warplab/emu/schedule.h"
#include "warplab/trace/record.h"

namespace wl::emu {

struct LaunchOptions {
    Schedule schedule = Schedule::Independent;
    Engine engine = Engine::Interpret;
    std::vector<std::uint32_t> watched_blocks{0};  // blocks whose accesses are recorded
    bool record = true;                            // record the watched blocks at all
    unsigned workers = 0;                          // host threads; 0 = one per core
    std::uint64_t seed = 0x5eed;                   // lane order under Independent
    // Lanes per warp: 32 (NVIDIA's warp) or 64 (AMD's wavefront); a launch
    // refuses any other. Lanes, warps, lane masks, the race rule's "same warp",
    // the schedules and the collectives follow it.
    unsigned warp_width = 32;
    // Instructions a thread may execute before the launch stops as an endless
    // loop (counted at backward branches: a loop's instructions per iteration).
    // The default is about 300 times what any lab's trace at its default size
    // takes (matmul v9: 6,807), and stops an endless loop with a __syncthreads()
    // in it, in blocks of 256 threads, within about 20 s on one loaded core.
    std::uint64_t max_instructions = kDefaultMaxInstructions;
    // Bytes of records one host thread's watched blocks may make in one launch;
    // past it recording stops (a vector's growth may briefly hold twice this).
    std::uint64_t max_record_bytes = std::uint64_t(384) << 20;
    // The watched blocks' instruction mix (warplab/trace/mix.h): Kind::Mix
    // records at each block's end, under the same cap.
    bool count_instructions = true;
    static constexpr std::uint64_t kDefaultMaxInstructions = 2'000'000;
    // Called now and then while a launch runs (at most twice a second, from a
    // host thread that runs blocks): blocks finished, blocks in the grid.
    std::function<void(std::uint64_t done, std::uint64_t total)> progress = nullptr;
    // A cooperative launch (cudaLaunchCooperativeKernel): every block of the
    // grid resident at once, as a GPU holds them, taking turns on one host
    // thread (a block whose every running thread waits in a spin loop gives
    // the next its turn), and the kernel finds the grid barrier's workspace
    // (Emulator::grid_workspace) at %envreg1:%envreg2, so that
    // cooperative_groups::this_grid().sync() works. The caller keeps the grid
    // to what a GPU holds at once; a grid whose every block waits on a spin
    // that none will end stops with a fault rather than hanging.
    bool cooperative = false;
};

// The help text of --max-instructions, for every program that offers it.
inline std::string max_instructions_help() {
    return "emulator: instructions a thread may run before the launch stops as an endless loop (default " +
           std::to_string(LaunchOptions::kDefaultMaxInstructions) + ")";
}

struct Fault {
    std::string kernel;
    uint3 block, thread;
    unsigned warp = 0, lane = 0;
    std::string file;
    unsigned line = 0;
    std::string what;  // what happened, one sentence
    std::string message() const;
};

// Something CUDA defines but a kernel should not count on, which the launch
// went past: stores of different values by lanes of one instruction to one
// word (one lands), a plain read of a word other threads change atomically.
// Same fields as a Fault; `count` how many times the site did it.
struct Warning {
    Fault at;
    std::uint64_t count = 1;
};

class KernelFault : public std::runtime_error {
public:
    explicit KernelFault(Fault f) : std::runtime_error(f.message()), fault(std::move(f)) {}
    // The same fault with lines after its message (nvcc's warnings about the kernel's file).
    KernelFault(Fault f, const std::string& after) : std::runtime_error(f.message() + "\n" + after), fault(std::move(f)) {}
    Fault fault;
};

// A launch that cannot start (bad configuration, non-device pointer).
class LaunchError : public std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Lane-instructions every launch of this process has run so far (each
// instruction once per lane it executes for): a kernel's work, the same on
// any host, which a benchmark divides by its time.
std::uint64_t lane_instructions_run();
// Wall seconds every launch of this process has taken so far, its blocks' run
// alone (not reading, lowering or compiling its kernel): set beside a whole
// command's time, it tells the time outside the launches.
double launch_seconds_run();

// The size of the device heap that kernels' malloc and new draw on
// (cudaLimitMallocHeapSize): 8 MB, as on a GPU, unless set; past it malloc gives null.
std::size_t device_heap_bytes();
void set_device_heap_bytes(std::size_t bytes);

namespace detail {
struct KernelBody;  // how a launch runs its threads: core/src/emu/runtime.h
}

class Emulator {
public:
    Emulator();
    ~Emulator();
    Emulator(const Emulator&) = delete;
    Emulator& operator=(const Emulator&) = delete;

    // Device memory: 256-byte aligned (as cudaMalloc), filled with a poison byte.
    void* alloc_bytes(std::size_t bytes);
    template <class T> T* alloc(std::size_t count) { return static_cast<T*>(alloc_bytes(count * sizeof(T))); }
    void free(void* p);  // throws LaunchError for memory it did not allocate or freed already
    // Memory the caller maps and unmaps itself (warplab's CUDA runtime maps
    // device memory so as to close it to host code): poisoned, then found by
    // address as this emulator's own until forget(p), which frees nothing.
    void adopt(void* p, std::size_t bytes);
    void forget(void* p);
    template <class T> void copy_to_device(T* dst, const T* src, std::size_t count) { std::memcpy(dst, src, count * sizeof(T)); }
    template <class T> void copy_to_host(T* dst, const T* src, std::size_t count) { std::memcpy(dst, src, count * sizeof(T)); }

    LaunchOptions options;

    // Runs body once per thread of the grid (the PTX interpreter's launches).
    void launch_body(const char* name, dim3 grid, dim3 block, const detail::KernelBody& body);

    // Records of the watched blocks from every launch since the last take.
    std::vector<trace::LaneRecord> take_records()
    {
        records_cut_ = false;
        return std::exchange(records_, {});
    }
    // Warnings of every launch since the last take, one per site and kind.
    std::vector<Warning> take_warnings() { return std::exchange(warnings_, {}); }
    // Did a launch since the last take_records() stop recording at options.max_record_bytes?
    // (Its records then end where the cap fell.)
    bool records_cut() const { return records_cut_; }
    // Fiber switches made by all launches so far (a lane's resume and its yield are two).
    std::uint64_t fiber_switches() const { return switches_; }
    // Launches so far whose unwatched blocks ran on engine `e`: the fast
    // engine may leave a kernel to the interpreter (wl::emu::engines_that_ran).
    std::uint64_t launches_on(Engine e) const { return launches_on_[e == Engine::Fast]; }
    // The grid barrier's workspace that a cooperative launch's kernel reads
    // from %envreg1:%envreg2 (the toolkit's grid sync counts arrivals in it):
    // 16 bytes of this emulator's memory, zeroed at each call.
    void* grid_workspace();

private:
    std::vector<trace::LaneRecord> records_;
    std::vector<Warning> warnings_;
    bool records_cut_ = false;
    std::vector<void*> owned_;
    std::uint64_t switches_ = 0;
    std::uint64_t launches_on_[2] = {0, 0};  // by engine: interpreter, fast
    void* grid_workspace_ = nullptr;
};

}  // namespace wl::emu
