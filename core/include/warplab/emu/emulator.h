// Host side of the CPU SIMT emulator: device memory, launch options, launch.
//
//   wl::emu::Emulator emu;
//   int* d = emu.alloc<int>(n);
//   wl::ptx::launch(emu, module, "reduce_v1", dim3(blocks), dim3(256), 0, d, d_out, n);   // warplab/ptx/ptx.h
//
// Kernels run from nvcc's PTX (core/src/ptx/interp.cpp) on this runtime: a
// block's lanes on one host thread, blocks on several. A faulty kernel throws
// KernelFault with a one-paragraph message.
#pragma once
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

// The runtime's own types: dim3/uint3, the access and array descriptions the
// checks take (the interpreter fills them from each PTX instruction).
#include "warplab/emu/cuda_api.h"
#include "warplab/emu/schedule.h"
#include "warplab/traced.h"
#include "warplab/trace/record.h"

namespace wl::emu {

struct LaunchOptions {
    Schedule schedule = Schedule::Independent;
    std::vector<std::uint32_t> watched_blocks{0};  // blocks whose accesses are recorded
    bool record = true;                            // record the watched blocks at all
    unsigned workers = 0;                          // host threads; 0 = one per core
    std::uint64_t seed = 0x5eed;                   // lane order under Independent
    // Instructions a thread may execute before the launch stops as an endless
    // loop (counted at backward branches: a loop's instructions per iteration).
    // The default is about 300 times what any lab's trace at its default size
    // takes (matmul v9: 6,807), and stops an endless loop with a __syncthreads()
    // in it, in blocks of 256 threads, within about 20 s on one loaded core.
    std::uint64_t max_steps = kDefaultMaxSteps;
    // Bytes of records one host thread's watched blocks may make in one launch;
    // past it recording stops (a vector's growth may briefly hold twice this).
    std::uint64_t max_record_bytes = std::uint64_t(384) << 20;
    static constexpr std::uint64_t kDefaultMaxSteps = 2'000'000;
    // Called now and then while a launch runs (at most twice a second, from a
    // host thread that runs blocks): blocks finished, blocks in the grid.
    std::function<void(std::uint64_t done, std::uint64_t total)> progress = nullptr;
};

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
    Fault fault;
};

// A launch that cannot start (bad configuration, non-device pointer).
class LaunchError : public std::runtime_error {
    using std::runtime_error::runtime_error;
};

