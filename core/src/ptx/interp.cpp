// The PTX interpreter: every CUDA thread runs the decoded instructions of its
// kernel on the emulator runtime, so the runtime's checks, schedules and
// records apply unchanged.
//
// Two ways to run a lane. Kernels without device-function calls (nearly all:
// nvcc inlines) run as explicit-state lanes: a lane is its pc and its register
// slots in a per-host-thread array, and waiting (a barrier, a warp collective,
// a Lockstep round before an access) returns from the interpreter loop; the
// result is collected when the scheduler steps the lane again. Under the
// Independent schedule one call runs a whole pass over a warp, the lanes at
// one pc together (see "warp-major passes"). Kernels that call device
// functions run each lane on a fiber instead, since a wait may come deep
// inside a call; their frames live on the fiber's stack.
#include <alloca.h>

#include <algorithm>
#include <atomic>

#include <bit>
#include <cfenv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>
#include <sstream>

#include "module_impl.h"

namespace wl::ptx {
namespace {

using namespace detail;
using emu::detail::CollectiveOp;
using trace::Kind;

// Generic addresses of the shared and local windows: far above any host pointer.
constexpr std::uint64_t kSharedWindow = 0xFFFF'8000'0000'0000ULL;
constexpr std::uint64_t kLocalWindow = 0xFFFF'4000'0000'0000ULL;
constexpr std::uint64_t kWindowSize = 0x0000'4000'0000'0000ULL;
constexpr std::uint64_t kFunctionTag = 0xFFFF'0000'0000'0000ULL;  // `mov %rd, func`: an indirect call target
constexpr std::uint32_t kLocalCapacity = 24 * 1024;  // per thread, on the fiber stack with the registers
constexpr std::uint32_t kRegisterCapacity = 24 * 1024;

struct PointerArg {
    std::uintptr_t ptr, alloc_end;
    std::uint8_t position;
};

struct SharedSlot {
    std::uint32_t offset = 0;
    std::uint64_t bytes = 0;
    std::uint32_t elem = 1;
    std::uint8_t id = 0;
    const char* name = "";
    bool zeroed = false;  // starts as zeros, written (the reserved shared memory, as a GPU clears it)
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
    std::uint64_t max_steps = emu::LaunchOptions::kDefaultMaxInstructions;
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
    bool stepping = false;
    bool round_done = false;        // Lockstep: this access has had its round
    const Instr* pending = nullptr;
    bool pending_pred = false;      // shfl's in-range predicate, known at arrival
    bool carry = false;             // the condition code of add.cc / addc and kin
    const struct CallSite* caller = nullptr;  // fiber lanes: the call instructions this frame is inside, innermost first
    std::uint64_t steps = 0;        // instructions run, counted at backward branches (the step budget)
    // The last strong load: the same one seeing the same value again is a spin loop's wait.
    const Instr* spin_at = nullptr;
    std::uint64_t spin_addr = 0, spin_value = 0;
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

// One lane of a warp-major pass (Interpreter::run_warp), and a set of them at one pc.
struct PassLane {
    LaneRun* run;
    std::uint64_t* r;
    unsigned char* param;
    unsigned flat;
};
struct LaneGroup {
    std::size_t pc;
    std::uint32_t lanes;  // bit k: the pass's k-th lane
};
LaneRun& lane_run(const Launch& L, unsigned lane, bool first);
unsigned char* lane_params(const Launch& L, unsigned lane);
// Warp-major passes: each warp's step count (the budget), by warp of the block this host thread runs.
thread_local std::vector<std::uint64_t> tls_warp_steps;

// ---------------------------------------------------------------- values --

inline std::uint32_t u32(std::uint64_t v) { return static_cast<std::uint32_t>(v); }
inline std::int32_t s32(std::uint64_t v) { return static_cast<std::int32_t>(v); }
inline float f32(std::uint64_t v) { return std::bit_cast<float>(static_cast<std::uint32_t>(v)); }
inline double f64(std::uint64_t v) { return std::bit_cast<double>(v); }
inline std::uint64_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }
inline std::uint64_t bits(double d) { return std::bit_cast<std::uint64_t>(d); }
inline float half_to_float(std::uint16_t h) { return static_cast<float>(std::bit_cast<_Float16>(h)); }
inline std::uint16_t float_to_half(float f) { return std::bit_cast<std::uint16_t>(static_cast<_Float16>(f)); }
inline std::uint16_t double_to_half(double d) { return std::bit_cast<std::uint16_t>(static_cast<_Float16>(d)); }
inline float bf16_to_float(std::uint16_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16); }
inline std::uint16_t float_to_bf16(float f)
{
    std::uint32_t u = std::bit_cast<std::uint32_t>(f);
    if (std::isnan(f)) return 0x7FC0;
    u += 0x7FFF + ((u >> 16) & 1);  // round to nearest even
    return static_cast<std::uint16_t>(u >> 16);
}

inline std::uint64_t mask_to(Ty t, std::uint64_t v)
{
    switch (ty_bytes(t)) {
    case 1: return v & 0xFF;
    case 2: return v & 0xFFFF;
    case 4: return v & 0xFFFF'FFFF;
    default: return v;
    }
}
inline std::int64_t sext(Ty t, std::uint64_t v)
{
    switch (ty_bytes(t)) {
    case 1: return static_cast<std::int8_t>(v);
    case 2: return static_cast<std::int16_t>(v);
    case 4: return static_cast<std::int32_t>(v);
    default: return static_cast<std::int64_t>(v);
    }
}

// Ordered comparison of two non-NaN values (the unordered forms agree on those).
template <class T> inline bool compare_values(Cmp c, T x, T y)
{
    switch (c) {
    case Cmp::Eq: case Cmp::Equ: return x == y;
    case Cmp::Ne: case Cmp::Neu: return x != y;
    case Cmp::Lt: case Cmp::Lo: case Cmp::Ltu: return x < y;
    case Cmp::Le: case Cmp::Ls: case Cmp::Leu: return x <= y;
    case Cmp::Gt: case Cmp::Hi: case Cmp::Gtu: return x > y;
    case Cmp::Ge: case Cmp::Hs: case Cmp::Geu: return x >= y;
    default: return false;
    }
}

// setp.f32: the ordered comparisons are false with a NaN operand, the unordered ones true.
inline bool compare_floats(Cmp c, float x, float y)
{
    if (c == Cmp::Num) return !std::isnan(x) && !std::isnan(y);
    if (c == Cmp::Nan) return std::isnan(x) || std::isnan(y);
    if (std::isnan(x) || std::isnan(y)) return c >= Cmp::Equ;
    return compare_values(c, x, y);
}

float ftz(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }

int fenv_mode(Round r)
{
    switch (r) {
    case Round::Rz: case Round::Rzi: return FE_TOWARDZERO;
    case Round::Rm: case Round::Rmi: return FE_DOWNWARD;
    case Round::Rp: case Round::Rpi: return FE_UPWARD;
    default: return FE_TONEAREST;
    }
}
// A non-default rounding mode for the host's float operations while it lives.
struct RoundingScope {
    bool set;
    explicit RoundingScope(Round r) : set(r == Round::Rz || r == Round::Rm || r == Round::Rp)
    {
        if (set) std::fesetround(fenv_mode(r));
    }
    ~RoundingScope()
    {
        if (set) std::fesetround(FE_TONEAREST);
    }
};

double round_integer(double x, Round r)
{
    switch (r) {
    case Round::Rzi: return std::trunc(x);
    case Round::Rmi: return std::floor(x);
    case Round::Rpi: return std::ceil(x);
    default: return std::nearbyint(x);  // rni: to nearest even under the default mode
    }
}

// ------------------------------------------------------------ the lane --

// "; inside the toolkit at cuda/std/__barrier/barrier.h:120": where a fault
// at a user's line that called into a toolkit header happened in the header.
std::string header_note(const Module::Impl& m, const SourceLoc& at)
{
    if (!at.header_file) return "";
    std::string path = m.files[at.header_file];
    if (const auto inc = path.rfind("/include/"); inc != std::string::npos) path = path.substr(inc + 9);
    return "; inside the toolkit at " + path + ":" + std::to_string(at.header_line);
}

class Interpreter {
public:
    Interpreter(Thread& t) : t_(&t), m_(*t.L->mod) {}
    explicit Interpreter(const Module::Impl& m) : t_(nullptr), m_(m) {}
    Flow run(const Frame& fr, std::size_t& pc);
    // One pass over a warp (KernelBody::run_pass), warp-major.
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

private:
    Thread* t_;  // the lane running (a warp-major pass switches it)
    const Module::Impl& m_;
    enum class Step { Next, Return, Exit, Wait };
    Step slow(const Frame& fr, const Instr& in, std::size_t& pc);
    void run_group(const Launch& L, PassLane* lanes, LaneGroup g, LaneGroup* work, unsigned& groups);
    void run_lanes_apart(PassLane* lanes, std::uint32_t group, std::size_t pc);
    bool syncwarp_together(PassLane* lanes, std::uint32_t exec, const Instr& in, std::size_t pc, Frame& fr);
    // A warp-major pass makes a lane the running one: the runtime's, the interpreter's and the frame's.
    void enter(const PassLane& p, Frame& fr)
    {
        emu::detail::enter_lane(p.flat);
        t_ = &p.run->t;
        fr.r = p.r;
        fr.param = p.param;
    }

