// The interpreter's private interface: the state of a launch and of a lane,
// and the Interpreter class whose members live in the interp_*.cpp files, one
// file a family (memory, arithmetic, collectives, calls, dispatch, warp
// passes, launch). The accesses on the hot path are here, inline, so that both
// interpreter loops (interp_dispatch.cpp, interp_warp_pass.cpp) compile them
// into their handlers as one file did.
//
// Two ways to run a lane. Kernels without device-function calls (nearly all:
// nvcc inlines) run as explicit-state lanes: a lane is its pc and its register
// slots in a per-host-thread array, and waiting (a barrier, a warp collective,
// a Lockstep round before an access) returns from the interpreter loop; the
// result is collected when the scheduler resumes the lane. Under the
// Independent schedule one call runs a whole pass over a warp, the lanes at
// one pc together (interp_warp_pass.cpp). Kernels that call device
// functions run each lane on a fiber instead, since a wait may come deep
// inside a call; their frames live on the fiber's stack.
#pragma once
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "compiled_group.h"
#include "module_impl.h"
#include "values.h"

namespace wl::ptx::detail {

using emu::detail::CollectiveOp;
using trace::Kind;


// Generic addresses of the shared and local windows: far above any host pointer.
constexpr std::uint64_t kSharedWindow = 0xFFFF'8000'0000'0000ULL;
constexpr std::uint64_t kLocalWindow = 0xFFFF'4000'0000'0000ULL;
constexpr std::uint64_t kWindowSize = 0x0000'4000'0000'0000ULL;
constexpr std::uint32_t kLocalCapacity = 24 * 1024;  // per thread, on the fiber stack with the registers
constexpr std::uint32_t kRegisterCapacity = 24 * 1024;

// The warp width is the launch's (Launch::warp_size): 32 unless the runtime
// asks for AMD's 64-wide wavefront. Lane masks hold the widest.
constexpr unsigned kDefaultWarpSize = 32;
constexpr unsigned kMaxWarpSize = 64;
using LaneMask = std::uint64_t;
// The lanes 0 .. n - 1.
constexpr LaneMask lanes_below(unsigned n) { return n >= 64 ? ~LaneMask{0} : (LaneMask{1} << n) - 1; }

// Host memory at an emulator address (64 bits, as PTX's), which the caller has
// found inside an allocation, so it fits the host's pointers.
inline unsigned char* host_bytes(std::uint64_t addr) { return reinterpret_cast<unsigned char*>(static_cast<std::uintptr_t>(addr)); }

struct PointerArg {
    std::uint64_t ptr, alloc_end;
    std::uint8_t position;
};

struct SharedSlot {
    std::uint32_t offset = 0;
    std::uint64_t bytes = 0;
    std::uint32_t elem = 1;
    std::uint8_t id = 0;
    const char* name = "";
    bool zeroed = false;  // starts as zeros, written (the reserved shared memory, as a GPU clears it)
    const emu::detail::DeclaredShape* shape = nullptr;  // the declared dimensions, or null
    // The shape where it counts elements of `unit` bytes (an index's), else null: messages then say name[index].
    const emu::detail::DeclaredShape* shape_in(unsigned unit) const { return shape && shape->elem == unit ? shape : nullptr; }
};

// A GPU keeps 1 KB of each block's shared memory for the toolkit (sm_80 and
// later); cooperative groups' tiles wider than a warp keep their barriers in
// it, in the region at %reserved_smem_offset_1, and count on it starting zeroed.
constexpr std::uint32_t kReservedSharedBytes = 1024;
constexpr const char* kReservedSharedName = "reserved shared memory";

// Everything a launch's lanes share, read-only while they run.
struct Launch {
    const Module::Impl* mod = nullptr;
    const Function* kernel = nullptr;
    std::string kernel_name;
    std::vector<unsigned char> params;            // the kernel's parameter space
    std::vector<std::uint32_t> shared_offset;     // module shared id -> offset in this kernel's arena
    std::vector<SharedSlot> slots;                // this kernel's shared variables, by offset
    std::uint64_t shared_total = 0;
    std::uint32_t dynamic_bytes = 0;
    std::uint32_t reserved_offset = 0;            // the toolkit's reserved shared memory, where the kernel uses it
    const char* dynamic_name = nullptr;           // the kernel's extern __shared__ array, if it declares one
    std::uint32_t dynamic_offset = 0;             // where it starts
    std::vector<PointerArg> pointers;             // pointer arguments, by address
    std::uint32_t local_bytes = 0;                // per thread: the kernel's depot and room for calls
    bool calls = false;                           // the kernel has call instructions
    bool calls_functions = false;                 // ... of functions it defines (not only vprintf & co)
    std::vector<std::uint64_t> image;             // the kernel frame's slots as every thread starts them
    std::vector<std::pair<std::uint32_t, Special>> thread_specials;  // slots that differ per thread
    std::size_t lane_words = 0;                   // explicit-state lanes: 8-byte words of one lane's state and slots
    // Where the Declare records point: PTX does not place variables, so the kernel's first located instruction.
    const char* decl_file = "";
    unsigned decl_line = 0;
    dim3 grid, block;
    unsigned warp_size = kDefaultWarpSize;        // lanes a warp: WARP_SZ, %laneid's range, the lane masks
    std::uint64_t grid_workspace = 0;             // cooperative launches: the grid barrier's (%envreg1:%envreg2)
    bool reads_grid_workspace = false;            // the kernel reads %envreg1 or %envreg2 (cooperative groups' grid)
    std::uint64_t max_instructions = emu::LaunchOptions::kDefaultMaxInstructions;
    std::vector<emu::detail::MachineCount> classes;  // the instruction mix's count of each kernel instruction
    CompiledKernel compiled = nullptr;            // the fast engine's code for the kernel (unwatched blocks), or none
};

struct Thread {
    const Launch* L;
    emu::detail::LaneInfo lane;
    uint3 tid, ctaid;
    unsigned char* arena;  // the block's shared memory
    unsigned char* local;
    std::uint32_t sp = 0;  // local memory in use (call frames' depots)
    std::uint32_t local_capacity = 0;
    std::uint64_t clock = 0;
    // Explicit-state lanes (no fiber): a wait returns from run(); the
    // collective or barrier reduction the lane waits for is finished on resume.
    bool explicit_state = false;
    bool round_done = false;        // Lockstep: this access has had its round
    const Instr* pending = nullptr;
    bool pending_pred = false;      // shfl's in-range predicate, known at arrival
    bool carry = false;             // the condition code of add.cc / addc and kin
    const struct CallSite* caller = nullptr;  // fiber lanes: the call instructions this frame is inside, innermost first
    std::uint64_t budget_used = 0;  // instructions run, counted at backward branches (against max_instructions)
    // The last strong load: the same one seeing the same value again is a spin loop's wait.
    const Instr* spin_at = nullptr;
    std::uint64_t spin_addr = 0, spin_value = 0;
    bool async_copies = false;  // it has issued a cp.async (its pending copies: interp_memory.cpp)
    // The instruction mix: this lane's count of each kernel instruction it reached, or null (emu::detail::instruction_tally).
    std::uint32_t* tally = nullptr;
};

// A call in progress, on the calling lane's fiber stack.
struct CallSite {
    const Instr* at;
    const CallSite* outer;
};

struct Frame {
    const Function* f;
    std::uint64_t* r;
    unsigned char* param;
    std::uint32_t local_base;
};

enum class Flow { Returned, Exited, Waiting };

// Explicit-state lanes: each lane's interpreter state and, right after it,
// its register slots live in one per-host-thread array indexed by the lane,
// so that resuming a lane touches one region; a wait returns from run().
struct LaneRun {
    std::size_t pc = 0;
    Thread t;
    std::uint64_t* slots() { return reinterpret_cast<std::uint64_t*>(this + 1); }
};
static_assert(sizeof(LaneRun) % 8 == 0 && alignof(LaneRun) <= 8, "slots follow a LaneRun in 8-byte words");

// A set of a warp-major pass's lanes (PassLane: compiled_group.h) at one pc.
struct LaneGroup {
    std::size_t pc;
    LaneMask lanes;  // bit k: the pass's k-th lane
};

// Where a warp's lanes stopped in its last pass, as stop_lanes left them (a barrier, their end): all at
// `pc`, with no wait's result to collect, unless `mixed` (another pc, or a lane stopped elsewhere). When
// they are all of the warp's lanes, the next pass resumes them without reading each one's state.
// While not mixed, the pass's lanes that stopped keep `pc` here only, not in their LaneRun::pc: a pass
// that reads their pcs, or a stop elsewhere, first writes it into every lane of the pass (a lane still
// running writes its own when it stops: interp_warp_pass.cpp's write_stop_pcs).
struct WarpStops {
    std::size_t pc = 0;
    unsigned lanes = 0;
    bool mixed = false;
    unsigned first = 0;  // the warp's first lane (flat index)
    LaneMask pass = 0;   // the pass's lanes (bit k: the lane first + k)
};

// What an instruction on the general path leaves the lane to do.
enum class Outcome { Next, Return, Exit, Wait };

// The instructions a warp-major pass's warp (of the lane `flat`) has run, counted against max_instructions.
std::uint64_t& warp_budget(const Launch& L, unsigned flat);

// The fast engine (interp_compiled.cpp): the kernel compiled to host code at
// its first launch (or found in the cache), or null where it cannot be (no
// compiler, a compiler error, calls of device functions); whether this build
// and host can compile at all.
CompiledKernel compiled_kernel(const Module::Impl& m, const Function& k);
bool compiled_engine_available();

// "; inside the toolkit at cuda/std/__barrier/barrier.h:120": where a fault
// at a user's line that called into a toolkit header happened in the header.
std::string header_note(const Module::Impl& m, const SourceLoc& at);

class Interpreter {
public:
    Interpreter(Thread& t) : t_(&t), m_(*t.L->mod) {}
    explicit Interpreter(const Module::Impl& m) : t_(nullptr), m_(m) {}
    Flow run(const Frame& fr, std::size_t& pc);
    // One pass over a warp (the runtime's KernelBody::run_pass), warp-major.
    void run_warp(const Launch& L);
    void finish(const Frame& fr, const Instr& in);
    void fill_thread_constants(const Frame& fr) const
    {
        for (const auto& [slot, which] : t_->L->thread_specials) fr.r[slot] = special(which);
    }
    // The constant slots of a frame that starts.
    void fill_constants(const Frame& fr) const
    {
        std::uint64_t* c = fr.r + fr.f->registers;
        for (const ConstSlot& k : fr.f->consts) {
            switch (k.kind) {
            case OpKind::SharedSym: *c++ = t_->L->shared_offset[k.id] + static_cast<std::uint64_t>(k.imm); break;
            case OpKind::LocalSym: *c++ = fr.local_base + static_cast<std::uint64_t>(k.imm); break;
            case OpKind::Special: *c++ = special(static_cast<Special>(k.imm)); break;
            case OpKind::Func: *c++ = kFunctionTag | k.id; break;
            default: *c++ = static_cast<std::uint64_t>(k.imm); break;
            }
        }
    }

