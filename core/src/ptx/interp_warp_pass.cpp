// Explicit-state lanes and warp-major passes: each lane's state and register
// slots in per-host-thread arrays, resuming one lane (the runtime's
// KernelBody::run_lane), and, under the Independent schedule, one pass over a warp
// with the lanes at one pc run together (KernelBody::run_pass).
#include "../emu/bit_count.h"
#include "interp.h"

namespace wl::ptx::detail {

namespace {

thread_local std::vector<std::uint64_t> tls_lane_state;
thread_local std::vector<unsigned char> tls_local;
thread_local std::vector<unsigned char> tls_params;  // kernels that call vprintf & co write their arguments
// Warp-major passes: each warp's instructions counted against max_instructions, by warp of the block this host thread runs.
thread_local std::vector<std::uint64_t> tls_warp_budget_used;
// Each started lane of the block as a pass takes it (by flat index), made at its start: a later pass copies it.
thread_local std::vector<PassLane> tls_pass_lanes;
// Where each warp's lanes stopped in its last pass, by warp of the block.
thread_local std::vector<WarpStops> tls_warp_stops;

// While the pass's lanes have stopped together (WarpStops), each lane of the pass gets their pc.
void write_stop_pcs(const WarpStops& stops)
{
    if (stops.mixed || stops.lanes == 0) return;
    const PassLane* const started = tls_pass_lanes.data();
    for (LaneMask m = stops.pass; m; m &= m - 1) started[stops.first + std::countr_zero(m)].run->pc = stops.pc;
}

// A lane of the warp stops elsewhere than stops.pc, or with a wait's result to collect: the next pass
// reads each lane's own pc.
void mix_stops(WarpStops& stops)
{
    write_stop_pcs(stops);
    stops.mixed = true;
}

// The turns one pass may hold: what the runtime's pass_lanes takes (its widest warp).
template <std::size_t N> constexpr std::size_t turn_capacity(unsigned (*)(emu::detail::LaneTurn (&)[N])) { return N; }
constexpr std::size_t kPassTurns = turn_capacity(&emu::detail::pass_lanes);
static_assert(kPassTurns <= kMaxWarpSize, "lane masks hold the widest warp");

// A register form's operand slots, read once for all its lanes (a lane's stores could alias the instruction).
struct RegisterSlots {
    std::uint32_t d, a, b, c;
    explicit RegisterSlots(const Instr& in) : d(in.o[0].reg), a(in.o[1].reg), b(in.o[2].reg), c(in.o[3].reg) {}
};

// A setp's comparison as a constant of the loop over its lanes: ops.def's statements read it as in->cmp.
template <Cmp K> struct FixedCmp {
    static constexpr Cmp cmp = K;
};

// f(FixedCmp<K>{}) with K the comparison c, or one that compares alike: lo is lt, hs is ge ...
// (compare_values and compare_floats read them alike), and for integers the unordered forms
// are the ordered ones and num and nan never hold. A form that compares nothing takes one loop.
template <bool Compares, bool Floats, class F> [[gnu::always_inline]] inline void with_fixed_cmp(Cmp c, F&& f)
{
    if constexpr (!Compares) {
        f(FixedCmp<Cmp::Eq>{});
    } else {
        switch (c) {
        case Cmp::Eq: return f(FixedCmp<Cmp::Eq>{});
        case Cmp::Ne: return f(FixedCmp<Cmp::Ne>{});
        case Cmp::Lt: case Cmp::Lo: return f(FixedCmp<Cmp::Lt>{});
        case Cmp::Le: case Cmp::Ls: return f(FixedCmp<Cmp::Le>{});
        case Cmp::Gt: case Cmp::Hi: return f(FixedCmp<Cmp::Gt>{});
        case Cmp::Ge: case Cmp::Hs: return f(FixedCmp<Cmp::Ge>{});
        default: break;
        }
        if constexpr (Floats) {
            switch (c) {
            case Cmp::Equ: return f(FixedCmp<Cmp::Equ>{});
            case Cmp::Neu: return f(FixedCmp<Cmp::Neu>{});
            case Cmp::Ltu: return f(FixedCmp<Cmp::Ltu>{});
            case Cmp::Leu: return f(FixedCmp<Cmp::Leu>{});
            case Cmp::Gtu: return f(FixedCmp<Cmp::Gtu>{});
            case Cmp::Geu: return f(FixedCmp<Cmp::Geu>{});
            case Cmp::Num: return f(FixedCmp<Cmp::Num>{});
            default: return f(FixedCmp<Cmp::Nan>{});
            }
        } else {
            switch (c) {
            case Cmp::Equ: return f(FixedCmp<Cmp::Eq>{});
            case Cmp::Neu: return f(FixedCmp<Cmp::Ne>{});
            case Cmp::Ltu: return f(FixedCmp<Cmp::Lt>{});
            case Cmp::Leu: return f(FixedCmp<Cmp::Le>{});
            case Cmp::Gtu: return f(FixedCmp<Cmp::Gt>{});
            case Cmp::Geu: return f(FixedCmp<Cmp::Ge>{});
            default: return f(FixedCmp<Cmp::Num>{});  // num, nan: false
            }
        }
    }
}

// The last setp a group ran, its results as lane bits, so that a guard on its predicate reads
// them here rather than from every lane's slot, while no other instruction has written that slot.
struct SetPredicate {
    std::uint32_t slot = kNoReg;  // the predicate's slot, or none
    LaneMask lanes = 0;           // the lanes it was set for (the setp's executing lanes)
    LaneMask set = 0;             // those of them where it holds
    void forget(std::uint32_t written) { slot = written == slot ? kNoReg : slot; }
    void forget_all() { slot = kNoReg; }
};

// The lanes of exec for which body(r) holds, as lane bits (r: a lane's slots), in for_lanes's order.
template <class Body>
[[gnu::always_inline]] inline LaneMask lane_bits(const PassLane* lanes, LaneMask exec, LaneMask whole, unsigned count,
                                                 Body body)
{
    LaneMask bits = 0;
    if (exec == whole) {
        for (unsigned k = 0; k < count; ++k) bits |= LaneMask{body(lanes[k].r)} << k;
        return bits;
    }
    for (LaneMask m = exec; m; m &= m - 1) bits |= LaneMask{body(lanes[std::countr_zero(m)].r)} << std::countr_zero(m);
    return bits;
}

// body(r) for each executing lane's slots: the group's first `count` lanes in order where they all
// execute (whole: a converged warp), else the lanes of the mask.
template <class Body>
[[gnu::always_inline]] inline void for_lanes(const PassLane* lanes, LaneMask exec, LaneMask whole, unsigned count, Body body)
{
    if (exec == whole) {
        for (unsigned k = 0; k < count; ++k) body(lanes[k].r);
        return;
    }
    for (LaneMask m = exec; m; m &= m - 1) body(lanes[std::countr_zero(m)].r);
}

}  // namespace

std::size_t lane_words(std::size_t slots) { return (sizeof(LaneRun) / 8 + slots + 7) / 8 * 8; }

// The per-host-thread arrays hold every lane of L's blocks (they grow only
// at a block's first pass, before any lane holds them).
static void reserve_lanes(const Launch& L)
{
    const std::size_t threads = std::size_t(L.block.x) * L.block.y * L.block.z;
    if (tls_lane_state.size() < threads * L.lane_words) tls_lane_state.resize(threads * L.lane_words);
    if (tls_local.size() < threads * L.local_bytes) tls_local.resize(threads * L.local_bytes);
    if (L.calls && tls_params.size() < threads * L.params.size()) tls_params.resize(threads * L.params.size());
}

// A lane's state and slots as it starts, given what it is (info, tid, ctaid)
// and its block's shared memory.
static LaneRun& make_lane(const Launch& L, unsigned lane, emu::detail::LaneInfo info, uint3 tid, uint3 ctaid,
                          unsigned char* arena)
{
    if (L.calls) std::memcpy(tls_params.data() + lane * L.params.size(), L.params.data(), L.params.size());
    // Made in place, each field written once (a default construction and an assignment wrote them twice).
    LaneRun& run = *::new (tls_lane_state.data() + lane * L.lane_words) LaneRun{
        0, Thread{.L = &L,
                  .lane = info,
                  .tid = tid,
                  .ctaid = ctaid,
                  .arena = arena,
                  .local = L.local_bytes ? tls_local.data() + lane * L.local_bytes : nullptr,
                  .sp = L.kernel->local_bytes,
                  .local_capacity = L.local_bytes,
                  .explicit_state = true}};
    std::memcpy(run.slots(), L.image.data(), L.image.size() * 8);
    return run;
}

// A lane's first run, the lane entered: its state and slots set up, shared memory declared.
// Out of line: inlined, it would widen every later resumption's entry and exit.
[[gnu::noinline]] LaneRun& start_lane(const Launch& L, unsigned lane)
{
    reserve_lanes(L);
    unsigned char* arena = nullptr;
    for (const SharedSlot& sv : L.slots) {
        void* p = emu::detail::declare_shared(sv.elem, sv.bytes / sv.elem, sv.name, L.decl_file, L.decl_line, sv.zeroed);
        if (!arena) arena = static_cast<unsigned char*>(p) - sv.offset;
    }
    const auto& view = emu::detail::thread_view();
    LaneRun& run = make_lane(L, lane, emu::detail::current_lane(), view.thread_idx, view.block_idx, arena);
    run.t.tally = emu::detail::instruction_tally();
    return run;
}

std::uint64_t& warp_budget(const Launch& L, unsigned flat) { return tls_warp_budget_used[flat / L.warp_size]; }

unsigned char* lane_params(const Launch& L, unsigned lane)
{
    return L.calls ? tls_params.data() + lane * L.params.size() : const_cast<unsigned char*>(L.params.data());
}

LaneRun& lane_run(const Launch& L, unsigned lane, bool first)
{
    return first ? start_lane(L, lane) : *reinterpret_cast<LaneRun*>(tls_lane_state.data() + lane * L.lane_words);
}

// Runs a lane from where it stopped until it waits or ends (true when it ended):
// the runtime's KernelBody::run_lane.
bool resume_lane(void* ctx, unsigned lane, bool first)
{
    const Launch& L = *static_cast<const Launch*>(ctx);
    LaneRun& run = lane_run(L, lane, first);
    Interpreter interp(run.t);
    const Frame frame{L.kernel, run.slots(), lane_params(L, lane), 0};
    if (first) interp.fill_thread_constants(frame);
    return interp.run(frame, run.pc) != Flow::Waiting;
}

// One warp-major pass: the runtime's KernelBody::run_pass.
void run_warp_pass(void* ctx)
{
    const Launch& L = *static_cast<const Launch*>(ctx);
    Interpreter(*L.mod).run_warp(L);
}

// ---- warp-major passes
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
static bool orders_lanes(const Instr& in)
{
    return in.op == Op::Atom || in.op == Op::Red || in.op == Op::Call;
}

// From pc on, the group's lanes one after another, each to its next wait or
// its end, in the pass's order: the order the Independent schedule promises.
void Interpreter::run_lanes_apart(PassLane* lanes, LaneMask group, std::size_t pc)
{
    mix_stops(*stops_);
    for (LaneMask m = group; m; m &= m - 1) {
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
bool Interpreter::syncwarp_together(PassLane* lanes, LaneMask exec, const Instr& in, std::size_t pc, Frame& fr)
{
    unsigned flats[kMaxWarpSize], count = 0;
    fr.r = lanes[std::countr_zero(exec)].r;
    const auto mask = static_cast<unsigned>(get(fr, in.o[0]));
    for (LaneMask m = exec; m; m &= m - 1) {
        fr.r = lanes[std::countr_zero(m)].r;
        if (static_cast<unsigned>(get(fr, in.o[0])) != mask) return false;
    }
    mix_stops(*stops_);
    for (LaneMask m = exec; m; m &= m - 1) {
        LaneRun& run = *lanes[std::countr_zero(m)].run;
        run.pc = pc;
        run.t.pending = &in;  // collective_take when the lane resumes
        flats[count++] = lanes[std::countr_zero(m)].flat;
    }
    emu::detail::syncwarp_arrive_lanes(flats, count, mask, file(in), line(in));
    return true;
}

// The warp's first pass, in which every lane starts (a block's lanes are all
// runnable at its start): the first lane starts the full way, entered (it
// declares the block's shared memory, or finds it declared by an earlier
// warp); the others of an unwatched block take their block's facts from it
// rather than from the runtime, lane by lane. A watched block's lanes all
// start the full way (the first thread's start is recorded). Returns true: the
// lanes are all at pc 0.
bool Interpreter::start_warp(const Launch& L, const emu::detail::LaneTurn* turns, unsigned n, PassLane* lanes,
                             std::size_t* pcs)
{
    const std::size_t warps = (std::size_t(L.block.x) * L.block.y * L.block.z + L.warp_size - 1) / L.warp_size;
    if (tls_warp_budget_used.size() < warps) tls_warp_budget_used.resize(warps);
    if (tls_pass_lanes.size() < warps * L.warp_size) tls_pass_lanes.resize(warps * L.warp_size);
    if (tls_warp_stops.size() < warps) tls_warp_stops.resize(warps);
    PassLane* const started = tls_pass_lanes.data();
    tls_warp_budget_used[turns[0].flat / L.warp_size] = 0;  // the warp's budget count starts
    emu::detail::enter_lane(turns[0].flat);
    LaneRun& first = start_lane(L, turns[0].flat);
    // The warp width is a power of two; a block of one dimension (most kernels') has tid.x = flat: no divisions.
    const unsigned warp_shift = static_cast<unsigned>(std::countr_zero(L.warp_size));
    const bool flat_block = L.block.y == 1 && L.block.z == 1;
    auto start = [&](unsigned flat) -> LaneRun& {
        if (first.t.lane.watched) {
            emu::detail::enter_lane(flat);
            return start_lane(L, flat);
        }
        const emu::detail::LaneInfo info{flat, flat >> warp_shift, flat & (L.warp_size - 1), false, first.t.lane.lockstep};
        const uint3 tid = flat_block ? uint3{flat, 0, 0}
                                     : uint3{flat % L.block.x, flat / L.block.x % L.block.y, flat / (L.block.x * L.block.y)};
        return make_lane(L, flat, info, tid, first.t.ctaid, first.t.arena);
    };
    for (unsigned k = 0; k < n; ++k) {
        const unsigned flat = turns[k].flat;
        LaneRun& run = k == 0 ? first : start(flat);
        const PassLane lane{&run, run.slots(), lane_params(L, flat), flat};  // in registers: stored twice, never read back
        lanes[k] = lane;
        started[flat] = lane;
        pcs[k] = run.pc;
    }
    fill_pass_constants(L, lanes, n);
    return true;
}

// The constant slots that differ per thread, of the pass's n lanes that start:
// those the same in the whole block (%ctaid, %ntid) read once.
void Interpreter::fill_pass_constants(const Launch& L, const PassLane* lanes, unsigned n)
{
    for (const auto& [slot, which] : L.thread_specials) {
        if (same_in_block(which)) {
            t_ = &lanes[0].run->t;
            const std::uint64_t v = special(which);
            for (unsigned k = 0; k < n; ++k) lanes[k].r[slot] = v;
            continue;
        }
        for (unsigned k = 0; k < n; ++k) {
            t_ = &lanes[k].run->t;
            lanes[k].r[slot] = special(which);
        }
    }
}

// A later pass: the lanes' states found (the k-th the lane flat_of(k)), the
// results of their waits collected. Returns whether they are all at one pc.
template <class FlatOf>
bool Interpreter::resume_warp(const Launch& L, unsigned n, FlatOf flat_of, PassLane* lanes, std::size_t* pcs)
{
    unsigned flats[kMaxWarpSize];
    for (unsigned k = 0; k < n; ++k) flats[k] = flat_of(k);
    const PassLane* const started = tls_pass_lanes.data();  // a local: the stores below could alias the array's vector
    const std::size_t first_pc = started[flats[0]].run->pc;
    bool one_pc = true;
    LaneMask waited = 0;  // the lanes with a wait's result to collect
    for (unsigned k = 0; k < n; ++k) {
        const PassLane& lane = lanes[k] = started[flats[k]];
        pcs[k] = lane.run->pc;  // read here once: the groups need not reach into the lane's state again
        one_pc &= pcs[k] == first_pc;
        waited |= LaneMask{lane.run->t.pending != nullptr} << k;
    }
    for (LaneMask m = waited; m; m &= m - 1) {
        const PassLane& lane = lanes[std::countr_zero(m)];
        Frame fr{L.kernel, nullptr, nullptr, 0};
        enter(lane, fr);
        finish(fr, *lane.run->t.pending);
        lane.run->t.pending = nullptr;
    }
    return one_pc;
}

// The pass's lanes, started or resumed: how many (none: the pass has nothing to run), and whether all are at one pc.
unsigned Interpreter::take_pass(const Launch& L, PassLane* lanes, std::size_t* pcs, bool& one_pc)
{
    emu::detail::PassOrder order;
    if (emu::detail::pass_in_order(order)) {  // a whole warp resumed: each lane's place in the pass computed
        const unsigned last = order.count - 1;
        const auto flat_of = [&](unsigned k) { return order.first + ((k * order.odd + order.offset) & last); };
        WarpStops& stops = tls_warp_stops[order.first / L.warp_size];
        if (!stops.mixed && stops.lanes == order.count) {  // all stopped together: nothing to read but where
            const PassLane* const started = tls_pass_lanes.data();
            for (unsigned k = 0; k < order.count; ++k) lanes[k] = started[flat_of(k)];
            pcs[0] = stops.pc;
            one_pc = true;
        } else {
            write_stop_pcs(stops);
            one_pc = resume_warp(L, order.count, flat_of, lanes, pcs);
        }
        stops = WarpStops{.first = order.first, .pass = lanes_below(order.count)};
        stops_ = &stops;
        return order.count;
    }
    emu::detail::LaneTurn turns[kPassTurns];
    const unsigned n = emu::detail::pass_lanes(turns);
    if (n == 0) return 0;
    const unsigned w = turns[0].flat / L.warp_size;
    if (turns[0].first) {  // the block's first pass over the warp (what an earlier block left in its stops goes)
        one_pc = start_warp(L, turns, n, lanes, pcs);
    } else {
        write_stop_pcs(tls_warp_stops[w]);
        one_pc = resume_warp(L, n, [&](unsigned k) { return turns[k].flat; }, lanes, pcs);
    }
    LaneMask pass = 0;
    for (unsigned k = 0; k < n; ++k) pass |= LaneMask{1} << (turns[k].flat - w * L.warp_size);
    stops_ = &tls_warp_stops[w];
    *stops_ = WarpStops{.first = w * L.warp_size, .pass = pass};
    return n;
}

void Interpreter::run_warp(const Launch& L)
{
    PassLane lanes[kMaxWarpSize];
    std::size_t pcs[kMaxWarpSize];
    bool one_pc = false;
    const unsigned n = take_pass(L, lanes, pcs, one_pc);
    if (n == 0) return;
    LaneGroup work[kMaxWarpSize];
    unsigned groups = 0;
    if (one_pc) work[groups++] = LaneGroup{pcs[0], lanes_below(n)};
    for (LaneMask left = one_pc ? 0 : lanes_below(n); left;) {
        const std::size_t pc = pcs[std::countr_zero(left)];
        LaneMask same = 0;
        for (LaneMask m = left; m; m &= m - 1)
            if (pcs[std::countr_zero(m)] == pc) same |= LaneMask{1} << std::countr_zero(m);
        work[groups++] = LaneGroup{pc, same};
        left &= ~same;
    }
    // The fast engine runs the groups of unwatched blocks (a watched block's trace is the interpreter's).
    const bool compiled = L.compiled && !lanes[0].run->t.lane.watched;
    while (groups) {
        const LaneGroup g = work[--groups];
        if (compiled) run_compiled(L, lanes, g, work, groups);
        else run_group(L, lanes, g, work, groups);
    }
}

// Runs a group until each of its lanes waits or ends; lanes a branch sends
// elsewhere go to `work` as groups of their own.
void Interpreter::run_group(const Launch& L, PassLane* lanes, LaneGroup g, LaneGroup* work, unsigned& groups)
{
    const Instr* code = L.kernel->code.data();
    std::size_t pc = g.pc;
    LaneMask live = g.lanes;
    Frame fr{L.kernel, nullptr, nullptr, 0};
    std::uint64_t* r = nullptr;
    // The budget (max_instructions), counted once a warp (as if its lanes were one thread:
    // divergent groups add up, so the count errs high, never low).
    std::uint64_t& warp_budget_used = warp_budget(L, lanes[0].flat);
    // The pass's lanes 0 .. count - 1, when they are all in this group.
    const unsigned count = emu::detail::bit_count(g.lanes);
    const LaneMask whole = g.lanes == lanes_below(count) ? g.lanes : 0;
    auto executed = [&](LaneMask exec) {  // the lane-instructions of one instruction
        emu::detail::tls_lane_instructions += exec == whole ? count : emu::detail::bit_count(exec);
    };
    // The instruction mix: each live lane reached the instruction at `at` (a watched block's lanes only).
    const bool tallied = lanes[0].run->t.tally != nullptr;
    auto reach = [&](std::size_t at, std::uint32_t times) {
        for (LaneMask m = live; m; m &= m - 1) lanes[std::countr_zero(m)].run->t.tally[at] += times;
    };
    SetPredicate set_predicate;
    while (live) {
        const Instr* in = code + pc++;
        if (tallied) [[unlikely]] reach(pc - 1, 1);
        LaneMask exec = live;  // the lanes whose guard lets them execute
        if (in->pred != kNoReg) {
            const std::uint32_t p = in->pred;
            const std::uint64_t negated = (in->flags & kNegPred) != 0;
            exec = 0;
            if (p == set_predicate.slot && (live & ~set_predicate.lanes) == 0) {  // the last setp's results, as bits
                exec = (negated ? ~set_predicate.set : set_predicate.set) & live;
            } else if (live == whole) {  // lanes 0 .. count - 1: no mask to walk; each bit shifted in, the last lane's first
                for (unsigned k = count; k-- > 0;) exec = exec << 1 | ((lanes[k].r[p] ^ negated) & 1);
            } else {
                for (LaneMask m = live; m; m &= m - 1)
                    if ((lanes[std::countr_zero(m)].r[p] ^ negated) & 1) exec |= LaneMask{1} << std::countr_zero(m);
            }
            if (!exec) continue;
        }
// Every lane of the group's first `whole` executes (the common case: a
// converged warp) or the lanes of the mask.
#define WL_EACH_LANE(prepare, stmt)                                                   \
    executed(exec);                                                                   \
    if (exec == whole) {                                                              \
        for (unsigned k = 0; k < count; ++k) {                                        \
            const PassLane& lane = lanes[k];                                          \
            prepare;                                                                  \
            stmt;                                                                     \
        }                                                                             \
        continue;                                                                     \
    }                                                                                 \
    for (LaneMask m = exec; m; m &= m - 1) {                                     \
        const PassLane& lane = lanes[std::countr_zero(m)];                            \
        prepare;                                                                      \
        stmt;                                                                         \
    }                                                                                 \
    continue;
// Each form's operand slots are read once for all its lanes (RegisterSlots: the WL_ operands of
// ops.def's statements read them); a register form's lanes take a setp's comparison as a constant
// (FixedCmp, through the `in` the statement sees).
#pragma push_macro("WL_D")
#pragma push_macro("WL_A")
#pragma push_macro("WL_B")
#pragma push_macro("WL_C")
#undef WL_D
#undef WL_A
#undef WL_B
#undef WL_C
#define WL_D (r[slots.d])
#define WL_A (r[slots.a])
#define WL_B (r[slots.b])
#define WL_C (r[slots.c])
// A setp's results are kept as lane bits (set_predicate).
#define PTX_FAST_REGISTER(label, Enum, Operation, types, statement)                                    \
    case Fast::Enum:                                                                                    \
        executed(exec);                                                                                 \
        with_fixed_cmp<Op::Operation == Op::Setp, Fast::Enum == Fast::SetpF32>(                         \
            in->cmp, [&, slots = RegisterSlots(*in)](auto fixed) {                                      \
                [[maybe_unused]] const decltype(fixed)* in = &fixed;                                    \
                if constexpr (Op::Operation == Op::Setp) {                                              \
                    set_predicate.slot = slots.d;                                                       \
                    set_predicate.lanes = exec;                                                         \
                    set_predicate.set = lane_bits(lanes, exec, whole, count,                            \
                                                  [&](std::uint64_t* r) { return ((statement) & 1) != 0; }); \
                } else {                                                                                \
                    set_predicate.forget(slots.d);                                                      \
                    for_lanes(lanes, exec, whole, count, [&](std::uint64_t* r) { statement; });         \
                }                                                                                       \
            });                                                                                         \
        continue;
#define PTX_FAST_PARAM(label, Enum, bytes, statement)                \
    case Fast::Enum: {                                               \
        const RegisterSlots slots(*in);                              \
        set_predicate.forget(slots.d);                               \
        WL_EACH_LANE((r = lane.r, fr.param = lane.param), statement) \
    }
#define PTX_FAST_ACCESS(label, Enum, Op, Space, elems, statement) \
    case Fast::Enum: {                                            \
        set_predicate.forget_all(); /* a load's registers */      \
        if (access_lanes(lanes, exec, *in, fr)) {                 \
            executed(exec);                                       \
            continue;                                             \
        }                                                         \
        const RegisterSlots slots(*in);                           \
        WL_EACH_LANE((enter(lane, fr), r = lane.r), statement)    \
    }
        switch (in->fast) {
#include "ops.def"
#pragma pop_macro("WL_D")
#pragma pop_macro("WL_A")
#pragma pop_macro("WL_B")
#pragma pop_macro("WL_C")
        case Fast::Bra:
            executed(exec);
            if (in->o[0].reg < pc) [[unlikely]] {  // a loop: the group's budget, once for all its lanes
                warp_budget_used += pc - in->o[0].reg;
                if (warp_budget_used > L.max_instructions) [[unlikely]] {
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
        case Fast::BarSync:
            executed(exec);
            arrive_lanes(lanes, exec, *in, pc);
            live &= ~exec;
            continue;
        case Fast::Nop: executed(exec); continue;
        default:
            if (orders_lanes(*in)) {  // run() counts the lanes from here on
                if (tallied) reach(pc - 1, ~0u);  // undone (-1): run() reaches it again, lane by lane, and counts it
                run_lanes_apart(lanes, live, pc - 1);
                return;
            }
            break;
        }
#undef WL_EACH_LANE
        set_predicate.forget_all();  // the general path may write any register
        executed(exec);
        if (in->op == Op::BarWarp && syncwarp_together(lanes, exec, *in, pc, fr)) {
            live &= ~exec;
            continue;
        }
        pc = general_lanes(lanes, *in, pc, exec, live, fr, work, groups);
    }
}

// The lanes `exec` stop at the instruction before pc (a wait, their end), `flats` their indices: while
// the pass's lanes all stop at one pc, stops keeps it for them (WarpStops), else each keeps it. Returns how many.
static unsigned stop_lanes(WarpStops& stops, PassLane* lanes, LaneMask exec, std::size_t pc, unsigned* flats)
{
    const unsigned count = emu::detail::bit_count(exec);
    if (stops.lanes != 0 && pc != stops.pc) mix_stops(stops);
    stops.pc = pc;
    stops.lanes += count;
    if (exec == lanes_below(count)) {  // the pass's first lanes (a converged warp): no mask to walk
        for (unsigned k = 0; k < count; ++k) flats[k] = lanes[k].flat;
    } else {
        unsigned i = 0;
        for (LaneMask m = exec; m; m &= m - 1) flats[i++] = lanes[std::countr_zero(m)].flat;
    }
    if (stops.mixed)
        for (LaneMask m = exec; m; m &= m - 1) lanes[std::countr_zero(m)].run->pc = pc;
    return count;
}

// bar.sync reached by the lanes `exec` (pc: the instruction after it): they arrive as one batch.
void Interpreter::arrive_lanes(PassLane* lanes, LaneMask exec, const Instr& in, std::size_t pc)
{
    unsigned flats[kMaxWarpSize];
    const unsigned count = stop_lanes(*stops_, lanes, exec, pc, flats);
    emu::detail::barrier_arrive_lanes(flats, count, file(in), line(in));
}

// The general path, lane by lane, for the lanes `exec` of `live` (pc: the
// instruction after `in`); the lanes that go on may go on in different places.
// Returns where the group goes on (live: its lanes); the lanes elsewhere go to
// `work` as groups of their own.
std::size_t Interpreter::general_lanes(PassLane* lanes, const Instr& in, std::size_t pc, LaneMask exec, LaneMask& live,
                                       Frame& fr, LaneGroup* work, unsigned& groups)
{
    if (in.op == Op::Ret || in.op == Op::Exit) {  // the kernel's end (a pass's kernel calls none of its functions)
        unsigned flats[kMaxWarpSize];
        const unsigned count = stop_lanes(*stops_, lanes, exec, pc, flats);
        emu::detail::end_lanes(flats, count);
        live &= ~exec;
        return pc;
    }
    if (in.op == Op::CpAsync && copy_async_lanes(lanes, exec, in, fr)) return pc;
    std::size_t next[kMaxWarpSize];
    for (LaneMask m = exec; m; m &= m - 1) {
        const unsigned k = std::countr_zero(m);
        enter(lanes[k], fr);
        std::size_t at = pc;
        const Outcome outcome = general(fr, in, at);
        if (outcome == Outcome::Next) {
            next[k] = at;
            continue;
        }
        mix_stops(*stops_);
        lanes[k].run->pc = at;  // the entered lane k waits or ends
        emu::detail::leave_lane(outcome != Outcome::Wait);
        live &= ~(LaneMask{1} << k);
    }
    for (LaneMask m = live & ~exec; m; m &= m - 1) next[std::countr_zero(m)] = pc;
    if (!live) return pc;
    pc = next[std::countr_zero(live)];
    LaneMask elsewhere = 0;
    for (LaneMask m = live; m; m &= m - 1)
        if (next[std::countr_zero(m)] != pc) elsewhere |= LaneMask{1} << std::countr_zero(m);
    live &= ~elsewhere;
    while (elsewhere) {
        const std::size_t at = next[std::countr_zero(elsewhere)];
        LaneMask same = 0;
        for (LaneMask m = elsewhere; m; m &= m - 1)
            if (next[std::countr_zero(m)] == at) same |= LaneMask{1} << std::countr_zero(m);
        work[groups++] = LaneGroup{at, same};
        elsewhere &= ~same;
    }
    return pc;
}

}  // namespace wl::ptx::detail