    const char* file(const Instr& in) const { return m_.files[m_.locations[in.loc].file].c_str(); }
    unsigned line(const Instr& in) const { return m_.locations[in.loc].line; }
    [[noreturn]] void fail(const Instr& in, const std::string& what) const
    {
        const SourceLoc& at = m_.locations[in.loc];
        const SourceLoc* user = &at;  // a toolkit function's code: its innermost caller outside the toolkit
        for (const CallSite* c = t_ ? t_->caller : nullptr; user->in_toolkit && c; c = c->outer)
            if (!m_.locations[c->at->loc].in_toolkit) user = &m_.locations[c->at->loc];
        emu::detail::kernel_fault(m_.files[user->file].c_str(), user->line, what + header_note(m_, at));
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
    Target global_target(const Instr& in, std::uint64_t addr, unsigned size, Kind kind);
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
    bool load(const Frame& fr, const Instr& in);  // true: a spin loop's load (Thread::spin_at)
    // A backward branch from pc - 1 to `to`: the loop's instructions count against the step budget.
    void count_loop(const Instr& in, std::size_t pc, std::size_t to)
    {
        if (to >= pc) return;
        t_->steps += pc - to;
        if (t_->steps > t_->L->max_steps) [[unlikely]]
            budget_spent(in);
    }
    [[noreturn, gnu::cold, gnu::noinline]] void budget_spent(const Instr& in) const
    {
        emu::detail::instruction_budget_fault(t_->L->max_steps, file(in), line(in));
    }
    void store(const Frame& fr, const Instr& in);
    void atomic(const Frame& fr, const Instr& in);
    void copy_async(const Frame& fr, const Instr& in);
    void bulk_copy(const Frame& fr, const Instr& in);
    bool mbarrier(const Frame& fr, const Instr& in);
    Target mbarrier_target(const Frame& fr, const Instr& in, const Operand& o, Kind kind);
    const SharedSlot* shared_slot(std::uint64_t off) const;

    // ---- arithmetic
    void integer_op(const Frame& fr, const Instr& in);
    void float_op(const Frame& fr, const Instr& in);
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
        if (!t_->stepping || !t_->lane.lockstep) return false;
        if (t_->round_done) {
            t_->round_done = false;
            return false;
        }
        t_->round_done = true;
        --pc;
        return true;
    }
    std::string format(std::uint64_t fmt, std::uint64_t args, const Instr& in);
    const char* host_string(std::uint64_t generic, const Instr& in);
};

std::uint64_t Interpreter::special(Special s) const
{
    const unsigned lane = t_->lane.lane;
    switch (s) {
    case Special::TidX: return t_->tid.x;
    case Special::TidY: return t_->tid.y;
    case Special::TidZ: return t_->tid.z;
    case Special::NtidX: return t_->L->block.x;
    case Special::NtidY: return t_->L->block.y;
    case Special::NtidZ: return t_->L->block.z;
    case Special::CtaidX: return t_->ctaid.x;
    case Special::CtaidY: return t_->ctaid.y;
    case Special::CtaidZ: return t_->ctaid.z;
    case Special::NctaidX: return t_->L->grid.x;
    case Special::NctaidY: return t_->L->grid.y;
    case Special::NctaidZ: return t_->L->grid.z;
    case Special::LaneId: return lane;
    case Special::WarpId: return t_->lane.warp;
    case Special::NWarpId: return (t_->L->block.x * t_->L->block.y * t_->L->block.z + 31) / 32;
    case Special::SmId: case Special::GridId: return 0;
    case Special::NSmId: return 1;
    case Special::Clock: case Special::Clock64: return ++t_->clock;  // monotonic per thread
    case Special::GlobalTimer:
        return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    case Special::LanemaskLt: return (1u << lane) - 1;
    case Special::LanemaskLe: return lane == 31 ? ~0u : (2u << lane) - 1;
    case Special::LanemaskEq: return 1u << lane;
    case Special::LanemaskGe: return ~((1u << lane) - 1);
    case Special::LanemaskGt: return lane == 31 ? 0u : ~((2u << lane) - 1);
    case Special::DynSmem: return t_->L->dynamic_bytes;
    case Special::TotalSmem: return t_->L->shared_total;
    case Special::ReservedBegin: case Special::Reserved0: return t_->L->reserved_offset;
    case Special::ReservedEnd: return t_->L->reserved_offset + kReservedSharedBytes;
    case Special::ReservedCap: return kReservedSharedBytes;
    case Special::Reserved1: return t_->L->reserved_offset + kReservedSharedBytes / 2;
    }
    return 0;
}

// ------------------------------------------------------------- memory --

// Spaces whose accesses the trace records (and Lockstep gives a round).
bool traced_space(Space s) { return s == Space::Shared || s == Space::Global || s == Space::Generic; }

const char* verb(Kind k) { return k == Kind::Load ? "load" : k == Kind::Store ? "store" : "atomic"; }

// v: the shared variable at or below the offset, or null.
void Interpreter::shared_bounds_fault(const Instr& in, std::uint64_t off, const SharedSlot* v, Kind kind) const
{
    std::ostringstream what;
    what << "out-of-bounds shared " << verb(kind) << ": ";
    const Launch& L = *t_->L;
    const std::string gave = " (extern __shared__ " + std::string(L.dynamic_name ? L.dynamic_name : "") + "[]: the launch gave " +
                             std::to_string(L.dynamic_bytes) + " bytes of dynamic shared memory)";
    const bool dynamic = L.dynamic_name && off >= L.dynamic_offset && (!v || v->offset <= L.dynamic_offset);
    if (dynamic && L.dynamic_bytes == 0) {  // no slot: the extern array has no elements at all
        what << "byte " << off - L.dynamic_offset << " of extern __shared__ " << L.dynamic_name
             << "[], but the launch gave 0 bytes of dynamic shared memory";
        fail(in, what.str());
    }
    if (v) {
        what << v->name << "[" << (off - v->offset) / v->elem << "] is outside its " << v->bytes / v->elem
             << " elements";
    } else {
        what << "shared offset " << off << " lies outside every shared variable";
    }
    if (dynamic) what << gave;
    else if (t_->L->slots.empty()) what << " (the kernel declares no shared memory)";
    fail(in, what.str());
}

// The shared variable at or below the offset, or null.
const SharedSlot* Interpreter::shared_slot(std::uint64_t off) const
{
    const SharedSlot* v = nullptr;
    for (const SharedSlot& s : t_->L->slots)
        if (s.offset <= off) v = &s;
    return v;
}

Interpreter::Target Interpreter::shared_target(const Instr& in, std::uint64_t off, unsigned size, Kind kind, unsigned elem,
                                               const void* stored)
{
    const SharedSlot* v = shared_slot(off);
    if (!v || off + size > v->offset + v->bytes) shared_bounds_fault(in, off, v, kind);
    if (t_->lane.lockstep && !t_->stepping) emu::detail::access_round();
    const long long index = static_cast<long long>((off - v->offset) / (elem ? elem : v->elem));
    // The toolkit's reserved memory is ordered by its own acquire/release barriers, which the race check does not model.
    if (!v->zeroed)
        emu::detail::check_shared_access(kind, t_->arena + off, size, v->name, index, file(in), line(in),
                                         in.order == kStrong ? nullptr : stored, in.order == kStrong);
    return Target{t_->arena + off, trace::Space::Shared, v->id, off - v->offset};
}

Interpreter::Target Interpreter::global_target(const Instr& in, std::uint64_t addr, unsigned size, Kind kind)
{
    const Launch& L = *t_->L;
    if (t_->lane.lockstep && !t_->stepping) emu::detail::access_round();
    const PointerArg* below = nullptr;
    for (const PointerArg& a : L.pointers)
        if (a.ptr <= addr) below = &a;
    if (below && addr < below->alloc_end) {
        if (addr + size <= below->alloc_end)
            return Target{reinterpret_cast<unsigned char*>(addr), trace::Space::Global, below->position,
                          addr - below->ptr + below->ptr % 256};
    } else {
        for (const auto& [base, bytes] : m_.var_ranges)  // module .global variables
            if (addr >= base && addr + size <= base + bytes)
                return Target{reinterpret_cast<unsigned char*>(addr), trace::Space::Global, 0xFF, addr - base};
        std::uintptr_t base = 0;
        std::size_t bytes = 0;
        if (emu::detail::find_allocation(addr, base, bytes) && addr + size <= base + bytes)
            return Target{reinterpret_cast<unsigned char*>(addr), trace::Space::Global, 0xFF, addr - base + base % 256};
    }
    global_bounds_fault(in, addr, size, below, kind);
}

// below: the pointer argument at or below the address, or null.
void Interpreter::global_bounds_fault(const Instr& in, std::uint64_t addr, unsigned size, const PointerArg* below,
                                      Kind kind) const
{
    std::ostringstream what;
    what << "out-of-bounds " << verb(kind) << ": ";
    if (below) {
        what << emu::detail::argument_name(below->position) << "[" << (addr - below->ptr) / size
             << "] is outside its " << (below->alloc_end - below->ptr) / size << " elements (byte " << addr - below->ptr
             << " of " << below->alloc_end - below->ptr << ")";
    } else {
        what << "address 0x" << std::hex << addr << " is in no emulator allocation";
    }
    fail(in, what.str());
}

Interpreter::Target Interpreter::resolve(const Frame& fr, const Instr& in, Space sp, std::uint64_t addr,
                                         unsigned size, Kind kind, const void* stored)
{
    if (sp == Space::Generic) {
        if (addr >= kSharedWindow && addr < kSharedWindow + kWindowSize) { sp = Space::Shared; addr -= kSharedWindow; }
        else if (addr >= kLocalWindow && addr < kLocalWindow + kWindowSize) { sp = Space::Local; addr -= kLocalWindow; }
        else sp = Space::Global;
    }
    switch (sp) {
    case Space::Shared: return shared_target(in, addr, size, kind, 0, stored);
    case Space::Global: return global_target(in, addr, size, kind);
    case Space::Const:
        for (const auto& [base, bytes] : m_.var_ranges)
            if (addr >= base && addr + size <= base + bytes)
                return Target{reinterpret_cast<unsigned char*>(addr), trace::Space::None, 0, 0};
        fail(in, "out-of-bounds constant " + std::string(verb(kind)));
    case Space::Local:
        if (addr + size > t_->sp + 0ULL || addr + size < addr) fail(in, "out-of-bounds local " + std::string(verb(kind)) + " at local offset " + std::to_string(addr));
        return Target{t_->local + addr, trace::Space::None, 0, 0};
    case Space::Param:
        if (addr + size > fr.f->param_bytes) fail(in, "out-of-bounds parameter " + std::string(verb(kind)));
        return Target{fr.param + addr, trace::Space::None, 0, 0};
    default: break;
    }
    unsupported(in);
}

bool Interpreter::load(const Frame& fr, const Instr& in)
{
    const unsigned elem = ty_bytes(in.ty), size = elem * in.vec;
    const std::uint64_t addr = address(fr, in.o[1]);
    const Target tg = resolve(fr, in, in.space, addr, size, Kind::Load);
    std::uint64_t value[2] = {0, 0};
    std::memcpy(value, tg.p, size);
    bool spins = false;
    if (in.order != kPlain) {  // the same load seeing the same value again: a spin loop waits, other threads must run
        spins = t_->spin_at == &in && t_->spin_addr == addr && t_->spin_value == value[0];
        t_->spin_at = &in, t_->spin_addr = addr, t_->spin_value = value[0];
    }
    record(in, Kind::Load, tg, size, value);
    const Operand& d = in.o[0];
    auto element = [&](unsigned k) {
        std::uint64_t v = 0;
        std::memcpy(&v, reinterpret_cast<const unsigned char*>(value) + k * elem, elem);
        if (ty_signed(in.ty) && elem < 4) v = static_cast<std::uint32_t>(sext(in.ty, v));
        return v;
    };
    if (d.kind == OpKind::Vec) {
        for (unsigned k = 0; k < d.n; ++k) {
            const std::uint32_t reg = fr.f->lists[d.reg + k];
            if (reg != kNoReg) fr.r[reg] = element(k);
        }
    } else if (d.kind == OpKind::Reg) {
        fr.r[d.reg] = elem == 16 ? value[0] : element(0);
    }
    return spins;
}

void Interpreter::store(const Frame& fr, const Instr& in)
{
    const unsigned elem = ty_bytes(in.ty), size = elem * in.vec;
    std::uint64_t value[2] = {0, 0};
    const Operand& s = in.o[1];
    if (s.kind == OpKind::Vec) {
        for (unsigned k = 0; k < s.n; ++k) {
            const std::uint32_t reg = fr.f->lists[s.reg + k];
            const std::uint64_t v = reg == kNoReg ? 0 : fr.r[reg];
            std::memcpy(reinterpret_cast<unsigned char*>(value) + k * elem, &v, elem);
        }
    } else {
        value[0] = get(fr, s);
    }
    const Target tg = resolve(fr, in, in.space, address(fr, in.o[0]), size, Kind::Store, value);
    std::memcpy(tg.p, value, size);
    record(in, Kind::Store, tg, size, value);
}

template <class T> T atomic_rmw(T* p, Sub sub, T b, T c, bool is_signed)
{
    std::atomic_ref<T> ref(*p);
    T old = ref.load();
    for (;;) {
        T next = old;
        using S = std::make_signed_t<T>;
        switch (sub) {
        case Sub::Add: next = old + b; break;
        case Sub::Min: next = is_signed ? (static_cast<S>(b) < static_cast<S>(old) ? b : old) : std::min(old, b); break;
        case Sub::Max: next = is_signed ? (static_cast<S>(b) > static_cast<S>(old) ? b : old) : std::max(old, b); break;
        case Sub::Exch: next = b; break;
        case Sub::Cas: next = old == b ? c : old; break;
        case Sub::And: next = old & b; break;
        case Sub::Or: next = old | b; break;
        case Sub::Xor: next = old ^ b; break;
        case Sub::Inc: next = old >= b ? 0 : old + 1; break;
        case Sub::Dec: next = (old == 0 || old > b) ? b : old - 1; break;
        default: break;
        }
        if (ref.compare_exchange_weak(old, next)) return old;
    }
}

template <class F, class U> U atomic_float_add(U* p, F b)
{
    std::atomic_ref<U> ref(*p);
    U old = ref.load();
    for (;;) {
        const U next = std::bit_cast<U>(static_cast<F>(std::bit_cast<F>(old) + b));
        if (ref.compare_exchange_weak(old, next)) return old;
    }
}

void Interpreter::atomic(const Frame& fr, const Instr& in)
{
    const bool red = in.op == Op::Red;
    const Operand& addr_op = red ? in.o[0] : in.o[1];
    const std::uint64_t b = get(fr, red ? in.o[1] : in.o[2]);
    const std::uint64_t c = red ? 0 : get(fr, in.o[3]);
    const unsigned size = ty_bytes(in.ty);
    if ((size != 4 && size != 8) || in.vec != 1) unsupported(in);
    const Target tg = resolve(fr, in, in.space, address(fr, addr_op), size, Kind::Atomic);
    if (reinterpret_cast<std::uintptr_t>(tg.p) % size) fail(in, "misaligned atomic");
    std::uint64_t old = 0;
    const bool s = ty_signed(in.ty);
    if (in.ty == Ty::F32 && in.sub == Sub::Add) {
        old = atomic_float_add<float>(reinterpret_cast<std::uint32_t*>(tg.p), f32(b));
    } else if (in.ty == Ty::F64 && in.sub == Sub::Add) {
        old = atomic_float_add<double>(reinterpret_cast<std::uint64_t*>(tg.p), f64(b));
    } else if (ty_float(in.ty) && in.sub != Sub::Exch && in.sub != Sub::Cas) {
        unsupported(in);
    } else if (size == 4) {
        old = atomic_rmw<std::uint32_t>(reinterpret_cast<std::uint32_t*>(tg.p), in.sub, static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(c), s);
    } else {
        old = atomic_rmw<std::uint64_t>(reinterpret_cast<std::uint64_t*>(tg.p), in.sub, b, c, s);
    }
    std::uint64_t stored = 0;
    std::memcpy(&stored, tg.p, size);  // what the operation left (for the record)
    record(in, Kind::Atomic, tg, size, &stored);
    if (!red) put(fr, in.o[0], in.ty, old);
}

// cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size}: a global
// load and a shared store, done at once; bytes past src-size are zero.
void Interpreter::copy_async(const Frame& fr, const Instr& in)
{
    const unsigned size = static_cast<unsigned>(get(fr, in.o[2]));
    const unsigned from_src = in.nops > 3 && in.o[3].kind != OpKind::None ? static_cast<unsigned>(get(fr, in.o[3])) : size;
    if ((size != 4 && size != 8 && size != 16) || from_src > size) unsupported(in, "cp-size must be 4, 8 or 16");
    std::uint64_t value[2] = {0, 0};
    if (from_src) {
        const Target src = resolve(fr, in, Space::Global, address(fr, in.o[1]), from_src, Kind::Load);
        std::memcpy(value, src.p, from_src);
        record(in, Kind::Load, src, from_src, value);
    }
    const Target dst = resolve(fr, in, Space::Shared, address(fr, in.o[0]), size, Kind::Store);
    std::memcpy(dst.p, value, size);
    record(in, Kind::Store, dst, size, value);
}

// cp.async.bulk [dst], [src], size, [mbar]: the copy engine moves size
// bytes from global to shared memory and counts them off the mbarrier when
// they land. The copy engine is not a thread: its bytes are not in the trace.
void Interpreter::bulk_copy(const Frame& fr, const Instr& in)
{
    const auto bytes = static_cast<unsigned>(get(fr, in.o[2]));
    if (bytes == 0 || bytes % 16)
        fail(in, "cp.async.bulk of " + std::to_string(bytes) + " bytes: the size must be a non-zero multiple of 16");
    const std::uint64_t to = address(fr, in.o[0]), from = address(fr, in.o[1]);
    if (to % 16 || from % 16) fail(in, "cp.async.bulk needs 16-byte-aligned shared and global addresses");
    const SharedSlot* v = shared_slot(to);
    if (!v || to + bytes > v->offset + v->bytes) shared_bounds_fault(in, to, v, Kind::Store);
    const Target src = global_target(in, from, bytes, Kind::Load);
    const Target bar = mbarrier_target(fr, in, in.o[3], Kind::Atomic);
    const emu::detail::BulkCopyTarget target{v->name, v->elem, static_cast<long long>((to - v->offset) / v->elem)};
    emu::detail::bulk_copy(t_->arena + to, src.p, bytes, bar.p, target, file(in), line(in));
}

// An mbarrier is 8 bytes of shared memory: messages count 8-byte elements
// ("landed[3]"), whatever the variable's element size looks like in the PTX.
Interpreter::Target Interpreter::mbarrier_target(const Frame& fr, const Instr& in, const Operand& o, Kind kind)
{
    std::uint64_t off = address(fr, o);
    if (in.space == Space::Generic) {
        if (off < kSharedWindow || off >= kSharedWindow + kWindowSize) fail(in, "an mbarrier must be in shared memory");
        off -= kSharedWindow;
    }
    if (off % 8) fail(in, "misaligned mbarrier: it takes 8-byte-aligned shared memory");
    return shared_target(in, off, 8, kind, 8);
}

// mbarrier.init [bar], count / arrive state, [bar]{, count} / arrive.expect_tx
// state, [bar], tx / expect_tx [bar], tx / {test,try}_wait p, [bar], state
// (or .parity p, [bar], parity). A state is the phase's parity here, so the
// two forms of a wait are one. False:
// an explicit-state lane must wait, and runs this try_wait again when resumed.
bool Interpreter::mbarrier(const Frame& fr, const Instr& in)
{
    const char* at_file = file(in);
    const unsigned at_line = line(in);
    switch (in.sub) {
    case Sub::MbInit: {
        const Target bar = mbarrier_target(fr, in, in.o[0], Kind::Store);
        emu::detail::mbarrier_init(bar.p, static_cast<unsigned>(get(fr, in.o[1])), at_file, at_line);
        return true;
    }
    case Sub::MbArrive: case Sub::MbArriveExpectTx: {
        const bool expect_tx = in.sub == Sub::MbArriveExpectTx;
        const bool counted = !expect_tx && in.nops > 2 && in.o[2].kind != OpKind::None;
        const Target bar = mbarrier_target(fr, in, in.o[1], Kind::Atomic);
        const auto count = counted ? static_cast<unsigned>(get(fr, in.o[2])) : 1u;
        const auto tx = expect_tx ? static_cast<unsigned>(get(fr, in.o[2])) : 0u;
        put(fr, in.o[0], Ty::B64, emu::detail::mbarrier_arrive(bar.p, count, tx, at_file, at_line));
        return true;
    }
    case Sub::MbCpAsyncArrive: case Sub::MbCpAsyncArriveNoinc: {
        // The thread's cp.async copies have landed already (they copy at once here). Without
        // .noinc the pending count is raised by one before the copies' arrival: the two cancel.
        const Target bar = mbarrier_target(fr, in, in.o[0], Kind::Atomic);
        if (in.sub == Sub::MbCpAsyncArriveNoinc) emu::detail::mbarrier_arrive(bar.p, 1, 0, at_file, at_line);
        return true;
    }
    case Sub::MbExpectTx: {  // expected bytes with no arrival
        const Target bar = mbarrier_target(fr, in, in.o[0], Kind::Atomic);
        emu::detail::mbarrier_arrive(bar.p, 0, static_cast<unsigned>(get(fr, in.o[1])), at_file, at_line);
        return true;
    }
    case Sub::MbTestWait: case Sub::MbTryWait: {
        const Target bar = mbarrier_target(fr, in, in.o[1], Kind::Atomic);
        const auto parity = static_cast<unsigned>(get(fr, in.o[2]) & 1);
        bool done = emu::detail::mbarrier_phase_done(bar.p, parity, at_file, at_line);
        while (!done && in.sub == Sub::MbTryWait) {  // try_wait suspends the thread until the phase completes
            const char* name = t_->L->slots[bar.array].name;
            emu::detail::mbarrier_block(bar.p, name, static_cast<long long>(bar.offset / 8), at_file, at_line);
            if (t_->stepping) return false;
            done = emu::detail::mbarrier_phase_done(bar.p, parity, at_file, at_line);
        }
        put_pred(fr, in.o[0], done);
        return true;
    }
    default: unsupported(in);
    }
}

// ---------------------------------------------------------- arithmetic --

bool Interpreter::compare(const Instr& in, std::uint64_t a, std::uint64_t b) const
{
    const Ty t = in.op == Op::Slct ? in.ty2 : (in.op == Op::Set ? in.ty2 : in.ty);
    if (ty_float(t)) {
        double x, y;
        if (t == Ty::F32) { x = f32(a); y = f32(b); }
        else if (t == Ty::F64) { x = f64(a); y = f64(b); }
        else if (t == Ty::F16) { x = half_to_float(static_cast<std::uint16_t>(a)); y = half_to_float(static_cast<std::uint16_t>(b)); }
        else if (t == Ty::BF16) { x = bf16_to_float(static_cast<std::uint16_t>(a)); y = bf16_to_float(static_cast<std::uint16_t>(b)); }
        else unsupported(in);
        const bool nan = std::isnan(x) || std::isnan(y);
        switch (in.cmp) {
        case Cmp::Eq: return !nan && x == y;
        case Cmp::Ne: return !nan && x != y;
        case Cmp::Lt: return !nan && x < y;
        case Cmp::Le: return !nan && x <= y;
        case Cmp::Gt: return !nan && x > y;
        case Cmp::Ge: return !nan && x >= y;
        case Cmp::Equ: return nan || x == y;
        case Cmp::Neu: return nan || x != y;
        case Cmp::Ltu: return nan || x < y;
        case Cmp::Leu: return nan || x <= y;
        case Cmp::Gtu: return nan || x > y;
        case Cmp::Geu: return nan || x >= y;
        case Cmp::Num: return !nan;
        case Cmp::Nan: return nan;
        default: unsupported(in);
        }
    }
    if (ty_signed(t)) {
        const std::int64_t x = sext(t, a), y = sext(t, b);
        switch (in.cmp) {
        case Cmp::Eq: return x == y;
        case Cmp::Ne: return x != y;
        case Cmp::Lt: return x < y;
        case Cmp::Le: return x <= y;
        case Cmp::Gt: return x > y;
        case Cmp::Ge: return x >= y;
        default: break;
        }
    }
    const std::uint64_t x = mask_to(t, a), y = mask_to(t, b);
    switch (in.cmp) {
    case Cmp::Eq: return x == y;
    case Cmp::Ne: return x != y;
    case Cmp::Lt: case Cmp::Lo: return x < y;
    case Cmp::Le: case Cmp::Ls: return x <= y;
    case Cmp::Gt: case Cmp::Hi: return x > y;
    case Cmp::Ge: case Cmp::Hs: return x >= y;
    default: unsupported(in);
    }
}

void Interpreter::setp(const Frame& fr, const Instr& in)
{
    const bool pair = in.flags & kPair;
    const unsigned a = pair ? 2 : 1;
    bool r = compare(in, get(fr, in.o[a]), get(fr, in.o[a + 1]));
    bool q = !r;
    if (in.flags & (kBoolAnd | kBoolOr | kBoolXor)) {
        const bool c = get(fr, in.o[a + 2]) & 1;
        if (in.flags & kBoolAnd) { r = r && c; q = q && c; }
        else if (in.flags & kBoolOr) { r = r || c; q = q || c; }
        else { r = r != c; q = q != c; }
    }
    put_pred(fr, in.o[0], r);
    if (pair) put_pred(fr, in.o[1], q);
}

std::uint64_t umulhi(std::uint64_t a, std::uint64_t b) { return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64); }
std::int64_t smulhi(std::int64_t a, std::int64_t b) { return static_cast<std::int64_t>((static_cast<__int128>(a) * b) >> 64); }