    // The general path: every instruction, with all its qualifiers (the exec_ functions of ops.def).
    Outcome general(const Frame& fr, const Instr& in, std::size_t& pc);

    // What follows is the families' (the interp_*.cpp files and their exec_ functions).
    Thread* t_;  // the lane running (a warp-major pass switches it)
    WarpStops* stops_ = nullptr;  // a warp-major pass: where its warp's lanes stop (take_pass sets it)
    const Module::Impl& m_;
    void run_group(const Launch& L, PassLane* lanes, LaneGroup g, LaneGroup* work, unsigned& groups);
    // A warp pass's lanes as it begins: started (the warp's first pass) or resumed; true when all are at one pc.
    bool start_warp(const Launch& L, const emu::detail::LaneTurn* turns, unsigned n, PassLane* lanes, std::size_t* pcs);
    template <class FlatOf>
    bool resume_warp(const Launch& L, unsigned n, FlatOf flat_of, PassLane* lanes, std::size_t* pcs);
    // The pass's lanes, started or resumed: how many, and (one_pc) whether all are at one pc.
    unsigned take_pass(const Launch& L, PassLane* lanes, std::size_t* pcs, bool& one_pc);
    void fill_pass_constants(const Launch& L, const PassLane* lanes, unsigned n);
    // The same with the launch's compiled kernel (interp_compiled.cpp), which hands back what it does not run.
    void run_compiled(const Launch& L, PassLane* lanes, LaneGroup g, LaneGroup* work, unsigned& groups);
    void arrive_lanes(PassLane* lanes, LaneMask exec, const Instr& in, std::size_t pc);
    std::size_t step_lanes(PassLane* lanes, const Instr& in, std::size_t pc, LaneMask exec, LaneMask& live, Frame& fr,
                           LaneGroup* work, unsigned& groups);
    std::size_t general_lanes(PassLane* lanes, const Instr& in, std::size_t pc, LaneMask exec, LaneMask& live, Frame& fr,
                              LaneGroup* work, unsigned& groups);
    void run_lanes_apart(PassLane* lanes, LaneMask group, std::size_t pc);
    // A plain ld/st of ops.def's fast access forms for the lanes `exec`, as one batch (interp_memory.cpp); false:
    // not all inside one shared variable or pointer argument's allocation, or a watched block: lane by lane.
    bool access_lanes(const PassLane* lanes, LaneMask exec, const Instr& in, const Frame& fr);
    // A cp.async for the lanes `exec`, their global reads checked as one batch (interp_memory.cpp); false,
    // nothing done: lane by lane (a watched block, Lockstep, sizes that differ or fill zeros, addresses apart).
    bool copy_async_lanes(const PassLane* lanes, LaneMask exec, const Instr& in, Frame& fr);
    bool syncwarp_together(PassLane* lanes, LaneMask exec, const Instr& in, std::size_t pc, Frame& fr);
    // A warp-major pass makes a lane the running one: the runtime's, the interpreter's and the frame's.
    void enter(const PassLane& p, Frame& fr)
    {
        emu::detail::enter_lane(p.flat);
        t_ = &p.run->t;
        fr.r = p.r;
        fr.param = p.param;
    }

