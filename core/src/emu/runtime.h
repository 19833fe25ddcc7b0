// The runtime's interface to the PTX interpreter (core/src/ptx/): how a launch
// runs its threads (KernelBody), and the entries a running lane calls for
// shared memory, checks, records, barriers, warp collectives and mbarriers.
// Private to core/: front ends see only warplab/emu/emulator.h.
//
// Every entry acts for the lane the scheduler is running on this host thread
// (a fiber's lane, a resumed lane, or the lane a warp pass entered last).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "warplab/emu/emulator.h"
#include "warplab/trace/record.h"

namespace wl::emu::detail {

// The widest warp LaunchOptions::warp_width allows.
constexpr unsigned kMaxWarpWidth = 64;

// ---- launching ----

// What one kernel instruction counts in the instruction mix: one machine
// instruction of class `cls` (a trace::InstructionClass) unless kFolded, and
// `extra` more of class `extra_cls` that the assembler adds around it, each
// time the warp reaches it, or each time it reaches instruction `issued_with`
// (a branch the assembler turned into predication of this instruction).
inline constexpr std::uint8_t kFolded = 0xFF;
inline constexpr std::uint32_t kOwnCount = ~0u;
struct MachineCount {
    std::uint8_t cls = kFolded;
    std::uint8_t extra_cls = 0;
    std::uint8_t extra = 0;
    std::uint32_t issued_with = kOwnCount;
};

struct KernelBody {
    void* ctx;
    void (*call)(void*);  // runs one thread to its end on its own fiber
    // Or, without fibers: runs the thread with this flat index until it waits
    // (barrier, collective, lockstep access) or ends; true when it ended. The
    // runtime's waiting entries then return at once instead of yielding: the
    // body keeps its own state and picks up the results when resumed.
    bool (*run_lane)(void* ctx, unsigned lane, bool first) = nullptr;
    // Or, with run_lane, under Independent: runs one pass over a warp in a
    // single call. It takes the pass's lanes from pass_in_order() or pass_lanes() and may run them
    // warp by warp instruction (converged lanes together), entering each lane
    // before it touches the runtime for it and leaving it when it waits or ends.
    void (*run_pass)(void* ctx) = nullptr;
    // The instruction mix (warplab/trace/mix.h): the machine instructions of
    // each of the kernel's `instructions` instructions, by index. With it, a
    // watched block's lanes count the instructions they reach
    // (instruction_tally) and the block ends with its Kind::Mix records.
    const MachineCount* instruction_counts = nullptr;
    std::uint32_t instructions = 0;
    Engine engine = Engine::Interpret;  // what runs the unwatched blocks (a compiled kernel: Fast)
};

// Runs body once per thread of the grid. Appends the watched blocks' records.
// Adds the fiber switches the launch made to `switches`.
// Appends the launch's warnings (one per site) and says whether the records were cut at opt.max_record_bytes.
struct RunNotes {
    std::vector<Warning>* warnings;
    bool* records_cut;
};
void run_grid(const char* kernel, dim3 grid, dim3 block, const LaunchOptions& opt, const KernelBody& body,
              std::vector<trace::LaneRecord>& records, std::uint64_t& switches, RunNotes notes);

// ---- the running lane ----

// CUDA's built-in variables for the running lane.
struct ThreadView {
    uint3 thread_idx;
    uint3 block_idx;
    dim3 block_dim;
    dim3 grid_dim;
};
const ThreadView& thread_view();

struct LaneInfo {
    unsigned flat, warp, lane;
    bool watched;   // the block records
    bool lockstep;  // Schedule::Lockstep
};
LaneInfo current_lane();

// The entered lane's count of each kernel instruction it reached in its
// current step (KernelBody::instruction_counts), or null when nothing is
// counted (the block is not watched). The runtime takes the counts at each
// step's end; the row stays in place for the block's whole run.
std::uint32_t* instruction_tally();

// Host-thread locals of the runtime and the interpreter. __thread: no TLS
// wrapper on the hot paths; local-exec: the runtime is a static library of
// executables, so these are reached at a fixed offset, as locals of one file.
#define WL_RUNTIME_TLS __thread __attribute__((tls_model("local-exec")))
// Lane-instructions this host thread has run: one per lane an instruction
// executes for (not for lanes its guard predicate skips). The interpreter
// adds to it; each launch adds what its host threads ran to lane_instructions_run().
extern WL_RUNTIME_TLS std::uint64_t tls_lane_instructions;

// ---- warp passes (KernelBody::run_pass) ----

// One lane of a pass: its flat index, and whether it starts.
struct LaneTurn {
    unsigned flat;
    bool first;
};
// The pass's runnable lanes, in the scheduler's order; each is marked started. Returns how many.
unsigned pass_lanes(LaneTurn (&lanes)[kMaxWarpWidth]);
// A pass over a whole warp whose lanes all run and have all started before: its i-th lane is the
// lane flat first + ((i * odd + offset) & (count - 1)), so that nothing need be taken lane by lane.
struct PassOrder {
    unsigned first, odd, offset, count;
};
// The pass's order where it is such a pass (its lanes taken: pass_lanes is not called); false otherwise.
bool pass_in_order(PassOrder& order);
// Makes one of the pass's lanes the one the runtime's entries act for.
void enter_lane(unsigned flat);
// Ends the entered lane's turn (ended: it finished its body).
void leave_lane(bool ended);
// The pass's lanes `flats`, none of them entered, finish their bodies together.
void end_lanes(const unsigned* flats, unsigned count);
// Fiber lanes: back to the scheduler until it resumes this lane.
void wait_turn();

// ---- memory ----

// Shared arrays are per block: the first lane to declare the k-th array
// allocates it, poisoned and unwritten, or (zeroed) as zeros that count as written.
void* declare_shared(unsigned elem_size, unsigned long long count, const char* name, const char* file,
                     unsigned line, bool zeroed);
// The emulator allocation holding addr; false when none does.
bool find_allocation(std::uintptr_t addr, std::uintptr_t& base, std::size_t& bytes);
// The device heap of kernels' malloc and free (and new and delete), of
// device_heap_bytes() (emulator.h): a block is poisoned memory found by
// address as device memory until freed, and lives across launches as on a GPU.
// A block freed in a launch keeps its address until the next launch starts,
// so that no later block of the same launch takes it (the race check would
// take that block's accesses for the freed one's).
void* heap_malloc(std::size_t bytes);  // nullptr when the heap cannot hold it, as on a GPU
bool heap_free(void* p);               // false: p is no live block of the heap
void heap_new_launch();                // gives back the blocks freed before it
// "argument 0", "argument 1", ...: how a fault names a global parameter.
const char* argument_name(std::uint8_t position);

// ---- checks, records, faults ----

// A shared array's dimensions as its declaration writes them ({8, 8} of `float Mds[8][8]`), counted
// in elements of `elem` bytes; rank 0 where no declaration is known (PTX alone, `extern __shared__`).
struct DeclaredShape {
    static constexpr unsigned kMaxRank = 4;
    std::uint64_t extents[kMaxRank] = {};
    unsigned rank = 0;
    unsigned elem = 0;
};
// An element named as the source writes it: "Mds[1][0]" for index 8 of `float Mds[8][8]`, where
// `shape` counts the index's elements. "name[index]" where shape is null, one-dimensional, or the
// index lies outside the array (past the last row no element has a row and column).
std::string element_name(const char* name, const DeclaredShape* shape, long long index);

// Lockstep: one round per access (the lane yields); Independent: nothing.
void access_round();
// Shared-memory checks of one access (uninitialised reads, races); element_name(name, shape, index) for messages.
// stored: a store's bytes (lanes of one instruction storing the same bytes to a word do not race);
// strong: a load with .acquire, .relaxed or .volatile, which races with no atomic;
// overwrites: an atomic that needs nothing written before it (atomicExch, whose old value a lock's or a
// table's initialisation drops).
void check_shared_access(trace::Kind kind, void* ptr, unsigned size, const char* name, long long index, const DeclaredShape* shape,
                         const char* file, unsigned line, const void* stored = nullptr, bool strong = false,
                         bool overwrites = false);
// Global-memory checks of one access (races between threads of the grid); `name[offset / size]` for messages.
// stored: a plain store's bytes; strong: an atomic-like load or store (.relaxed, .acquire, .release,
// .volatile), which races with no atomic; releases: st/atom/red .release or .acq_rel, which orders the
// block's accesses so far before it.
void check_global_access(trace::Kind kind, void* ptr, unsigned size, const char* name, std::uint64_t offset,
                         const char* file, unsigned line, const void* stored, bool strong, bool releases);
// One plain ld.global or st.global (4, 8 or 16 bytes, no .release) for `count` lanes of the running warp
// pass, in the pass's order, each inside one allocation the caller has found: each lane is entered, its
// access checked as check_global_access checks it (name[offset / size], offset from `base`), then its
// bytes moved: a store's from data[k] into ptrs[k], a load's from ptrs[k] into data[k].
struct GlobalLanes {
    trace::Kind kind;  // Load or Store
    unsigned size;
    const char* name;
    std::uintptr_t base;
    const char* file;
    unsigned line;
};
void access_global_lanes(const GlobalLanes& at, const unsigned* flats, unsigned char* const* ptrs,
                         std::uint32_t (*data)[4], unsigned count);
// The same for a plain ld.shared or st.shared whose lanes all fall in one shared array, checked as
// check_shared_access checks them: name[index], index counted in elements of `elem` bytes from `base`.
struct SharedLanes {
    trace::Kind kind;  // Load or Store
    unsigned size;
    const char* name;
    const unsigned char* base;
    unsigned elem;
    const char* file;
    unsigned line;
    const DeclaredShape* shape;  // in elements of `elem` bytes, or null
};
void access_shared_lanes(const SharedLanes& at, const unsigned* flats, unsigned char* const* ptrs,
                         std::uint32_t (*data)[4], unsigned count);
// An atomic's check keeps the word's shadow locked (where blocks run on several host threads), so that
// the shadow's last writer is the last operation; after the operation, this unlocks it and acquires.
void global_atomic_done();
// After a strong load of global memory: an acquire (what other blocks released before it is
// ordered before what this block does next).
void global_acquire();
// A memory fence (membar.gl/.sys/.cta, fence.sc/.acq_rel): a release, then an acquire.
void memory_fence();
// A spinning lane, at the spin's file:line, before spin_yield: in a cooperative
// grid that waits forever (every block spins, nothing changes) it faults there.
void grid_spin(const char* file, unsigned line);
// A spinning lane (a strong load, which a loop may be waiting on) gives the others a turn.
// Explicit-state lanes: true when the caller must return (the lane resumes after the load).
bool spin_yield();
// The budget of opt.max_instructions per thread is spent: the launch stops (the message says where).
[[noreturn]] void instruction_budget_fault(std::uint64_t budget, const char* file, unsigned line);
void record_access(trace::Kind kind, trace::Space space, unsigned size, std::uint8_t array, std::uint64_t offset,
                   const void* value, unsigned value_bytes, const char* file, unsigned line);
[[noreturn]] void kernel_fault(const char* file, unsigned line, std::string what);

// ---- barriers ----

// bar.sync (op None) and bar.red.popc/and/or: every thread of the block waits; returns the reduction.
enum class BarrierOp : std::uint8_t { None, Popc, And, Or };
unsigned barrier(BarrierOp op, unsigned value, const char* file, unsigned line);
// The two halves of barrier() for explicit-state bodies.
void barrier_arrive(BarrierOp op, unsigned value, const char* file, unsigned line);
unsigned barrier_result();
// Lanes of a pass reach one bar.sync together: each arrives as
// barrier_arrive(None) would have it, and their turns end.
void barrier_arrive_lanes(const unsigned* flats, unsigned count, const char* file, unsigned line);
// __activemask(): the lanes of the calling lane's warp that reach this same
// __activemask() with it; the lane waits until no lane of its warp can run.
void active_mask_arrive(const char* file, unsigned line);
std::uint64_t active_mask_result();

// ---- warp collectives ----

// A collective's member mask, and how many bits it was given in. PTX's masks
// are 32 bits: LaneMask(m). A 64-lane warp needs all 64: LaneMask::wide(m).
// A 32-bit mask in a 64-lane warp is refused (a fault): it cannot say whether
// it means lanes 0-31, or the calling lane's half, or the whole warp.
struct LaneMask {
    std::uint64_t bits;
    unsigned width;  // 32 or 64
    constexpr LaneMask(std::uint32_t m) : bits(m), width(32) {}
    LaneMask(std::uint64_t) = delete;  // say which: LaneMask(std::uint32_t) or LaneMask::wide
    static constexpr LaneMask wide(std::uint64_t m)
    {
        LaneMask k(0u);
        k.bits = m;
        k.width = 64;
        return k;
    }
};

// Every lane in mask must arrive. Ballot and everything after it up to
// MmaTf32 is a vote (recorded as Kind::Vote). MmaTf32 (mma.sync m16n8k8 in
// TF32: 40 bytes in, a lane's a, b and c fragments; 16 out, its d) is not
// recorded and opens no step: the GPU trace sees no event there either.
// WarpMatrix (wmma.mma) neither: each lane arrives with a WarpProduct as its
// first word and what that product reads of it after; once all 32 lanes
// have, the first lane's product runs over every lane's input (it reads and
// writes the waiting lanes' registers itself) and nothing is taken.
enum class CollectiveOp : std::uint8_t {
    SyncWarp, ShflIdx, ShflUp, ShflDown, ShflXor, Ballot, Any, All, ReduceAdd,
    Uni, MatchAny, MatchAll, ReduceMinU, ReduceMaxU, ReduceMinS, ReduceMaxS, ReduceAnd, ReduceOr, ReduceXor,
    MmaTf32, WarpMatrix,
};
// A WarpMatrix product over the 32 lanes' inputs; a non-empty result is the fault it finds.
using WarpProduct = std::string (*)(const std::uint64_t (*inputs)[5]);
// The lane arrives with `bytes` of input (up to 40); it waits until every lane
// of mask has. `width`: a shuffle's segment, a power of two up to the warp width.
void collective_arrive(CollectiveOp op, LaneMask mask, const void* in, unsigned bytes, int arg, int width,
                       const char* file, unsigned line);
// Once resumed: this lane's result bytes (a ballot or match mask in a 64-lane warp is 8 bytes).
void collective_take(void* out, unsigned bytes);
// Lanes of a pass reach one __syncwarp(mask) (bar.warp.sync) together: each
// arrives as collective_arrive(SyncWarp, mask) would have it, and their turns end.
void syncwarp_arrive_lanes(const unsigned* flats, unsigned count, LaneMask mask, const char* file, unsigned line);
// Which lane a shuffle reads (PTX shfl.sync semantics, the source lane taken
// modulo the warp width) and whether it lies inside the segment.
unsigned shuffle_source(CollectiveOp op, unsigned lane, int arg, int width, bool* in_range = nullptr,
                        unsigned warp_width = 32);

// ---- mbarriers and bulk copies ----

// Hopper's mbarrier (an 8-byte transaction barrier in shared memory, at
// `bar`, which the interpreter has bounds- and race-checked) and its bulk
// copy engine (cp.async.bulk). Faults name file:line.
void mbarrier_init(void* bar, unsigned count, const char* file, unsigned line);
// `count` arrivals (0: expect_tx alone), after adding `tx` bytes the phase must
// also see land; returns the phase's parity.
unsigned mbarrier_arrive(void* bar, unsigned count, unsigned tx, const char* file, unsigned line);
// arrive_drop: `count` arrivals that later phases no longer expect either (cuda::barrier::arrive_and_drop).
unsigned mbarrier_arrive_drop(void* bar, unsigned count, const char* file, unsigned line);
// What the lane did so far is ordered before bar's current phase completes,
// with no arrival (cp.async.mbarrier.arrive without .noinc: its copies land first).
void mbarrier_release(void* bar);
// mbarrier.inval: the object at bar ends; its 8 bytes may be reused.
void mbarrier_inval(void* bar);
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

}  // namespace wl::emu::detail