void Interpreter::integer_op(const Frame& fr, const Instr& in)
{
    const Ty t = in.ty;
    const unsigned w = ty_bytes(t) * 8;
    const bool s = ty_signed(t);
    const std::uint64_t a = get(fr, in.o[1]);
    const std::uint64_t b = in.nops > 2 ? get(fr, in.o[2]) : 0;
    const std::uint64_t c = in.nops > 3 ? get(fr, in.o[3]) : 0;
    const std::int64_t sa = sext(t, a), sb = sext(t, b);
    const std::uint64_t ua = mask_to(t, a), ub = mask_to(t, b);
    std::uint64_t r = 0;
    auto saturate = [&](std::int64_t v) -> std::uint64_t {  // .sat: s32 only
        if (!(in.flags & kSat)) return static_cast<std::uint64_t>(v);
        return static_cast<std::uint64_t>(std::clamp<std::int64_t>(v, INT32_MIN, INT32_MAX));
    };
    const std::uint64_t top = w == 64 ? ~0ULL : (1ULL << w) - 1;
    // a + b + carry_in over w bits, with the carry out when .cc asks for it
    auto add_carry = [&](std::uint64_t x, std::uint64_t y, bool carry_in) {
        x &= top;
        y &= top;
        const unsigned __int128 sum = static_cast<unsigned __int128>(x) + y + carry_in;
        if (in.flags & kCarryOut) t_->carry = (sum >> w) != 0;
        return static_cast<std::uint64_t>(sum);
    };
    auto product = [&](bool high) -> std::uint64_t {
        if (!high) return a * b;
        if (w == 64) return s ? static_cast<std::uint64_t>(smulhi(sa, sb)) : umulhi(ua, ub);
        return s ? static_cast<std::uint64_t>((sa * sb) >> w) : (ua * ub) >> w;
    };
    if (in.flags & kCarryOut || in.op == Op::AddC || in.op == Op::SubC || in.op == Op::MadC || in.op == Op::MadCHi) {
        const bool carry_in = (in.op == Op::AddC || in.op == Op::SubC || in.op == Op::MadC || in.op == Op::MadCHi) && t_->carry;
        switch (in.op) {
        case Op::Add: case Op::AddC: r = add_carry(a, b, carry_in); break;
        case Op::Sub: case Op::SubC: {  // a - (b + borrow): the borrow is the carry of a + ~b + 1, inverted
            const std::uint64_t diff = add_carry(a, ~b, !carry_in);
            if (in.flags & kCarryOut) t_->carry = !t_->carry;
            r = diff;
            break;
        }
        case Op::Mad: case Op::MadC: r = add_carry(product(false), c, carry_in); break;
        case Op::MadHi: case Op::MadCHi: r = add_carry(product(true), c, carry_in); break;
        default: unsupported(in);
        }
        put(fr, in.o[0], t, r);
        return;
    }
    switch (in.op) {
    case Op::Add: r = s && (in.flags & kSat) ? saturate(sa + sb) : a + b; break;
    case Op::Sub: r = s && (in.flags & kSat) ? saturate(sa - sb) : a - b; break;
    case Op::Mul: r = a * b; break;
    case Op::Mad: r = s && (in.flags & kSat) ? saturate(sa * sb + sext(t, c)) : a * b + c; break;
    case Op::MulHi:
        if (w == 64) r = s ? static_cast<std::uint64_t>(smulhi(sa, sb)) : umulhi(ua, ub);
        else r = s ? static_cast<std::uint64_t>((sa * sb) >> w) : (ua * ub) >> w;
        break;
    case Op::MadHi:
        if (w == 64) r = (s ? static_cast<std::uint64_t>(smulhi(sa, sb)) : umulhi(ua, ub)) + c;
        else r = (s ? static_cast<std::uint64_t>((sa * sb) >> w) : (ua * ub) >> w) + c;
        break;
    case Op::MulWide: r = s ? static_cast<std::uint64_t>(sa * sb) : ua * ub; put(fr, in.o[0], w == 16 ? Ty::B32 : Ty::B64, r); return;
    case Op::MadWide: r = (s ? static_cast<std::uint64_t>(sa * sb) : ua * ub) + c; put(fr, in.o[0], w == 16 ? Ty::B32 : Ty::B64, r); return;
    case Op::Mul24: case Op::Mad24: {
        const std::int64_t x = s ? (sa << 40) >> 40 : static_cast<std::int64_t>(ua & 0xFFFFFF);
        const std::int64_t y = s ? (sb << 40) >> 40 : static_cast<std::int64_t>(ub & 0xFFFFFF);
        const std::int64_t p = x * y;
        r = static_cast<std::uint64_t>((in.flags & kHi) ? p >> 16 : p);
        if (in.op == Op::Mad24) r += c;
        break;
    }
    case Op::Sad: r = (s ? static_cast<std::uint64_t>(sa > sb ? sa - sb : sb - sa) : (ua > ub ? ua - ub : ub - ua)) + c; break;
    case Op::Div:
        if (ub == 0) r = s ? (sa < 0 ? 1 : ~0ULL) : ~0ULL;  // what the hardware gives: no trap
        else if (s && sb == -1) r = static_cast<std::uint64_t>(-sa);
        else r = s ? static_cast<std::uint64_t>(sa / sb) : ua / ub;
        break;
    case Op::Rem:
        if (ub == 0) r = a;
        else if (s && sb == -1) r = 0;
        else r = s ? static_cast<std::uint64_t>(sa % sb) : ua % ub;
        break;
    case Op::Abs: r = static_cast<std::uint64_t>(sa < 0 ? -sa : sa); break;
    case Op::Neg: r = static_cast<std::uint64_t>(-sa); break;
    case Op::Min: r = s ? static_cast<std::uint64_t>(std::min(sa, sb)) : std::min(ua, ub); break;
    case Op::Max: r = s ? static_cast<std::uint64_t>(std::max(sa, sb)) : std::max(ua, ub); break;
    case Op::Popc: r = static_cast<std::uint64_t>(std::popcount(ua)); put(fr, in.o[0], Ty::U32, r); return;
    case Op::Clz: r = static_cast<std::uint64_t>(std::countl_zero(ua) - (64 - w)); put(fr, in.o[0], Ty::U32, r); return;
    case Op::Bfind: {
        std::uint64_t x = s && sa < 0 ? ~ua & (w == 64 ? ~0ULL : (1ULL << w) - 1) : ua;
        if (x == 0) r = 0xFFFFFFFF;
        else {
            r = 63 - std::countl_zero(x);
            if (in.flags & kShiftAmt) r = w - 1 - r;
        }
        put(fr, in.o[0], Ty::U32, r);
        return;
    }
    case Op::Brev: {
        std::uint64_t x = ua, y = 0;
        for (unsigned k = 0; k < w; ++k, x >>= 1) y = (y << 1) | (x & 1);
        r = y;
        break;
    }
    case Op::Bfe: {
        const unsigned pos = static_cast<unsigned>(b & 0xFF), len = static_cast<unsigned>(c & 0xFF);
        std::uint64_t field = 0;
        for (unsigned k = 0; k < len; ++k) {
            const unsigned bit = std::min(pos + k, w - 1);
            field |= ((ua >> bit) & 1) << k;
        }
        bool sign = false;
        if (s && len > 0) sign = pos + len - 1 >= w ? (ua >> (w - 1)) & 1 : (ua >> (pos + len - 1)) & 1;
        if (s && len == 0) sign = false;
        if (sign && len < 64) field |= ~0ULL << len;
        r = field;
        break;
    }
    case Op::Bfi: {  // bfi d, a (insert), b (base), pos, len
        const std::uint64_t d4 = in.nops > 4 ? get(fr, in.o[4]) : 0;
        const unsigned pos = static_cast<unsigned>(c & 0xFF), len = static_cast<unsigned>(d4 & 0xFF);
        r = ub;
        for (unsigned k = 0; k < len && pos + k < w; ++k) r = (r & ~(1ULL << (pos + k))) | (((ua >> k) & 1) << (pos + k));
        break;
    }
    case Op::And: r = a & b; if (t == Ty::Pred) { put_pred(fr, in.o[0], r & 1); return; } break;
    case Op::Or: r = a | b; if (t == Ty::Pred) { put_pred(fr, in.o[0], r & 1); return; } break;
    case Op::Xor: r = a ^ b; if (t == Ty::Pred) { put_pred(fr, in.o[0], r & 1); return; } break;
    case Op::Not: if (t == Ty::Pred) { put_pred(fr, in.o[0], !(a & 1)); return; } r = ~a; break;
    case Op::Cnot: r = ua == 0; break;
    case Op::Shl: r = (b & 0xFFFFFFFF) >= w ? 0 : ua << b; break;
    case Op::Shr:
        if ((b & 0xFFFFFFFF) >= w) r = s && sa < 0 ? ~0ULL : 0;
        else r = s ? static_cast<std::uint64_t>(sa >> b) : ua >> b;
        break;
    case Op::Shf: {  // shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: funnel a (low) b (high) by c
        unsigned n = static_cast<unsigned>(c);
        n = (in.flags & kShfWrap) ? n & 31 : std::min(n, 32u);
        const std::uint64_t v = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(b)) << 32) | static_cast<std::uint32_t>(a);
        r = (in.flags & kShfLeft) ? (v << n) >> 32 : v >> n;
        break;
    }
    case Op::Lop3: {  // lop3.b32 d, a, b, c, immLut
        const std::uint64_t lut = get(fr, in.o[4]);
        r = 0;
        for (unsigned k = 0; k < 32; ++k) {
            const unsigned idx = (((a >> k) & 1) << 2) | (((b >> k) & 1) << 1) | ((c >> k) & 1);
            r |= ((lut >> idx) & 1) << k;
        }
        break;
    }
    case Op::Prmt: {  // default mode: byte selectors in c
        const std::uint64_t bytes = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(b)) << 32) | static_cast<std::uint32_t>(a);
        r = 0;
        for (unsigned k = 0; k < 4; ++k) {
            const unsigned sel = (c >> (4 * k)) & 0xF;
            std::uint64_t byte = (bytes >> (8 * (sel & 7))) & 0xFF;
            if (sel & 8) byte = (byte & 0x80) ? 0xFF : 0;
            r |= byte << (8 * k);
        }
        break;
    }
    case Op::Fns: {  // fns.b32 d, mask, base, offset: the n-th set bit
        const std::uint32_t mask = static_cast<std::uint32_t>(a);
        const unsigned base = static_cast<unsigned>(b);
        const int off = static_cast<int>(c);
        r = 0xFFFFFFFF;
        int count = 0;
        if (off > 0) {
            for (unsigned k = base; k < 32; ++k)
                if ((mask >> k) & 1 && ++count == off) { r = k; break; }
        } else if (off < 0) {
            for (int k = static_cast<int>(base); k >= 0; --k)
                if ((mask >> k) & 1 && --count == off) { r = static_cast<unsigned>(k); break; }
        } else if (base < 32 && ((mask >> base) & 1)) {
            r = base;
        }
        break;
    }
    default: unsupported(in);
    }
    put(fr, in.o[0], t, r);
}