    // Where an instruction is, as the user sees it: inlined toolkit code was
    // given its user's line by the parser; a toolkit function that nvcc kept
    // separate gets it here, from the call instructions the lane is inside.
    const SourceLoc& user_loc(const Instr& in) const
    {
        const SourceLoc& at = m_.locations[in.loc];
        if (!at.in_toolkit || !t_ || !t_->caller) [[likely]] return at;
        return toolkit_caller(at);
    }
    [[gnu::cold]] const SourceLoc& toolkit_caller(const SourceLoc& at) const
    {
        for (const CallSite* c = t_->caller; c; c = c->outer)
            if (!m_.locations[c->at->loc].in_toolkit) return m_.locations[c->at->loc];
        return at;
    }
    const char* file(const Instr& in) const { return m_.files[user_loc(in).file].c_str(); }
    // The kernel reads the grid barrier's workspace (%envreg1:%envreg2), which this launch, not cooperative, lacks.
    bool grid_barrier_missing() const { return t_->L->reads_grid_workspace && !t_->L->grid_workspace; }
    unsigned line(const Instr& in) const { return user_loc(in).line; }
    [[noreturn]] void fail(const Instr& in, const std::string& what) const
    {
        const SourceLoc& user = user_loc(in);
        emu::detail::kernel_fault(m_.files[user.file].c_str(), user.line, what + header_note(m_, m_.locations[in.loc]));
    }
    [[noreturn]] void unsupported(const Instr& in, const char* why = nullptr) const
    {
        std::string what = in.flags & kUnreadable ? "PTX that warplab cannot read: " + m_.texts[in.text]
                                                  : "unsupported PTX instruction '" + m_.texts[in.text] + "'";
        what += " (PTX line " + std::to_string(in.ptx_line) + ")";
        if (why) what += std::string(": ") + why;
        fail(in, what);
    }