namespace detail {
struct KernelBody {
    void* ctx;
    void (*call)(void*);  // runs one thread to its end on its own fiber
    // Or, without fibers: runs the thread with this flat index until it waits
    // (barrier, collective, lockstep access) or ends; true when it ended. The
    // runtime's waiting entries then return at once instead of yielding: the
    // body keeps its own state and picks up the results when resumed.
    bool (*step)(void* ctx, unsigned lane, bool first) = nullptr;
    // Or, with step, under Independent: runs one pass over a warp in a single
    // call. It takes the pass's lanes from pass_lanes() and may run them warp
    // by warp instruction (converged lanes together), entering each lane
    // before it touches the runtime for it and leaving it when it waits or ends.
    void (*step_warp)(void* ctx) = nullptr;
};
// One lane of a step_warp pass: its flat index, and whether it starts.
struct LaneTurn {
    unsigned flat;
    bool first;
};
// The pass's runnable lanes, in the scheduler's order; each is marked started. Returns how many.
unsigned pass_lanes(LaneTurn (&lanes)[32]);
// Makes one of the pass's lanes the one the runtime's entries act for.
void enter_lane(unsigned flat);
// Ends the entered lane's turn (ended: it finished its body).
void leave_lane(bool ended);
// Lanes of the pass reach one bar.sync together: each arrives as
// barrier_arrive(None) would have it, and their turns end.
void barrier_arrive_lanes(const unsigned* flats, unsigned count, const char* file, unsigned line);
// Likewise for one __syncwarp(mask) (bar.warp.sync): each arrives as
// collective_arrive(SyncWarp, mask) would have it, and their turns end.
void syncwarp_arrive_lanes(const unsigned* flats, unsigned count, unsigned mask, const char* file, unsigned line);
// Runs body once per thread of the grid. Appends the watched blocks' records.
// Adds the fiber switches the launch made to `switches`.
// Appends the launch's warnings (one per site) and says whether the records were cut at opt.max_record_bytes.
struct RunNotes {
    std::vector<Warning>* warnings;
    bool* records_cut;
};
void run_grid(const char* kernel, dim3 grid, dim3 block, const LaunchOptions& opt, KernelBody body,
              std::vector<trace::LaneRecord>& records, std::uint64_t& switches, RunNotes notes);
// Elements of device memory from p to the end of its allocation; throws LaunchError if p is not device memory.
std::uint64_t elements_from(const void* p, std::size_t elem_size);

// ---- The PTX interpreter's entry points into the runtime (called on a lane's fiber).
struct LaneInfo {
    unsigned flat, warp, lane;
    bool watched;   // the block records
    bool lockstep;  // Schedule::Lockstep
};
LaneInfo current_lane();
// Lockstep: one round per access (the lane yields); Independent: nothing.
void access_round();
// Shared-memory checks of one access (uninitialised reads, races); `name[index]` for messages.
// stored: a store's bytes (lanes of one instruction storing the same bytes to a word do not race);
// strong: a load with .acquire, .relaxed or .volatile, which races with no atomic.
void check_shared_access(trace::Kind kind, void* ptr, unsigned size, const char* name, long long index,
                         const char* file, unsigned line, const void* stored = nullptr, bool strong = false);
// A spinning lane (a strong load, which a loop may be waiting on) gives the others a turn.
// Explicit-state lanes: true when the caller must return (the lane resumes after the load).
bool spin_yield();
// The budget of opt.max_steps per thread is spent: the launch stops (the message says where).
[[noreturn]] void step_budget_fault(std::uint64_t steps, const char* file, unsigned line);
void record_access(trace::Kind kind, trace::Space space, unsigned size, std::uint8_t array, std::uint64_t offset,
                   const void* value, unsigned value_bytes, const char* file, unsigned line);
[[noreturn]] void kernel_fault(const char* file, unsigned line, std::string what);
// bar.sync (op None) and bar.red.popc/and/or: every thread of the block waits; returns the reduction.
enum class BarrierOp : std::uint8_t { None, Popc, And, Or };
unsigned barrier(BarrierOp op, unsigned value, const char* file, unsigned line);
// The two halves of barrier() and collective() for explicit-state bodies.
void barrier_arrive(BarrierOp op, unsigned value, const char* file, unsigned line);
unsigned barrier_result();
void collective_arrive(CollectiveOp op, unsigned mask, const void* in, unsigned bytes, int arg, int width,
                       const char* file, unsigned line);
void collective_take(void* out, unsigned bytes);
// Fiber lanes: back to the scheduler until it resumes this lane.
void wait_turn();
// __activemask(): the lanes of the calling lane's warp that reach this same
// __activemask() with it; the lane waits until no lane of its warp can run.
unsigned active_mask();
void active_mask_arrive(const char* file, unsigned line);  // the two halves, for explicit-state bodies
unsigned active_mask_result();
// Hopper's mbarrier (an 8-byte transaction barrier in shared memory, at
// `bar`, which the interpreter has bounds- and race-checked) and its bulk
// copy engine (cp.async.bulk). Faults name file:line.
void mbarrier_init(void* bar, unsigned count, const char* file, unsigned line);
// `count` arrivals (0: expect_tx alone), after adding `tx` bytes the phase must
// also see land; returns the phase's parity.
unsigned mbarrier_arrive(void* bar, unsigned count, unsigned tx, const char* file, unsigned line);
// The copies that signal bar land; then: has the phase of this parity completed?
bool mbarrier_phase_done(void* bar, unsigned parity, const char* file, unsigned line);
// The lane waits until bar changes (fiber lanes return then; explicit-state
// lanes return at once, and retry their test when resumed).
void mbarrier_block(const void* bar, const char* name, long long index, const char* file, unsigned line);
// The shared array a bulk copy writes, for messages: its name, element size, the first element's index.
struct BulkCopyTarget {
    const char* name;
    unsigned elem;
    long long first_index;
};
// A copy-engine copy of `bytes` from global `src` to shared `dst`; it lands,
// completing `bytes` of bar's transaction count, when a thread tests bar.
void bulk_copy(void* dst, const void* src, unsigned bytes, void* bar, const BulkCopyTarget& target, const char* file,
               unsigned line);
// The emulator allocation holding addr; false when none does.
bool find_allocation(std::uintptr_t addr, std::uintptr_t& base, std::size_t& bytes);
// Which lane a shuffle reads (PTX shfl.sync semantics) and whether it lies inside the segment.
unsigned shuffle_source(CollectiveOp op, unsigned lane, int arg, int width, bool* in_range = nullptr);

// "argument 0", "argument 1", ...: how a fault names a global parameter.
const char* argument_name(std::uint8_t position);

template <class P> void bind_argument(P& param, std::uint8_t position)
{
    if constexpr (requires { param.raw(); param.bind(position, 0, ""); }) {
        using Elem = std::remove_pointer_t<decltype(param.raw())>;
        param.bind(position, elements_from(param.raw(), sizeof(Elem)), argument_name(position));
    }
}
}  // namespace detail

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
    template <class T> void copy_to_device(T* dst, const T* src, std::size_t count) { std::memcpy(dst, src, count * sizeof(T)); }
    template <class T> void copy_to_host(T* dst, const T* src, std::size_t count) { std::memcpy(dst, src, count * sizeof(T)); }

    LaunchOptions options;

    template <class... P, class... A>
    void launch(const char* name, void (*kernel)(P...), dim3 grid, dim3 block, A&&... args)
    {
        static_assert(sizeof...(P) == sizeof...(A), "launch: wrong number of kernel arguments");
        std::tuple<P...> params(static_cast<P>(std::forward<A>(args))...);
        bind_all(params, std::index_sequence_for<P...>{});
        struct Ctx {
            void (*kernel)(P...);
            std::tuple<P...>* params;
        } ctx{kernel, &params};
        auto call = [](void* c) {
            auto* k = static_cast<Ctx*>(c);
            std::apply(k->kernel, *k->params);
        };
        detail::run_grid(name, grid, block, options, detail::KernelBody{&ctx, call}, records_, switches_, notes());
    }

    // Runs body once per thread of the grid (the PTX interpreter's launches).
    void launch_body(const char* name, dim3 grid, dim3 block, detail::KernelBody body)
    {
        detail::run_grid(name, grid, block, options, body, records_, switches_, notes());
    }

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

private:
    template <class Tuple, std::size_t... I> static void bind_all(Tuple& t, std::index_sequence<I...>)
    {
        (detail::bind_argument(std::get<I>(t), static_cast<std::uint8_t>(I)), ...);
    }
    detail::RunNotes notes() { return detail::RunNotes{&warnings_, &records_cut_}; }
    std::vector<trace::LaneRecord> records_;
    std::vector<Warning> warnings_;
    bool records_cut_ = false;
    std::vector<void*> owned_;
    std::uint64_t switches_ = 0;
};

}  // namespace wl::emu