template <class F> F apply_float(Op op, F a, F b, F c, const Instr& in, bool& ok)
{
    ok = true;
    switch (op) {
    case Op::Add: return a + b;
    case Op::Sub: return a - b;
    case Op::Mul: return a * b;
    case Op::Fma: case Op::Mad: return std::fma(a, b, c);
    case Op::Div: return a / b;
    case Op::Min: return std::fmin(a, b);
    case Op::Max: return std::fmax(a, b);
    case Op::Abs: return std::fabs(a);
    case Op::Neg: return -a;
    case Op::Rcp: return F(1) / a;
    case Op::Sqrt: return std::sqrt(a);
    case Op::Rsqrt: return F(1) / std::sqrt(a);
    case Op::Sin: return std::sin(a);
    case Op::Cos: return std::cos(a);
    case Op::Lg2: return std::log2(a);
    case Op::Ex2: return std::exp2(a);
    case Op::Tanh: return std::tanh(a);
    case Op::Copysign: return std::copysign(b, a);  // copysign d, a, b: b's magnitude, a's sign
    default: ok = false; (void)in; return F(0);
    }
}

void Interpreter::float_op(const Frame& fr, const Instr& in)
{
    const std::uint64_t a = get(fr, in.o[1]);
    const std::uint64_t b = in.nops > 2 ? get(fr, in.o[2]) : 0;
    const std::uint64_t c = in.nops > 3 ? get(fr, in.o[3]) : 0;
    bool ok = true;
    RoundingScope rounding(in.round);
    switch (in.ty) {
    case Ty::F32: {
        float x = f32(a), y = f32(b), z = f32(c);
        const bool flush = in.flags & kFtz;
        if (flush) { x = ftz(x); y = ftz(y); z = ftz(z); }
        float r = apply_float<float>(in.op, x, y, z, in, ok);
        if (!ok) unsupported(in);
        if (flush) r = ftz(r);
        if (in.flags & kSat) r = std::isnan(r) ? 0.0f : std::clamp(r, 0.0f, 1.0f);
        put(fr, in.o[0], Ty::B32, bits(r));
        return;
    }
    case Ty::F64: {
        double r = apply_float<double>(in.op, f64(a), f64(b), f64(c), in, ok);
        if (!ok) unsupported(in);
        put(fr, in.o[0], Ty::B64, bits(r));
        return;
    }
    case Ty::F16: case Ty::BF16: case Ty::F16x2: case Ty::BF16x2: {
        const bool bf = in.ty == Ty::BF16 || in.ty == Ty::BF16x2;
        const unsigned lanes = (in.ty == Ty::F16x2 || in.ty == Ty::BF16x2) ? 2 : 1;
        std::uint64_t out = 0;
        for (unsigned k = 0; k < lanes; ++k) {
            auto h = [&](std::uint64_t v) {
                const auto u = static_cast<std::uint16_t>(v >> (16 * k));
                return static_cast<double>(bf ? bf16_to_float(u) : half_to_float(u));
            };
            double r = apply_float<double>(in.op, h(a), h(b), h(c), in, ok);  // exact in double, rounded once below
            if (!ok) unsupported(in);
            if (in.flags & kSat) r = std::isnan(r) ? 0.0 : std::clamp(r, 0.0, 1.0);
            const std::uint16_t bits16 = bf ? float_to_bf16(static_cast<float>(r)) : double_to_half(r);
            out |= static_cast<std::uint64_t>(bits16) << (16 * k);
        }
        put(fr, in.o[0], lanes == 2 ? Ty::B32 : Ty::B16, out);
        return;
    }
    default: unsupported(in);
    }
}

// cvt d.dtype, a.atype
void Interpreter::convert(const Frame& fr, const Instr& in)
{
    const Ty dt = in.ty, st = in.ty2;
    const std::uint64_t a = get(fr, in.o[1]);
    if ((dt == Ty::F16x2 || dt == Ty::BF16x2) && st == Ty::F32 && in.nops == 3) {
        // cvt.rn.f16x2.f32 d, a, b: a to the upper half, b to the lower
        if (in.round != Round::Rn && in.round != Round::None) unsupported(in);
        auto half = [&](std::uint64_t v) -> std::uint64_t {
            float f = f32(v);
            if (in.flags & kSat) f = std::isnan(f) ? 0.0f : std::clamp(f, 0.0f, 1.0f);
            return dt == Ty::F16x2 ? float_to_half(f) : float_to_bf16(f);
        };
        put(fr, in.o[0], Ty::B32, (half(a) << 16) | half(get(fr, in.o[2])));
        return;
    }
    const bool sat = in.flags & kSat;
    RoundingScope rounding(ty_float(st) && ty_float(dt) ? in.round : Round::None);
    // the source as a double (floats) or an integer
    double x = 0;
    if (ty_float(st)) {
        switch (st) {
        case Ty::F32: x = (in.flags & kFtz) ? ftz(f32(a)) : f32(a); break;
        case Ty::F64: x = f64(a); break;
        case Ty::F16: x = half_to_float(static_cast<std::uint16_t>(a)); break;
        case Ty::BF16: x = bf16_to_float(static_cast<std::uint16_t>(a)); break;
        default: unsupported(in);
        }
        if (in.round >= Round::Rni) x = round_integer(x, in.round);
    }
    if (ty_float(dt)) {
        if (!ty_float(st)) {  // integer -> float, rounded as the mode says
            const bool s = ty_signed(st);
            const std::int64_t si = sext(st, a);
            const std::uint64_t ui = mask_to(st, a);
            RoundingScope int_rounding(in.round);
            if (dt == Ty::F32) { const float f = s ? static_cast<float>(si) : static_cast<float>(ui); put(fr, in.o[0], Ty::B32, bits(f)); return; }
            x = s ? static_cast<double>(si) : static_cast<double>(ui);
        }
        if (sat) x = std::isnan(x) ? 0.0 : std::clamp(x, 0.0, 1.0);
        switch (dt) {
        case Ty::F32: { float f = static_cast<float>(x); if (in.flags & kFtz) f = ftz(f); put(fr, in.o[0], Ty::B32, bits(f)); return; }
        case Ty::F64: put(fr, in.o[0], Ty::B64, bits(x)); return;
        case Ty::F16: put(fr, in.o[0], Ty::B16, double_to_half(x)); return;
        case Ty::BF16: put(fr, in.o[0], Ty::B16, float_to_bf16(static_cast<float>(x))); return;
        default: unsupported(in);
        }
    }
    // integer destination
    const unsigned w = ty_bytes(dt) * 8;
    const bool ds = ty_signed(dt);
    const double lo = ds ? -std::ldexp(1.0, static_cast<int>(w) - 1) : 0.0;
    const double hi = ds ? std::ldexp(1.0, static_cast<int>(w) - 1) - 1 : std::ldexp(1.0, static_cast<int>(w)) - 1;
    std::uint64_t r;
    if (ty_float(st)) {  // float -> integer saturates; NaN -> 0
        if (std::isnan(x)) r = 0;
        else if (x <= lo) r = static_cast<std::uint64_t>(static_cast<std::int64_t>(lo));
        else if (x >= hi) r = ds ? static_cast<std::uint64_t>(static_cast<std::int64_t>(hi)) : (w == 64 ? ~0ULL : static_cast<std::uint64_t>(hi));
        else r = ds ? static_cast<std::uint64_t>(static_cast<std::int64_t>(x)) : static_cast<std::uint64_t>(x);
    } else {
        const bool ss = ty_signed(st);
        const std::int64_t si = sext(st, a);
        const std::uint64_t ui = mask_to(st, a);
        r = ss ? static_cast<std::uint64_t>(si) : ui;
        if (sat) {
            if (ss && ds) r = static_cast<std::uint64_t>(std::clamp<std::int64_t>(si, static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi)));
            else if (ss && !ds) r = si < 0 ? 0 : std::min<std::uint64_t>(static_cast<std::uint64_t>(si), w == 64 ? ~0ULL : static_cast<std::uint64_t>(hi));
            else if (!ss && ds) r = std::min<std::uint64_t>(ui, static_cast<std::uint64_t>(hi));
            else r = std::min<std::uint64_t>(ui, w == 64 ? ~0ULL : static_cast<std::uint64_t>(hi));
        }
        if (ds && w < 32) r = static_cast<std::uint32_t>(sext(dt, r));  // sign-extended into the register
    }
    put(fr, in.o[0], ds && w < 32 ? Ty::B32 : dt, r);
}

// ------------------------------------------------------------ collectives --

// A warp collective or block barrier: arrive, wait until the runtime releases
// the lane, finish (collect the result). True when the lane must return to the
// scheduler first (explicit-state lanes); finish() then runs on resume.
bool Interpreter::warp_op(const Frame& fr, const Instr& in)
{
    arrive(fr, in);
    if (t_->stepping) {
        t_->pending = &in;
        return true;
    }
    emu::detail::wait_turn();
    finish(fr, in);
    return false;
}

CollectiveOp Interpreter::collective_op(const Instr& in) const
{
    switch (in.op) {
    case Op::Shfl:
        return in.sub == Sub::Up ? CollectiveOp::ShflUp : in.sub == Sub::Down ? CollectiveOp::ShflDown
             : in.sub == Sub::Bfly ? CollectiveOp::ShflXor : CollectiveOp::ShflIdx;
    case Op::Vote:
        return in.sub == Sub::All ? CollectiveOp::All : in.sub == Sub::Any ? CollectiveOp::Any
             : in.sub == Sub::Uni ? CollectiveOp::Uni : CollectiveOp::Ballot;
    case Op::Match: return in.sub == Sub::MatchAll ? CollectiveOp::MatchAll : CollectiveOp::MatchAny;
    case Op::Redux: {
        const bool s = ty_signed(in.ty);
        switch (in.sub) {
        case Sub::Add: return CollectiveOp::ReduceAdd;
        case Sub::Min: return s ? CollectiveOp::ReduceMinS : CollectiveOp::ReduceMinU;
        case Sub::Max: return s ? CollectiveOp::ReduceMaxS : CollectiveOp::ReduceMaxU;
        case Sub::And: return CollectiveOp::ReduceAnd;
        case Sub::Or: return CollectiveOp::ReduceOr;
        case Sub::Xor: return CollectiveOp::ReduceXor;
        default: unsupported(in);
        }
    }
    default: return CollectiveOp::SyncWarp;
    }
}