    std::uint64_t special(Special s) const;
    // Whether special(s) is the same for every thread of a block (%ctaid, %ntid; not %tid, %laneid, %clock).
    static bool same_in_block(Special s);
    std::uint64_t get(const Frame& fr, const Operand& o) const
    {
        if (o.kind == OpKind::Reg) [[likely]]
            return o.n ? !(fr.r[o.reg] & 1) : fr.r[o.reg];
        return get_other(fr, o);
    }
    std::uint64_t get_other(const Frame& fr, const Operand& o) const
    {
        switch (o.kind) {
        case OpKind::Imm: return static_cast<std::uint64_t>(o.imm);
        case OpKind::SharedSym: return t_->L->shared_offset[o.reg] + static_cast<std::uint64_t>(o.imm);
        case OpKind::LocalSym: return fr.local_base + static_cast<std::uint64_t>(o.imm);
        case OpKind::ParamSym: return static_cast<std::uint64_t>(o.imm);
        case OpKind::Special: return special(static_cast<Special>(o.imm));
        case OpKind::Func: return kFunctionTag | o.reg;
        default: return 0;
        }
    }
    static void put(const Frame& fr, const Operand& o, Ty t, std::uint64_t v)
    {
        if (o.kind == OpKind::Reg) fr.r[o.reg] = mask_to(t, v);
    }
    static void put_pred(const Frame& fr, const Operand& o, bool v)
    {
        if (o.kind == OpKind::Reg) fr.r[o.reg] = v;
    }
    std::uint64_t address(const Frame& fr, const Operand& o) const
    {
        switch (o.base) {
        case OpKind::Reg: return fr.r[o.reg] + static_cast<std::uint64_t>(o.imm);
        case OpKind::SharedSym: return t_->L->shared_offset[o.reg] + static_cast<std::uint64_t>(o.imm);
        case OpKind::LocalSym: return fr.local_base + static_cast<std::uint64_t>(o.imm);
        default: return static_cast<std::uint64_t>(o.imm);
        }
    }