void Interpreter::arrive(const Frame& fr, const Instr& in)
{
    const char* f = file(in);
    const unsigned l = line(in);
    switch (in.op) {
    case Op::Shfl: {  // shfl.sync.mode.b32 d[|p], a, b, c, membermask
        const unsigned base = (in.flags & kPair) ? 2 : 1;
        const std::uint32_t value = static_cast<std::uint32_t>(get(fr, in.o[base]));
        const int arg = static_cast<int>(get(fr, in.o[base + 1]));
        const std::uint32_t c = static_cast<std::uint32_t>(get(fr, in.o[base + 2]));
        const unsigned mask = static_cast<unsigned>(get(fr, in.o[base + 3]));
        const int width = 32 - static_cast<int>((c >> 8) & 0x1F);  // c = ((32 - width) << 8) | clamp
        const CollectiveOp op = collective_op(in);
        bool inside = true;
        emu::detail::shuffle_source(op, t_->lane.lane, arg, width, &inside);
        t_->pending_pred = inside;
        emu::detail::collective_arrive(op, mask, &value, 4, arg, width, f, l);
        return;
    }
    case Op::Vote: {  // vote.sync.mode.type d, {!}a, membermask
        const unsigned value = static_cast<unsigned>(get(fr, in.o[1]) & 1);
        const unsigned mask = static_cast<unsigned>(get(fr, in.o[2]));
        emu::detail::collective_arrive(collective_op(in), mask, &value, 4, 0, 32, f, l);
        return;
    }
    case Op::Match: {  // match.any.sync.b32 d, a, membermask / match.all.sync.b32 d[|p], a, membermask
        const unsigned base = (in.flags & kPair) ? 2 : 1;
        const std::uint64_t value[2] = {mask_to(in.ty, get(fr, in.o[base])), 0};
        const unsigned mask = static_cast<unsigned>(get(fr, in.o[base + 1]));
        emu::detail::collective_arrive(collective_op(in), mask, value, 16, 0, 32, f, l);
        return;
    }
    case Op::Redux: {  // redux.sync.op.type d, a, membermask
        const std::uint32_t value = static_cast<std::uint32_t>(get(fr, in.o[1]));
        const unsigned mask = static_cast<unsigned>(get(fr, in.o[2]));
        emu::detail::collective_arrive(collective_op(in), mask, &value, 4, 0, 32, f, l);
        return;
    }
    case Op::BarWarp: {
        const unsigned mask = static_cast<unsigned>(get(fr, in.o[0]));
        emu::detail::collective_arrive(CollectiveOp::SyncWarp, mask, nullptr, 0, 0, 32, f, l);
        return;
    }
    case Op::Mma: {  // mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {d0..d3}, {a0..a3}, {b0, b1}, {c0..c3}
        std::uint32_t words[10];  // the lane's a, b and c fragments, in that order
        unsigned n = 0;
        for (unsigned o = 1; o <= 3; ++o) {
            if (in.o[o].kind != OpKind::Vec || n + in.o[o].n > 10) unsupported(in, "operands other than the fragments of m16n8k8");
            for (unsigned k = 0; k < in.o[o].n; ++k) {
                const std::uint32_t reg = fr.f->lists[in.o[o].reg + k];
                words[n++] = reg == kNoReg ? 0u : static_cast<std::uint32_t>(fr.r[reg]);
            }
        }
        if (n != 10 || in.o[0].kind != OpKind::Vec || in.o[0].n != 4) unsupported(in, "operands other than the fragments of m16n8k8");
        emu::detail::collective_arrive(CollectiveOp::MmaTf32, 0xFFFFFFFFu, words, sizeof words, 0, 32, f, l);
        return;
    }
    case Op::Activemask: emu::detail::active_mask_arrive(f, l); return;
    case Op::Bar: case Op::BarRed: {
        // bar.sync a{, b}; bar.red.op.type d, a{, b}, {!}c
        const bool red = in.op == Op::BarRed;
        const unsigned first = red ? 1 : 0;
        if (get(fr, in.o[first]) != 0) unsupported(in, "only barrier 0 is implemented");
        const unsigned threads = t_->L->block.x * t_->L->block.y * t_->L->block.z;
        const bool counted = red ? in.nops == 4 : in.nops == 2;  // the thread count operand b
        if (counted && get(fr, in.o[first + 1]) != threads) unsupported(in, "a barrier over part of the block");
        emu::detail::BarrierOp op = emu::detail::BarrierOp::None;
        unsigned value = 0;
        if (red) {
            op = in.sub == Sub::Popc ? emu::detail::BarrierOp::Popc : in.sub == Sub::And ? emu::detail::BarrierOp::And
                                                                                        : emu::detail::BarrierOp::Or;
            value = get(fr, in.o[in.nops - 1]) & 1;
        }
        emu::detail::barrier_arrive(op, value, f, l);
        return;
    }
    default: unsupported(in);
    }
}

void Interpreter::finish(const Frame& fr, const Instr& in)
{
    switch (in.op) {
    case Op::Shfl: {
        std::uint32_t out = 0;
        emu::detail::collective_take(&out, 4);
        put(fr, in.o[0], Ty::B32, out);
        if (in.flags & kPair) put_pred(fr, in.o[1], t_->pending_pred);
        return;
    }
    case Op::Vote: {
        unsigned out = 0;
        emu::detail::collective_take(&out, 4);
        if (in.sub == Sub::Ballot) put(fr, in.o[0], Ty::B32, out);
        else put_pred(fr, in.o[0], out & 1);
        return;
    }
    case Op::Match: {
        std::uint64_t out[2] = {0, 0};
        emu::detail::collective_take(out, 16);
        put(fr, in.o[0], Ty::B32, out[0]);
        if (in.flags & kPair) put_pred(fr, in.o[1], out[1] & 1);
        return;
    }
    case Op::Redux: {
        std::uint32_t out = 0;
        emu::detail::collective_take(&out, 4);
        put(fr, in.o[0], Ty::B32, out);
        return;
    }
    case Op::BarWarp: emu::detail::collective_take(nullptr, 0); return;
    case Op::Mma: {
        std::uint32_t d[4];
        emu::detail::collective_take(d, sizeof d);
        for (unsigned k = 0; k < 4; ++k) {
            const std::uint32_t reg = fr.f->lists[in.o[0].reg + k];
            if (reg != kNoReg) fr.r[reg] = d[k];
        }
        return;
    }
    case Op::Activemask: put(fr, in.o[0], Ty::B32, emu::detail::active_mask_result()); return;
    case Op::Bar: return;
    case Op::BarRed: {
        const unsigned r = emu::detail::barrier_result();
        if (in.ty == Ty::Pred) put_pred(fr, in.o[0], r != 0);
        else put(fr, in.o[0], Ty::B32, r);
        return;
    }
    default: return;
    }
}

// ----------------------------------------------------------------- calls --

const char* Interpreter::host_string(std::uint64_t generic, const Instr& in)
{
    if (generic >= kLocalWindow && generic < kLocalWindow + kWindowSize) return reinterpret_cast<const char*>(t_->local + (generic - kLocalWindow));
    if (generic >= kSharedWindow) return reinterpret_cast<const char*>(t_->arena + (generic - kSharedWindow));
    if (generic == 0) fail(in, "a null string pointer");
    return reinterpret_cast<const char*>(generic);
}

// printf's format with the argument buffer vprintf gets (each argument aligned to its size).
std::string Interpreter::format(std::uint64_t fmt_addr, std::uint64_t args_addr, const Instr& in)
{
    const char* fmt = host_string(fmt_addr, in);
    const unsigned char* args = args_addr ? reinterpret_cast<const unsigned char*>(host_string(args_addr, in)) : nullptr;
    std::size_t at = 0;
    auto take = [&](unsigned size) {
        std::uint64_t v = 0;
        at = (at + size - 1) / size * size;
        if (args) std::memcpy(&v, args + at, size);
        at += size;
        return v;
    };
    std::string out;
    for (const char* p = fmt; *p; ++p) {
        if (*p != '%') { out += *p; continue; }
        if (p[1] == '%') { out += '%'; ++p; continue; }
        std::string spec = "%";
        ++p;
        while (*p && std::strchr("-+ #0123456789.*", *p)) spec += *p++;
        int longs = 0;
        while (*p == 'l' || *p == 'h' || *p == 'z' || *p == 'j' || *p == 't') { if (*p == 'l' || *p == 'z' || *p == 'j' || *p == 't') ++longs; ++p; }
        if (!*p) break;
        const char conv = *p;
        char buf[512];
        switch (conv) {
        case 'd': case 'i':
            if (longs) std::snprintf(buf, sizeof buf, (spec + "lld").c_str(), static_cast<long long>(take(8)));
            else std::snprintf(buf, sizeof buf, (spec + "d").c_str(), static_cast<int>(take(4)));
            break;
        case 'u': case 'x': case 'X': case 'o': case 'c':
            if (longs && conv != 'c') std::snprintf(buf, sizeof buf, (spec + "ll" + conv).c_str(), static_cast<unsigned long long>(take(8)));
            else std::snprintf(buf, sizeof buf, (spec + conv).c_str(), static_cast<unsigned>(take(4)));
            break;
        case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
            std::snprintf(buf, sizeof buf, (spec + conv).c_str(), f64(take(8)));
            break;
        case 'p': std::snprintf(buf, sizeof buf, "%p", reinterpret_cast<void*>(take(8))); break;
        case 's': std::snprintf(buf, sizeof buf, (spec + "s").c_str(), host_string(take(8), in)); break;
        default: std::snprintf(buf, sizeof buf, "%%%c", conv);
        }
        out += buf;
    }
    return out;
}

void Interpreter::builtin(const Frame& fr, const Instr& in, const Function& callee)
{
    const Operand& args = in.o[2];
    auto arg = [&](unsigned k, unsigned bytes) {
        std::uint64_t v = 0;
        if (k < args.n) std::memcpy(&v, fr.param + fr.f->lists[args.reg + 2 * k], bytes);
        return v;
    };
    if (callee.name == "vprintf") {
        const std::string text = format(arg(0, 8), arg(1, 8), in);
        static std::mutex out_mutex;
        {
            std::lock_guard lock(out_mutex);
            std::fwrite(text.data(), 1, text.size(), stdout);
            std::fflush(stdout);
        }
        if (in.o[0].kind == OpKind::List && in.o[0].n) {
            const auto n = static_cast<std::int32_t>(text.size());
            std::memcpy(fr.param + fr.f->lists[in.o[0].reg], &n, 4);
        }
        return;
    }
    if (callee.name == "__assertfail") {
        std::string what = std::string("assertion failed: ") + host_string(arg(0, 8), in);
        fail(in, what);
    }
    fail(in, "call of '" + callee.name + "', which this PTX declares but does not define");
}

Flow run_function(Thread& t, const Function& f, unsigned char* param, const std::uint64_t* image);

Flow Interpreter::call(const Frame& fr, const Instr& in)
{
    const Operand& target = in.o[1];
    std::uint64_t id = target.kind == OpKind::Func ? target.reg : get(fr, target);
    if (target.kind != OpKind::Func) {
        if ((id & kFunctionTag) != kFunctionTag) fail(in, "indirect call through something that is not a function address");
        id &= 0xFFFF'FFFF;
    }
    if (id >= m_.functions.size()) fail(in, "call of an unknown function");
    const Function& callee = m_.functions[id];
    if (callee.declared_only) {
        builtin(fr, in, callee);
        return Flow::Returned;
    }
    const Operand& args = in.o[2];
    if (args.n > callee.params.size()) fail(in, "call of " + callee.name + " with too many arguments");
    // the callee's param buffer: arguments copied in at its parameters' offsets
    auto* buf = static_cast<unsigned char*>(alloca(callee.param_bytes + 16));
    std::memset(buf, 0, callee.param_bytes);
    for (unsigned k = 0; k < args.n; ++k) {
        const std::uint32_t src = fr.f->lists[args.reg + 2 * k];
        const auto kind = static_cast<OpKind>(fr.f->lists[args.reg + 2 * k + 1]);
        const ParamSlot& p = callee.params[k];
        if (kind == OpKind::ParamSym) std::memcpy(buf + p.offset, fr.param + src, p.bytes);
        else if (kind == OpKind::Reg) std::memcpy(buf + p.offset, &fr.r[src], std::min(8u, p.bytes));
        else fail(in, "a call argument that is neither a parameter nor a register");
    }
    const CallSite here{&in, t_->caller};
    t_->caller = &here;
    const Flow flow = run_function(*t_, callee, buf, nullptr);
    t_->caller = here.outer;
    const Operand& rets = in.o[0];
    for (unsigned k = 0; k < rets.n && k < callee.rets.size(); ++k) {
        const std::uint32_t dst = fr.f->lists[rets.reg + 2 * k];
        const auto kind = static_cast<OpKind>(fr.f->lists[rets.reg + 2 * k + 1]);
        const ParamSlot& p = callee.rets[k];
        if (kind == OpKind::ParamSym) std::memcpy(fr.param + dst, buf + p.offset, p.bytes);
        else if (kind == OpKind::Reg) { fr.r[dst] = 0; std::memcpy(&fr.r[dst], buf + p.offset, std::min(8u, p.bytes)); }
    }
    return flow;
}

// ---------------------------------------------------------------- the loop --