    // ---- memory
    struct Target {
        unsigned char* p;
        trace::Space space;
        std::uint8_t array;
        std::uint64_t offset;
    };
    Target resolve(const Frame& fr, const Instr& in, Space sp, std::uint64_t addr, unsigned size, Kind kind,
                   const void* stored = nullptr);
    // elem: the element size messages count in (0: the variable's).
    // stored: a store's bytes, for the race check.
    Target shared_target(const Instr& in, std::uint64_t off, unsigned size, Kind kind, unsigned elem = 0,
                         const void* stored = nullptr);
    // stored: a store's bytes, for the race check.
    Target global_target(const Instr& in, std::uint64_t addr, unsigned size, Kind kind, const void* stored = nullptr);
    void check_global(const Instr& in, std::uint64_t addr, unsigned size, Kind kind, const char* name,
                      std::uint64_t offset, const void* stored)
    {
        emu::detail::check_global_access(kind, host_bytes(addr), size, name, offset, file(in), line(in),
                                         in.order == kPlain ? stored : nullptr, in.order != kPlain || in.cas_seed,
                                         in.releases);
    }
    // A pointer argument's name in messages: the source's, else "argument N".
    const char* pointer_name(const PointerArg& a) const
    {
        const std::string& named = t_->L->kernel->info.params[a.position].source_name;
        return named.empty() ? emu::detail::argument_name(a.position) : named.c_str();
    }
    // The fault messages, out of the hot paths' way.
    [[noreturn, gnu::cold, gnu::noinline]] void shared_bounds_fault(const Instr& in, std::uint64_t off,
                                                                    const SharedSlot* v, Kind kind) const;
    [[noreturn, gnu::cold, gnu::noinline]] void global_bounds_fault(const Instr& in, std::uint64_t addr, unsigned size,
                                                                    const PointerArg* below, Kind kind) const;
    void record(const Instr& in, Kind kind, const Target& tg, unsigned size, const void* value) const
    {
        if (t_->lane.watched && tg.space != trace::Space::None)
            emu::detail::record_access(kind, tg.space, size, tg.array, tg.offset, value, size, file(in), line(in));
    }
    std::uint32_t load32(const Instr& in, const Target& tg)
    {
        std::uint32_t v;
        std::memcpy(&v, tg.p, 4);
        record(in, Kind::Load, tg, 4, &v);
        return v;
    }
    void store32(const Instr& in, const Target& tg, std::uint32_t v)
    {
        std::memcpy(tg.p, &v, 4);
        record(in, Kind::Store, tg, 4, &v);
    }
    void store_shared32(const Instr& in, std::uint64_t off, std::uint32_t v)
    {
        store32(in, shared_target(in, off, 4, Kind::Store, 0, &v), v);
    }
    void store_global32(const Instr& in, std::uint64_t addr, std::uint32_t v)
    {
        store32(in, global_target(in, addr, 4, Kind::Store, &v), v);
    }
    // A plain .v2 or .v4 access of 4-byte elements, element k in the lane's
    // slot registers[k] (kNoReg, PTX's `_`: a load drops it, a store writes 0).
    void load_vector(const Instr& in, const Target& tg, std::uint64_t* r, const std::uint32_t* registers, unsigned lanes)
    {
        std::uint32_t v[4];
        std::memcpy(v, tg.p, 4 * lanes);
        record(in, Kind::Load, tg, 4 * lanes, v);
        for (unsigned k = 0; k < lanes; ++k)
            if (registers[k] != kNoReg) r[registers[k]] = v[k];
    }
    static void gather(const std::uint64_t* r, const std::uint32_t* registers, unsigned lanes, std::uint32_t* v)
    {
        for (unsigned k = 0; k < lanes; ++k) v[k] = registers[k] == kNoReg ? 0 : static_cast<std::uint32_t>(r[registers[k]]);
    }
    void store_vector(const Instr& in, const Target& tg, const std::uint32_t* v, unsigned lanes)
    {
        std::memcpy(tg.p, v, 4 * lanes);
        record(in, Kind::Store, tg, 4 * lanes, v);
    }
    void store_shared_vector(const Instr& in, std::uint64_t off, const std::uint64_t* r, const std::uint32_t* registers,
                             unsigned lanes)
    {
        std::uint32_t v[4];
        gather(r, registers, lanes, v);
        store_vector(in, shared_target(in, off, 4 * lanes, Kind::Store, 0, v), v, lanes);
    }
    void store_global_vector(const Instr& in, std::uint64_t addr, const std::uint64_t* r, const std::uint32_t* registers,
                             unsigned lanes)
    {
        std::uint32_t v[4];
        gather(r, registers, lanes, v);
        store_vector(in, global_target(in, addr, 4 * lanes, Kind::Store, v), v, lanes);
    }
    bool load(const Frame& fr, const Instr& in);  // true: a spin loop's load (Thread::spin_at)
    // A backward branch from pc - 1 to `to`: the loop's instructions count against the instruction budget.
    void count_loop(const Instr& in, std::size_t pc, std::size_t to)
    {
        if (to >= pc) return;
        t_->budget_used += pc - to;
        if (t_->budget_used > t_->L->max_instructions) [[unlikely]]
            budget_spent(in);
    }
    [[noreturn, gnu::cold, gnu::noinline]] void budget_spent(const Instr& in) const
    {
        emu::detail::instruction_budget_fault(t_->L->max_instructions, file(in), line(in));
    }
    void store(const Frame& fr, const Instr& in);
    void atomic(const Frame& fr, const Instr& in);
    void copy_async(const Frame& fr, const Instr& in);
    void async_group(const Frame& fr, const Instr& in);  // commit_group, wait_group, wait_all
    void land_async_copies(std::size_t count);  // the thread's oldest `count` cp.async copies
    void bulk_copy(const Frame& fr, const Instr& in);
    bool mbarrier(const Frame& fr, const Instr& in);
    Target mbarrier_target(const Frame& fr, const Instr& in, const Operand& o, Kind kind);
    const SharedSlot* shared_slot(std::uint64_t off) const;

    // ---- arithmetic
    void integer_op(const Frame& fr, const Instr& in);
    void float_op(const Frame& fr, const Instr& in);
    void float_op_directed(const Frame& fr, const Instr& in);
    void convert(const Frame& fr, const Instr& in);
    bool compare(const Instr& in, std::uint64_t a, std::uint64_t b) const;
    void setp(const Frame& fr, const Instr& in);

    // ---- control and collectives
    Flow call(const Frame& fr, const Instr& in);
    void builtin(const Frame& fr, const Instr& in, const Function& callee);
    bool warp_op(const Frame& fr, const Instr& in);
    void arrive(const Frame& fr, const Instr& in);
    CollectiveOp collective_op(const Instr& in) const;
    bool round_pending(std::size_t& pc)
    {
        // Lockstep, explicit-state lanes: return to the scheduler once before each access
        if (!t_->explicit_state || !t_->lane.lockstep) return false;
        if (t_->round_done) {
            t_->round_done = false;
            return false;
        }
        t_->round_done = true;
        --pc;
        if (t_->tally) --t_->tally[pc];  // reached again when the lane resumes: counted then
        return true;
    }
    std::string format(std::uint64_t fmt, std::uint64_t args, const Instr& in);
    const char* host_string(std::uint64_t generic, const Instr& in);
};

// A frame on this fiber's stack: registers and the local depot.
// image: the frame's starting slots prepared once per launch (the kernel's), or null.
Flow run_function(Thread& t, const Function& f, unsigned char* param, const std::uint64_t* image);

// The runtime's entry points (emu::detail::KernelBody): a fiber lane's whole run
// (interp_launch.cpp); an explicit-state lane resumed, one warp-major pass
// (interp_warp_pass.cpp).
void lane_main(void* launch);
bool resume_lane(void* launch, unsigned lane, bool first);
void run_warp_pass(void* launch);
// 8-byte words per explicit-state lane: its LaneRun and its slots, rounded up to whole cache lines.
std::size_t lane_words(std::size_t slots);

// The general path's functions, one an operation (several operations may share one).
#define PTX_OP(Enum, name, exec, mix, traced) Outcome exec(Interpreter& it, const Frame& fr, const Instr& in, std::size_t& pc);
#include "ops.def"

// ---- the hot path: accesses both loops inline

// The offset a .shared address names. Shared addresses are 32 bits wide on
// the GPU, and nvcc's address arithmetic on 32-bit registers relies on their
// wrapping: for temp[y - 1][x] it may keep temp - 68 * tx + 4 * tx in a
// register (below zero for tx > 0) and add 136 in the access. Registers hold
// 32-bit values zero-extended, so the sum is taken modulo 2^32 here.
constexpr std::uint64_t shared_address(std::uint64_t addr) { return static_cast<std::uint32_t>(addr); }

inline const SharedSlot* Interpreter::shared_slot(std::uint64_t off) const
{
    const SharedSlot* v = nullptr;
    for (const SharedSlot& s : t_->L->slots)
        if (s.offset <= off) v = &s;
    return v;
}

inline Interpreter::Target Interpreter::shared_target(const Instr& in, std::uint64_t off, unsigned size, Kind kind,
                                                      unsigned elem, const void* stored)
{
    const SharedSlot* v = shared_slot(off);
    if (!v || off + size > v->offset + v->bytes) shared_bounds_fault(in, off, v, kind);
    if (t_->lane.lockstep && !t_->explicit_state) emu::detail::access_round();
    const unsigned unit = elem ? elem : v->elem;
    const long long index = static_cast<long long>((off - v->offset) / unit);
    // The toolkit's reserved memory is ordered by its own acquire/release barriers, which the race check does not model.
    if (!v->zeroed)
        emu::detail::check_shared_access(kind, t_->arena + off, size, v->name, index, v->shape_in(unit), file(in), line(in),
                                         in.order == kStrong ? nullptr : stored, in.order == kStrong || in.cas_seed,
                                         in.op == Op::Atom && in.sub == Sub::Exch);
    return Target{t_->arena + off, trace::Space::Shared, v->id, off - v->offset};
}


// The allocation holding addr; an address beyond the host's pointers (2^32 on a
// 32-bit host) is in none, rather than truncated into one.
inline bool find_host_allocation(std::uint64_t addr, std::uintptr_t& base, std::size_t& bytes)
{
    return addr <= std::numeric_limits<std::uintptr_t>::max() &&
           emu::detail::find_allocation(static_cast<std::uintptr_t>(addr), base, bytes);
}

inline Interpreter::Target Interpreter::global_target(const Instr& in, std::uint64_t addr, unsigned size, Kind kind,
                                                      const void* stored)
{
    const Launch& L = *t_->L;
    if (t_->lane.lockstep && !t_->explicit_state) emu::detail::access_round();
    const PointerArg* below = nullptr;
    for (const PointerArg& a : L.pointers)
        if (a.ptr <= addr) below = &a;
    if (below && addr < below->alloc_end) {
        if (addr + size <= below->alloc_end) {
            check_global(in, addr, size, kind, pointer_name(*below), addr - below->ptr, stored);
            return Target{host_bytes(addr), trace::Space::Global, below->position,
                          addr - below->ptr + below->ptr % 256};
        }
    } else {
        for (const auto& [base, bytes] : m_.var_ranges)  // module .global variables
            if (addr >= base && addr + size <= base + bytes) {
                check_global(in, addr, size, kind, "a __device__ variable", addr - base, stored);
                return Target{host_bytes(addr), trace::Space::Global, 0xFF, addr - base};
            }
        std::uintptr_t base = 0;
        std::size_t bytes = 0;
        if (find_host_allocation(addr, base, bytes) && addr + size <= base + bytes) {
            check_global(in, addr, size, kind, "global memory", addr - base, stored);
            return Target{host_bytes(addr), trace::Space::Global, 0xFF, addr - base + base % 256};
        }
    }
    global_bounds_fault(in, addr, size, below, kind);
}

// The hot forms' operands in the running lane's slots `r` (ops.def's rows use them).
#define WL_A (r[in->o[1].reg])
#define WL_B (r[in->o[2].reg])
#define WL_C (r[in->o[3].reg])
#define WL_D (r[in->o[0].reg])
#define WL_LIST(k) (fr.f->lists.data() + in->o[k].reg)  // operand k's registers (a vector's)

}  // namespace wl::ptx::detail