// The general path: every instruction, with all its qualifiers.
Interpreter::Step Interpreter::slow(const Frame& fr, const Instr& in, std::size_t& pc)
{
    std::uint64_t* r = fr.r;
    switch (in.op) {
    case Op::Mov: {
        const Operand& d = in.o[0];
        const Operand& s = in.o[1];
        if (d.kind == OpKind::Vec) {  // unpack: mov.b64 {%r1, %r2}, %rd1
            const std::uint64_t v = get(fr, s);
            const unsigned w = ty_bytes(in.ty) * 8 / d.n;
            for (unsigned k = 0; k < d.n; ++k) {
                const std::uint32_t reg = fr.f->lists[d.reg + k];
                if (reg != kNoReg) r[reg] = (v >> (w * k)) & (w == 64 ? ~0ULL : (1ULL << w) - 1);
            }
        } else if (s.kind == OpKind::Vec) {  // pack
            const unsigned w = ty_bytes(in.ty) * 8 / s.n;
            std::uint64_t v = 0;
            for (unsigned k = 0; k < s.n; ++k) {
                const std::uint32_t reg = fr.f->lists[s.reg + k];
                const std::uint64_t part = reg == kNoReg ? 0 : r[reg];
                v |= (part & (w == 64 ? ~0ULL : (1ULL << w) - 1)) << (w * k);
            }
            r[d.reg] = v;
        } else if (in.ty == Ty::Pred) {
            put_pred(fr, d, get(fr, s) & 1);
        } else {
            put(fr, d, in.ty, get(fr, s));
        }
        break;
    }
    case Op::Ld:
        if (traced_space(in.space) && round_pending(pc)) return Step::Wait;
        if (load(fr, in) && emu::detail::spin_yield()) return Step::Wait;
        break;
    case Op::St:
        if (traced_space(in.space) && round_pending(pc)) return Step::Wait;
        store(fr, in);
        break;
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Mad: case Op::Min: case Op::Max: case Op::Abs:
    case Op::Neg: case Op::Div:
        if (ty_float(in.ty)) float_op(fr, in);
        else integer_op(fr, in);
        break;
    case Op::Fma: case Op::Rcp: case Op::Sqrt: case Op::Rsqrt: case Op::Sin: case Op::Cos: case Op::Lg2:
    case Op::Ex2: case Op::Tanh: case Op::Copysign:
        float_op(fr, in);
        break;
    case Op::MulHi: case Op::MulWide: case Op::MadHi: case Op::MadWide: case Op::Mul24: case Op::Mad24:
    case Op::AddC: case Op::SubC: case Op::MadC: case Op::MadCHi:
    case Op::Sad: case Op::Rem: case Op::Popc: case Op::Clz: case Op::Bfind: case Op::Brev: case Op::Bfe:
    case Op::Bfi: case Op::Fns: case Op::Prmt: case Op::And: case Op::Or: case Op::Xor: case Op::Not:
    case Op::Cnot: case Op::Shl: case Op::Shr: case Op::Shf: case Op::Lop3:
        integer_op(fr, in);
        break;
    case Op::Testp: {
        const std::uint64_t a = get(fr, in.o[1]);
        const double x = in.ty == Ty::F64 ? f64(a) : f32(a);
        const std::string& q = m_.texts[in.text];
        bool v = false;
        if (q.find(".finite") != std::string::npos) v = std::isfinite(x);
        else if (q.find(".infinite") != std::string::npos) v = std::isinf(x);
        else if (q.find(".number") != std::string::npos) v = !std::isnan(x);
        else if (q.find(".notanumber") != std::string::npos) v = std::isnan(x);
        else if (q.find(".normal") != std::string::npos) v = std::isnormal(in.ty == Ty::F64 ? x : f32(a));
        else if (q.find(".subnormal") != std::string::npos) v = std::fpclassify(in.ty == Ty::F64 ? x : f32(a)) == FP_SUBNORMAL;
        else unsupported(in);
        put_pred(fr, in.o[0], v);
        break;
    }
    case Op::Cvt: convert(fr, in); break;
    case Op::Cvta: {  // to generic
        std::uint64_t a = get(fr, in.o[1]);
        if (in.space == Space::Shared) a = kSharedWindow + (a & 0xFFFF'FFFF);
        else if (in.space == Space::Local) a = kLocalWindow + a;
        put(fr, in.o[0], in.ty, a);
        break;
    }
    case Op::CvtaTo: {
        std::uint64_t a = get(fr, in.o[1]);
        if (in.space == Space::Shared) a -= kSharedWindow;
        else if (in.space == Space::Local) a -= kLocalWindow;
        put(fr, in.o[0], in.ty, a);
        break;
    }
    case Op::Isspacep: {
        const std::uint64_t a = get(fr, in.o[1]);
        const bool sh = a >= kSharedWindow && a < kSharedWindow + kWindowSize;
        const bool lo = a >= kLocalWindow && a < kLocalWindow + kWindowSize;
        bool v = in.space == Space::Shared ? sh : in.space == Space::Local ? lo : in.space == Space::Global ? !sh && !lo : false;
        put_pred(fr, in.o[0], v);
        break;
    }
    case Op::Setp: setp(fr, in); break;
    case Op::Selp: put(fr, in.o[0], in.ty, (get(fr, in.o[3]) & 1) ? get(fr, in.o[1]) : get(fr, in.o[2])); break;
    case Op::Slct: {  // slct.dtype.ctype d, a, b, c: c >= 0 ? a : b
        const std::uint64_t c = get(fr, in.o[3]);
        const bool ge = in.ty2 == Ty::F32 ? f32(c) >= 0.0f : sext(in.ty2, c) >= 0;
        put(fr, in.o[0], in.ty, ge ? get(fr, in.o[1]) : get(fr, in.o[2]));
        break;
    }
    case Op::Set: {  // set.cmp.dtype.stype d, a, b
        const bool v = compare(in, get(fr, in.o[1]), get(fr, in.o[2]));
        const std::uint64_t out = in.ty == Ty::F32 ? (v ? bits(1.0f) : 0) : (v ? ~0ULL : 0);
        put(fr, in.o[0], in.ty, out);
        break;
    }
    case Op::Bra:
        count_loop(in, pc, in.o[0].reg);
        pc = in.o[0].reg;
        break;
    case Op::Call:
        if (call(fr, in) == Flow::Exited) return Step::Exit;
        break;
    case Op::Ret: return Step::Return;
    case Op::Exit: return Step::Exit;
    case Op::Trap: fail(in, "kernel called trap (an assert failed or the kernel aborted)");
    case Op::Bar: case Op::BarRed: case Op::BarWarp: case Op::Shfl: case Op::Vote: case Op::Match:
    case Op::Redux: case Op::Activemask: case Op::Mma:
        if (warp_op(fr, in)) return Step::Wait;
        break;
    case Op::Nop: break;
    case Op::Atom: case Op::Red:
        if (round_pending(pc)) return Step::Wait;
        atomic(fr, in);
        break;
    case Op::CpAsync:
        if (round_pending(pc)) return Step::Wait;
        copy_async(fr, in);
        break;
    case Op::CpAsyncBulk:
        if (round_pending(pc)) return Step::Wait;
        bulk_copy(fr, in);
        break;
    case Op::Mbarrier:
        if (round_pending(pc)) return Step::Wait;
        if (!mbarrier(fr, in)) {
            --pc;  // the try_wait again, once the mbarrier has changed
            return Step::Wait;
        }
        break;
    case Op::Unsupported: unsupported(in);
    default: unsupported(in);  // an opcode the parser knows and this switch forgot: never a silent no-op
    }
    return Step::Next;
}

// The hot instructions (Fast), each once: what one lane does. `r` is the
// lane's register slots, `in` the instruction, `fr` the lane's frame.
#define WL_A (r[in->o[1].reg])
#define WL_B (r[in->o[2].reg])
#define WL_C (r[in->o[3].reg])
#define WL_D (r[in->o[0].reg])
// Register to register: no lane state but the slots.
#define WL_REGISTER_OPS(X)                                                                                   \
    X(mov32, Mov32, WL_D = u32(WL_A))                                                                        \
    X(mov64, Mov64, WL_D = WL_A)                                                                             \
    X(mov_pred, MovPred, WL_D = WL_A & 1)                                                                    \
    X(add32, Add32, WL_D = u32(WL_A + WL_B))                                                                 \
    X(add64, Add64, WL_D = WL_A + WL_B)                                                                      \
    X(sub32, Sub32, WL_D = u32(WL_A - WL_B))                                                                 \
    X(sub64, Sub64, WL_D = WL_A - WL_B)                                                                      \
    X(mul32, Mul32, WL_D = u32(WL_A * WL_B))                                                                 \
    X(mul64, Mul64, WL_D = WL_A * WL_B)                                                                      \
    X(mad32, Mad32, WL_D = u32(WL_A * WL_B + WL_C))                                                          \
    X(mad64, Mad64, WL_D = WL_A * WL_B + WL_C)                                                               \
    X(mul_wide_u32, MulWideU32, WL_D = std::uint64_t(u32(WL_A)) * u32(WL_B))                                 \
    X(mul_wide_s32, MulWideS32, WL_D = static_cast<std::uint64_t>(std::int64_t(s32(WL_A)) * s32(WL_B)))      \
    X(shl32, Shl32, WL_D = u32(WL_B) >= 32 ? 0 : u32(u32(WL_A) << u32(WL_B)))                                \
    X(shl64, Shl64, WL_D = u32(WL_B) >= 64 ? 0 : WL_A << u32(WL_B))                                          \
    X(shr_u32, ShrU32, WL_D = u32(WL_B) >= 32 ? 0 : u32(WL_A) >> u32(WL_B))                                  \
    X(shr_s32, ShrS32, WL_D = u32(s32(WL_A) >> std::min(u32(WL_B), 31u)))                                    \
    X(shr_u64, ShrU64, WL_D = u32(WL_B) >= 64 ? 0 : WL_A >> u32(WL_B))                                       \
    X(and32, And32, WL_D = u32(WL_A & WL_B))                                                                 \
    X(or32, Or32, WL_D = u32(WL_A | WL_B))                                                                   \
    X(xor32, Xor32, WL_D = u32(WL_A ^ WL_B))                                                                 \
    X(and64, And64, WL_D = WL_A & WL_B)                                                                      \
    X(rem_u32, RemU32, WL_D = u32(WL_B) ? u32(WL_A) % u32(WL_B) : u32(WL_A))                                 \
    X(div_u32, DivU32, WL_D = u32(WL_B) ? u32(WL_A) / u32(WL_B) : 0xFFFFFFFFu)                               \
    X(min_u32, Min32U, WL_D = std::min(u32(WL_A), u32(WL_B)))                                                \
    X(max_u32, Max32U, WL_D = std::max(u32(WL_A), u32(WL_B)))                                                \
    X(min_s32, Min32S, WL_D = u32(std::min(s32(WL_A), s32(WL_B))))                                           \
    X(max_s32, Max32S, WL_D = u32(std::max(s32(WL_A), s32(WL_B))))                                           \
    X(selp32, Selp32, WL_D = u32((WL_C & 1) ? WL_A : WL_B))                                                  \
    X(selp64, Selp64, WL_D = (WL_C & 1) ? WL_A : WL_B)                                                       \
    X(setp_u32, SetpU32, WL_D = compare_values(in->cmp, u32(WL_A), u32(WL_B)))                               \
    X(setp_s32, SetpS32, WL_D = compare_values(in->cmp, s32(WL_A), s32(WL_B)))                               \
    X(setp_u64, SetpU64, WL_D = compare_values(in->cmp, WL_A, WL_B))                                         \
    X(setp_s64, SetpS64,                                                                                     \
      WL_D = compare_values(in->cmp, static_cast<std::int64_t>(WL_A), static_cast<std::int64_t>(WL_B)))      \
    X(setp_f32, SetpF32, WL_D = compare_floats(in->cmp, f32(WL_A), f32(WL_B)))                               \
    X(add_f32, AddF32, WL_D = bits(f32(WL_A) + f32(WL_B)))                                                   \
    X(sub_f32, SubF32, WL_D = bits(f32(WL_A) - f32(WL_B)))                                                   \
    X(mul_f32, MulF32, WL_D = bits(f32(WL_A) * f32(WL_B)))                                                   \
    X(fma_f32, FmaF32, WL_D = bits(__builtin_fmaf(f32(WL_A), f32(WL_B), f32(WL_C))))
// Reading the lane's parameter space.
#define WL_PARAM_OPS(X)                                                                                      \
    X(ld_param32, LdParam32, { std::uint32_t v; std::memcpy(&v, fr.param + in->o[1].imm, 4); WL_D = v; })     \
    X(ld_param64, LdParam64, std::memcpy(&WL_D, fr.param + in->o[1].imm, 8))
// Traced accesses: the runtime checks and records them for the running lane.
#define WL_MEMORY_OPS(X)                                                                                     \
    X(ld_shared32, LdShared32, WL_D = load32(*in, shared_target(*in, WL_A + in->o[1].imm, 4, Kind::Load)))   \
    X(st_shared32, StShared32, store_shared32(*in, WL_D + in->o[0].imm, u32(WL_A)))                          \
    X(ld_global32, LdGlobal32, WL_D = load32(*in, global_target(*in, WL_A + in->o[1].imm, 4, Kind::Load)))   \
    X(st_global32, StGlobal32, store32(*in, global_target(*in, WL_D + in->o[0].imm, 4, Kind::Store), u32(WL_A)))

// Lane at a time, with threaded dispatch: each handler jumps straight to the
// next instruction's, so the host's branch predictor sees one indirect jump
// per handler. The parser ends every function with a `ret`, so pc never runs
// off the end. pc is a local copy, stored back when the lane leaves: the
// caller's could alias the register slots, and every slot write would reload it.
Flow Interpreter::run(const Frame& entry, std::size_t& entry_pc)
{
    const Frame fr = entry;
    std::size_t pc = entry_pc;
    Flow stopped = Flow::Waiting;
    const Instr* code = fr.f->code.data();
    std::uint64_t* r = fr.r;
    const Instr* in = nullptr;
    if (t_->pending) {  // resumed after a wait: collect the result first
        finish(fr, *t_->pending);
        t_->pending = nullptr;
    }
    static const void* const handlers[] = {
        &&general, &&mov32, &&mov64, &&mov_pred, &&add32, &&add64, &&sub32, &&sub64, &&mul32, &&mul64, &&mad32,
        &&mad64, &&mul_wide_u32, &&mul_wide_s32, &&shl32, &&shl64, &&shr_u32, &&shr_s32, &&shr_u64, &&and32, &&or32,
        &&xor32, &&and64, &&rem_u32, &&div_u32, &&min_u32, &&max_u32, &&min_s32, &&max_s32, &&selp32, &&selp64,
        &&setp_u32, &&setp_s32, &&setp_u64, &&setp_s64, &&setp_f32, &&add_f32, &&sub_f32, &&mul_f32, &&fma_f32,
        &&bra, &&ld_param32, &&ld_param64, &&ld_shared32, &&st_shared32, &&ld_global32, &&st_global32, &&bar_sync, &&nop,
    };
    static_assert(sizeof handlers / sizeof handlers[0] == static_cast<unsigned>(Fast::Nop) + 1, "one handler per Fast");
#define WL_STOP(flow) \
    do {              \
        stopped = flow; \
        goto stop;    \
    } while (0)
#define WL_NEXT()                                                                                    \
    do {                                                                                             \
        in = code + pc++;                                                                            \
        if (in->pred != kNoReg && ((r[in->pred] & 1) != 0) == ((in->flags & kNegPred) != 0)) goto skip; \
        goto* handlers[static_cast<unsigned>(in->fast)];                                            \
    } while (0)
#define WL_LANE_OP(label, fast, stmt) \
    label:                            \
    stmt;                             \
    WL_NEXT();
#define WL_LANE_ACCESS(label, fast, stmt) \
    label:                                \
    if (round_pending(pc)) WL_STOP(Flow::Waiting); \
    stmt;                                 \
    WL_NEXT();
    WL_NEXT();
stop:
    entry_pc = pc;
    return stopped;
skip:
    WL_NEXT();
general: {
    std::size_t next = pc;  // slow() sees a copy, so that pc's address never escapes
    const Step step = slow(fr, *in, next);
    pc = next;
    switch (step) {
    case Step::Next: WL_NEXT();
    case Step::Return: WL_STOP(Flow::Returned);
    case Step::Exit: WL_STOP(Flow::Exited);
    case Step::Wait: WL_STOP(Flow::Waiting);
    }
}
    WL_REGISTER_OPS(WL_LANE_OP)
    WL_PARAM_OPS(WL_LANE_OP)
    WL_MEMORY_OPS(WL_LANE_ACCESS)
bra:
    count_loop(*in, pc, in->o[0].reg);
    pc = in->o[0].reg;
    WL_NEXT();
bar_sync:
    if (t_->stepping) {
        emu::detail::barrier_arrive(emu::detail::BarrierOp::None, 0, file(*in), line(*in));
        WL_STOP(Flow::Waiting);
    }
    emu::detail::barrier(emu::detail::BarrierOp::None, 0, file(*in), line(*in));
    WL_NEXT();
nop: WL_NEXT();
#undef WL_LANE_OP
#undef WL_LANE_ACCESS
#undef WL_NEXT
#undef WL_STOP
}

// ------------------------------------------------------ warp-major passes --
//
// Under the Independent schedule a pass runs each runnable lane of a warp on
// until it waits or ends, in a shuffled order. Lanes at one pc run together,
// one instruction for all of them at a time (the lanes in the pass's order),
// so that decoding, dispatch and the runtime's turn taking are paid once per
// warp rather than once per lane. A branch that splits them makes two groups,
// one run after the other. Between two synchronisations the lanes of a warp
// are unordered: two accesses of one shared word, one a write, are a race in
// every order, and the race check reports them whichever lane comes first;
// without such a conflict the order cannot change what a kernel computes.
// Atomics and calls are the exceptions (who gets which old value, the order
// of printed lines): from the first of them a group goes on lane by lane,
// each lane to its next wait, as if the lanes had run apart all along.

// Instructions whose effect depends on the order of the lanes even in a
// race-free kernel: atomics (which lane gets which old value) and calls
// (vprintf's lines).
bool orders_lanes(const Instr& in)
{
    return in.op == Op::Atom || in.op == Op::Red || in.op == Op::Call;
}

// From pc on, the group's lanes one after another, each to its next wait or
// its end, in the pass's order: the order the Independent schedule promises.
void Interpreter::run_lanes_apart(PassLane* lanes, std::uint32_t group, std::size_t pc)
{
    for (std::uint32_t m = group; m; m &= m - 1) {
        const PassLane& lane = lanes[std::countr_zero(m)];
        Frame fr{lane.run->t.L->kernel, nullptr, nullptr, 0};
        enter(lane, fr);
        lane.run->pc = pc;
        const Flow flow = run(fr, lane.run->pc);
        emu::detail::leave_lane(flow != Flow::Waiting);
    }
}

// bar.warp.sync reached by the group's executing lanes with one mask (the
// usual __syncwarp()): they arrive as one batch. False, and nothing done,
// when their masks differ.
bool Interpreter::syncwarp_together(PassLane* lanes, std::uint32_t exec, const Instr& in, std::size_t pc, Frame& fr)
{
    unsigned flats[32], count = 0;
    fr.r = lanes[std::countr_zero(exec)].r;
    const auto mask = static_cast<unsigned>(get(fr, in.o[0]));
    for (std::uint32_t m = exec; m; m &= m - 1) {
        fr.r = lanes[std::countr_zero(m)].r;
        if (static_cast<unsigned>(get(fr, in.o[0])) != mask) return false;
    }
    for (std::uint32_t m = exec; m; m &= m - 1) {
        LaneRun& run = *lanes[std::countr_zero(m)].run;
        run.pc = pc;
        run.t.pending = &in;  // collective_take when the lane resumes
        flats[count++] = lanes[std::countr_zero(m)].flat;
    }
    emu::detail::syncwarp_arrive_lanes(flats, count, mask, file(in), line(in));
    return true;
}

void Interpreter::run_warp(const Launch& L)
{
    emu::detail::LaneTurn turns[32];
    const unsigned n = emu::detail::pass_lanes(turns);
    if (n && turns[0].first) {  // the warp's first pass (every lane starts in it): its step count starts
        const std::size_t warps = (std::size_t(L.block.x) * L.block.y * L.block.z + 31) / 32;
        if (tls_warp_steps.size() < warps) tls_warp_steps.resize(warps);
        tls_warp_steps[turns[0].flat / 32] = 0;
    }
    PassLane lanes[32];
    for (unsigned k = 0; k < n; ++k) {
        const bool first = turns[k].first;
        if (first) emu::detail::enter_lane(turns[k].flat);  // start_lane declares the shared variables
        LaneRun& run = lane_run(L, turns[k].flat, first);
        lanes[k] = PassLane{&run, run.slots(), lane_params(L, turns[k].flat), turns[k].flat};
        if (!first && !run.t.pending) continue;
        Frame fr{L.kernel, nullptr, nullptr, 0};
        enter(lanes[k], fr);
        if (first) fill_thread_constants(fr);
        if (run.t.pending) {  // resumed after a wait: collect the result first
            finish(fr, *run.t.pending);
            run.t.pending = nullptr;
        }
    }
    LaneGroup work[32];
    unsigned groups = 0;
    for (std::uint32_t left = n == 32 ? ~0u : (1u << n) - 1; left;) {
        const std::size_t pc = lanes[std::countr_zero(left)].run->pc;
        std::uint32_t same = 0;
        for (std::uint32_t m = left; m; m &= m - 1)
            if (lanes[std::countr_zero(m)].run->pc == pc) same |= 1u << std::countr_zero(m);
        work[groups++] = LaneGroup{pc, same};
        left &= ~same;
    }
    while (groups) {
        const LaneGroup g = work[--groups];
        run_group(L, lanes, g, work, groups);
    }
}

// Runs a group until each of its lanes waits or ends; lanes a branch sends
// elsewhere go to `work` as groups of their own.
void Interpreter::run_group(const Launch& L, PassLane* lanes, LaneGroup g, LaneGroup* work, unsigned& groups)
{
    const Instr* code = L.kernel->code.data();
    std::size_t pc = g.pc;
    std::uint32_t live = g.lanes;
    Frame fr{L.kernel, nullptr, nullptr, 0};
    std::uint64_t* r = nullptr;
    auto leave = [&](unsigned k, std::size_t at, bool ended) {  // the entered lane k waits or ends
        lanes[k].run->pc = at;
        emu::detail::leave_lane(ended);
        live &= ~(1u << k);
    };
    std::size_t next[32];
    // The step budget, counted once a warp (as if its lanes were one thread:
    // divergent groups add up, so the count errs high, never low).
    std::uint64_t& warp_steps = tls_warp_steps[lanes[0].flat / 32];
    // The pass's lanes 0 .. count - 1, when they are all in this group.
    const unsigned count = static_cast<unsigned>(std::popcount(g.lanes));
    const std::uint32_t whole = g.lanes == (count == 32 ? ~0u : (1u << count) - 1) ? g.lanes : 0;
    while (live) {
        const Instr* in = code + pc++;
        std::uint32_t exec = live;  // the lanes whose guard lets them execute
        if (in->pred != kNoReg) {
            const bool negated = (in->flags & kNegPred) != 0;
            exec = 0;
            for (std::uint32_t m = live; m; m &= m - 1)
                if (((lanes[std::countr_zero(m)].r[in->pred] & 1) != 0) != negated) exec |= 1u << std::countr_zero(m);
            if (!exec) continue;
        }
// Every lane of the group's first `whole` executes (the common case: a
// converged warp) or the lanes of the mask.
#define WL_EACH_LANE(prepare, stmt)                                                   \
    if (exec == whole) {                                                              \
        for (unsigned k = 0; k < count; ++k) {                                        \
            const PassLane& lane = lanes[k];                                          \
            prepare;                                                                  \
            stmt;                                                                     \
        }                                                                             \
        continue;                                                                     \
    }                                                                                 \
    for (std::uint32_t m = exec; m; m &= m - 1) {                                     \
        const PassLane& lane = lanes[std::countr_zero(m)];                            \
        prepare;                                                                      \
        stmt;                                                                         \
    }                                                                                 \
    continue;
#define WL_GROUP_OP(label, fast, stmt) \
    case Fast::fast: WL_EACH_LANE(r = lane.r, stmt)
#define WL_GROUP_PARAM(label, fast, stmt) \
    case Fast::fast: WL_EACH_LANE((r = lane.r, fr.param = lane.param), stmt)
#define WL_GROUP_ACCESS(label, fast, stmt) \
    case Fast::fast: WL_EACH_LANE((enter(lane, fr), r = lane.r), stmt)
        switch (in->fast) {
            WL_REGISTER_OPS(WL_GROUP_OP)
            WL_PARAM_OPS(WL_GROUP_PARAM)
            WL_MEMORY_OPS(WL_GROUP_ACCESS)
        case Fast::Bra:
            if (in->o[0].reg < pc) [[unlikely]] {  // a loop: the group's budget, once for all its lanes
                warp_steps += pc - in->o[0].reg;
                if (warp_steps > L.max_steps) [[unlikely]] {
                    enter(lanes[std::countr_zero(exec)], fr);
                    budget_spent(*in);
                }
            }
            if (exec == live) {
                pc = in->o[0].reg;
            } else {  // divergence: the taken lanes wait their turn as a group
                work[groups++] = LaneGroup{in->o[0].reg, exec};
                live &= ~exec;
            }
            continue;
        case Fast::BarSync: {
            unsigned flats[32], count = 0;
            for (std::uint32_t m = exec; m; m &= m - 1) {
                lanes[std::countr_zero(m)].run->pc = pc;
                flats[count++] = lanes[std::countr_zero(m)].flat;
            }
            emu::detail::barrier_arrive_lanes(flats, count, file(*in), line(*in));
            live &= ~exec;
            continue;
        }
        case Fast::Nop: continue;
        default:
            if (orders_lanes(*in)) {
                run_lanes_apart(lanes, live, pc - 1);
                return;
            }
            break;
        }
#undef WL_EACH_LANE
#undef WL_GROUP_OP
#undef WL_GROUP_PARAM
#undef WL_GROUP_ACCESS
        if (in->op == Op::BarWarp && syncwarp_together(lanes, exec, *in, pc, fr)) {
            live &= ~exec;
            continue;
        }
        // The general path, lane by lane; the lanes that go on may go on in different places.
        for (std::uint32_t m = exec; m; m &= m - 1) {
            const unsigned k = std::countr_zero(m);
            enter(lanes[k], fr);
            std::size_t at = pc;
            const Step step = slow(fr, *in, at);
            if (step == Step::Next) next[k] = at;
            else leave(k, at, step != Step::Wait);
        }
        for (std::uint32_t m = live & ~exec; m; m &= m - 1) next[std::countr_zero(m)] = pc;
        if (!live) return;
        pc = next[std::countr_zero(live)];
        std::uint32_t elsewhere = 0;
        for (std::uint32_t m = live; m; m &= m - 1)
            if (next[std::countr_zero(m)] != pc) elsewhere |= 1u << std::countr_zero(m);
        live &= ~elsewhere;
        while (elsewhere) {
            const std::size_t at = next[std::countr_zero(elsewhere)];
            std::uint32_t same = 0;
            for (std::uint32_t m = elsewhere; m; m &= m - 1)
                if (next[std::countr_zero(m)] == at) same |= 1u << std::countr_zero(m);
            work[groups++] = LaneGroup{at, same};
            elsewhere &= ~same;
        }
    }
}
#undef WL_A
#undef WL_B
#undef WL_C
#undef WL_D
#undef WL_REGISTER_OPS
#undef WL_PARAM_OPS
#undef WL_MEMORY_OPS

// A frame on this fiber's stack: registers and the local depot.
// image: the frame's starting slots prepared once per launch (the kernel's), or null.
Flow run_function(Thread& t, const Function& f, unsigned char* param, const std::uint64_t* image)
{
    const std::uint32_t saved_sp = t.sp;
    const std::uint32_t base = (t.sp + 15) / 16 * 16;
    if (base + f.local_bytes > t.local_capacity) {
        emu::detail::kernel_fault(nullptr, 0, "local memory of " + f.name + " does not fit the emulator's " +
                                                  std::to_string(t.local_capacity) + " bytes per thread (deep recursion?)");
    }
    if ((f.registers + f.consts.size()) * 8ULL > kRegisterCapacity)
        emu::detail::kernel_fault(nullptr, 0, f.name + " has more virtual registers than the emulator holds per frame");
    t.sp = base + f.local_bytes;
    const std::size_t slots = f.registers + f.consts.size();
    auto* regs = static_cast<std::uint64_t*>(alloca(slots * 8 + 8));
    Interpreter interp(t);
    const Frame frame{&f, regs, param, base};
    if (image) {
        std::memcpy(regs, image, slots * 8);
        interp.fill_thread_constants(frame);
    } else {
        std::memset(regs, 0, f.registers * 8);
        interp.fill_constants(frame);
    }
    std::size_t pc = 0;
    const Flow flow = interp.run(frame, pc);
    t.sp = saved_sp;
    return flow;
}

// ------------------------------------------------------------- launching --

void lane_main(void* ctx)
{
    const Launch& L = *static_cast<const Launch*>(ctx);
    const auto& view = emu::detail::thread_view();
    Thread t{&L, emu::detail::current_lane(), view.thread_idx, view.block_idx, nullptr, nullptr};
    // Every lane declares the kernel's shared variables in order; the runtime
    // allocates them once per block (16-byte aligned, as the layout assumes).
    for (const SharedSlot& s : L.slots) {
        void* p = emu::detail::declare_shared(s.elem, s.bytes / s.elem, s.name, L.decl_file, L.decl_line, s.zeroed);
        if (!t.arena) t.arena = static_cast<unsigned char*>(p) - s.offset;
    }
    t.local = L.local_bytes ? static_cast<unsigned char*>(alloca(L.local_bytes)) : nullptr;
    t.local_capacity = L.local_bytes;
    // A kernel that calls writes its outgoing arguments into its parameter space: a copy per thread.
    auto* param = const_cast<unsigned char*>(L.params.data());
    if (L.calls) {
        param = static_cast<unsigned char*>(alloca(L.params.size() + 16));
        std::memcpy(param, L.params.data(), L.params.size());
    }
    run_function(t, *L.kernel, param, L.image.data());
}

thread_local std::vector<std::uint64_t> tls_lane_state;
thread_local std::vector<unsigned char> tls_local;
thread_local std::vector<unsigned char> tls_params;  // kernels that call vprintf & co write their arguments

// 8-byte words per lane: its LaneRun and its slots, rounded up to whole cache lines.
std::size_t lane_words(std::size_t slots) { return (sizeof(LaneRun) / 8 + slots + 7) / 8 * 8; }

// A lane's first step: its state and slots set up, shared memory declared.
// Out of line: inlined, it would widen every later step's entry and exit.
[[gnu::noinline]] LaneRun& start_lane(const Launch& L, unsigned lane)
{
    const std::size_t threads = std::size_t(L.block.x) * L.block.y * L.block.z;
    const std::size_t words = L.lane_words;
    if (tls_lane_state.size() < threads * words) tls_lane_state.resize(threads * words);
    if (tls_local.size() < threads * L.local_bytes) tls_local.resize(threads * L.local_bytes);
    if (L.calls && tls_params.size() < threads * L.params.size()) tls_params.resize(threads * L.params.size());
    if (L.calls) std::memcpy(tls_params.data() + lane * L.params.size(), L.params.data(), L.params.size());
    const auto& view = emu::detail::thread_view();
    LaneRun& run = *std::construct_at(reinterpret_cast<LaneRun*>(tls_lane_state.data() + lane * words));
    run.t = Thread{&L, emu::detail::current_lane(), view.thread_idx, view.block_idx, nullptr, nullptr};
    run.t.stepping = true;
    run.t.local_capacity = L.local_bytes;
    for (const SharedSlot& sv : L.slots) {
        void* p = emu::detail::declare_shared(sv.elem, sv.bytes / sv.elem, sv.name, L.decl_file, L.decl_line, sv.zeroed);
        if (!run.t.arena) run.t.arena = static_cast<unsigned char*>(p) - sv.offset;
    }
    std::memcpy(run.slots(), L.image.data(), L.image.size() * 8);
    // the arrays grow only at a block's first step, before any lane holds these
    run.t.local = L.local_bytes ? tls_local.data() + lane * L.local_bytes : nullptr;
    run.t.sp = L.kernel->local_bytes;
    return run;
}

unsigned char* lane_params(const Launch& L, unsigned lane)
{
    return L.calls ? tls_params.data() + lane * L.params.size() : const_cast<unsigned char*>(L.params.data());
}

LaneRun& lane_run(const Launch& L, unsigned lane, bool first)
{
    return first ? start_lane(L, lane) : *reinterpret_cast<LaneRun*>(tls_lane_state.data() + lane * L.lane_words);
}

// Runs a lane from where it stopped until it waits or ends (true when it ended).
bool lane_step(void* ctx, unsigned lane, bool first)
{
    const Launch& L = *static_cast<const Launch*>(ctx);
    LaneRun& run = lane_run(L, lane, first);
    Interpreter interp(run.t);
    const Frame frame{L.kernel, run.slots(), lane_params(L, lane), 0};
    if (first) interp.fill_thread_constants(frame);
    return interp.run(frame, run.pc) != Flow::Waiting;
}

void warp_step(void* ctx)
{
    const Launch& L = *static_cast<const Launch*>(ctx);
    Interpreter(*L.mod).run_warp(L);
}

// Does the kernel, or a function it calls, read %reserved_smem_offset_*?
bool uses_reserved_shared(const Module::Impl& m, const Function& fn, int depth)
{
    for (const ConstSlot& c : fn.consts)
        if (c.kind == OpKind::Special && reserved_shared(static_cast<Special>(c.imm))) return true;
    if (depth > 16) return false;
    for (const Instr& in : fn.code)
        if (in.op == Op::Call && in.o[1].kind == OpKind::Func && &m.functions[in.o[1].reg] != &fn &&
            uses_reserved_shared(m, m.functions[in.o[1].reg], depth + 1))
            return true;
    return false;
}

// A fault the runtime raised (a race, an uninitialised read) at a user's line
// that calls into a toolkit header: the header's line beside it, when that line is one.
emu::KernelFault with_header_line(const Module::Impl& m, emu::KernelFault f)
{
    if (f.fault.what.find("; inside the toolkit at ") != std::string::npos) return f;
    std::string note;
    for (const SourceLoc& at : m.locations) {
        if (!at.header_file || at.line != f.fault.line || m.files[at.file] != f.fault.file) continue;
        const std::string here = header_note(m, at);
        if (!note.empty() && note != here) return f;  // several header lines: none is the one
        note = here;
    }
    if (note.empty()) return f;
    f.fault.what += note;
    return emu::KernelFault(f.fault);
}

std::string describe(const Function& k)
{
    std::string s = "kernel " + k.info.demangled.substr(0, k.info.demangled.find('(')) + " takes " +
                    std::to_string(k.params.size()) + " parameter" + (k.params.size() == 1 ? "" : "s") + " (";
    for (std::size_t i = 0; i < k.params.size(); ++i) s += (i ? ", " : "") + std::to_string(k.params[i].bytes);
    return s + " bytes)";
}

// Element size of a shared variable for the trace: the narrowest access the kernel makes to shared memory, capped by its alignment.
std::uint32_t element_size(const Module::Impl& m, const Function& k, const SharedVar& v)
{
    unsigned narrowest = 16;
    for (const Instr& in : k.code)
        if ((in.op == Op::Ld || in.op == Op::St || in.op == Op::Atom || in.op == Op::Red) && in.space == Space::Shared && ty_bytes(in.ty))
            narrowest = std::min(narrowest, ty_bytes(in.ty));
    (void)m;
    unsigned e = std::min<unsigned>(std::max(1u, v.align), narrowest);
    while (e > 1 && v.bytes % e) e /= 2;
    return e;
}

}  // namespace

void launch_args(emu::Emulator& emu, const Module& m, std::string_view kernel, dim3 grid, dim3 block,
                 std::uint32_t dynamic_shared_bytes, std::span<const Arg> args)
{
    const Module::Impl& mi = m.impl();
    const Function* k = mi.kernel(kernel);
    if (!k) {
        std::string names;
        for (const Function& f : mi.functions)
            if (f.entry && !f.declared_only) names += (names.empty() ? "" : ", ") + f.info.demangled.substr(0, f.info.demangled.find('('));
        throw emu::LaunchError("no kernel '" + std::string(kernel) + "' in " + mi.origin + " (it has: " + (names.empty() ? "none" : names) + ")");
    }
    if (args.size() != k->params.size())
        throw emu::LaunchError(describe(*k) + "; " + std::to_string(args.size()) + " given");
    Launch L;
    L.mod = &mi;
    L.kernel = k;
    L.kernel_name = k->info.demangled.substr(0, k->info.demangled.find('('));
    L.grid = grid;
    L.block = block;
    L.max_steps = emu.options.max_instructions;
    L.dynamic_bytes = dynamic_shared_bytes;
    L.params.assign(k->param_bytes, 0);
    for (std::size_t i = 0; i < args.size(); ++i) {
        const ParamSlot& p = k->params[i];
        if (args[i].bytes.size() != p.bytes)
            throw emu::LaunchError(describe(*k) + "; argument " + std::to_string(i) + " has " + std::to_string(args[i].bytes.size()) + " bytes");
        std::memcpy(L.params.data() + p.offset, args[i].bytes.data(), p.bytes);
        if (p.bytes == 8 && i < 255) {
            std::uint64_t v;
            std::memcpy(&v, args[i].bytes.data(), 8);
            std::uintptr_t base = 0;
            std::size_t bytes = 0;
            if (emu::detail::find_allocation(v, base, bytes) || (v && emu::detail::find_allocation(v - 1, base, bytes) && v == base + bytes))
                L.pointers.push_back(PointerArg{v, base + bytes, static_cast<std::uint8_t>(i)});
        }
    }
    std::sort(L.pointers.begin(), L.pointers.end(), [](const PointerArg& a, const PointerArg& b) { return a.ptr < b.ptr; });
    // the kernel's shared layout: statics in declaration order, 16-byte aligned, then the dynamic area
    L.shared_offset.assign(mi.shared.size(), 0);
    std::uint64_t off = 0;
    bool dynamic_declared = false;
    std::uint32_t dynamic_offset = 0;
    for (std::uint32_t id : k->shared_used) {
        const SharedVar& v = mi.shared[id];
        if (v.dynamic) continue;
        off = (off + 15) / 16 * 16;
        const std::uint32_t e = element_size(mi, *k, v);
        L.slots.push_back(SharedSlot{static_cast<std::uint32_t>(off), v.bytes, e, static_cast<std::uint8_t>(L.slots.size()), v.name.c_str()});
        L.shared_offset[id] = static_cast<std::uint32_t>(off);
        off += v.bytes;
    }
    off = (off + 15) / 16 * 16;
    dynamic_offset = static_cast<std::uint32_t>(off);
    for (std::uint32_t id : k->shared_used) {
        const SharedVar& v = mi.shared[id];
        if (!v.dynamic) continue;
        L.shared_offset[id] = dynamic_offset;
        if (!L.dynamic_name) L.dynamic_name = v.name.c_str(), L.dynamic_offset = dynamic_offset;
        if (!dynamic_declared && dynamic_shared_bytes) {
            SharedVar sized = v;
            sized.bytes = dynamic_shared_bytes;
            const std::uint32_t e = element_size(mi, *k, sized);
            L.slots.push_back(SharedSlot{dynamic_offset, dynamic_shared_bytes, e, static_cast<std::uint8_t>(L.slots.size()), v.name.c_str()});
            dynamic_declared = true;
        }
    }
    L.shared_total = off + dynamic_shared_bytes;
    if (uses_reserved_shared(mi, *k, 0)) {  // after the kernel's own: its offsets stay as they were
        L.reserved_offset = static_cast<std::uint32_t>((L.shared_total + 15) / 16 * 16);
        L.slots.push_back(SharedSlot{L.reserved_offset, kReservedSharedBytes, 4, static_cast<std::uint8_t>(L.slots.size()),
                                     kReservedSharedName, true});
    }
    // local memory: the kernel's depot, and each device function's a few times over (calls nest)
    std::uint64_t local = (k->local_bytes + 15) / 16 * 16;
    for (const Function& f : mi.functions)
        if (!f.entry && !f.declared_only) local += 4 * ((f.local_bytes + 15) / 16 * 16);
    L.local_bytes = static_cast<std::uint32_t>(std::min<std::uint64_t>(local, kLocalCapacity));
    for (const Instr& in : k->code)
        if (in.loc) {
            L.decl_file = mi.files[mi.locations[in.loc].file].c_str();
            L.decl_line = mi.locations[in.loc].line;
            break;
        }
    L.calls = std::any_of(k->code.begin(), k->code.end(), [](const Instr& in) { return in.op == Op::Call; });
    L.calls_functions = std::any_of(k->code.begin(), k->code.end(), [&](const Instr& in) {
        return in.op == Op::Call && (in.o[1].kind != OpKind::Func || !mi.functions[in.o[1].reg].declared_only);
    });
    // the kernel frame's slots: registers zero, constants that do not depend on the thread filled in
    L.image.assign(k->registers + k->consts.size(), 0);
    for (std::size_t i = 0; i < k->consts.size(); ++i) {
        const ConstSlot& c = k->consts[i];
        const auto slot = static_cast<std::uint32_t>(k->registers + i);
        switch (c.kind) {
        case OpKind::SharedSym: L.image[slot] = L.shared_offset[c.id] + static_cast<std::uint64_t>(c.imm); break;
        case OpKind::LocalSym: L.image[slot] = static_cast<std::uint64_t>(c.imm); break;  // the kernel's depot starts at 0
        case OpKind::Func: L.image[slot] = kFunctionTag | c.id; break;
        case OpKind::Special: L.thread_specials.emplace_back(slot, static_cast<Special>(c.imm)); break;
        default: L.image[slot] = static_cast<std::uint64_t>(c.imm); break;
        }
    }
    if (L.shared_total > 228 * 1024)
        throw emu::LaunchError("kernel " + L.kernel_name + " needs " + std::to_string(L.shared_total) +
                               " bytes of shared memory (" + std::to_string(dynamic_shared_bytes) +
                               " dynamic); a block has at most 233472");
    // Kernels that call device functions run on fibers (a wait may come deep in a call);
    // the others as explicit-state lanes, which is faster.
    emu::detail::KernelBody body{&L, lane_main};
    if (!L.calls_functions) {
        L.lane_words = lane_words(L.image.size());
        body.run_lane = lane_step;
        body.run_pass = warp_step;
    }
    try {
        emu.launch_body(L.kernel_name.c_str(), grid, block, body);
    } catch (emu::KernelFault& f) {
        throw with_header_line(mi, std::move(f));
    }
}

}  // namespace wl::ptx
