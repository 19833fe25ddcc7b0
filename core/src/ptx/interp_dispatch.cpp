// Dispatch and control flow: the lane-at-a-time interpreter loop (threaded
// dispatch over the hot forms of ops.def), the general path's switch over
// every operation (generated from ops.def), and branches, returns, exit, trap.
#include "interp.h"

namespace wl::ptx::detail {

// ---- control on the general path

Outcome exec_branch(Interpreter& it, const Frame&, const Instr& in, std::size_t& pc)
{
    it.count_loop(in, pc, in.o[0].reg);
    pc = in.o[0].reg;
    return Outcome::Next;
}

Outcome exec_return(Interpreter&, const Frame&, const Instr&, std::size_t&) { return Outcome::Return; }

Outcome exec_exit(Interpreter&, const Frame&, const Instr&, std::size_t&) { return Outcome::Exit; }

Outcome exec_trap(Interpreter& it, const Frame&, const Instr& in, std::size_t&)
{
    if (it.grid_barrier_missing())  // cooperative groups abort a grid sync that has no barrier
        it.fail(in, "kernel called trap: this_grid().sync() in a launch that is not cooperative has no grid barrier "
                    "(launch the kernel with cudaLaunchCooperativeKernel)");
    it.fail(in, "kernel called trap (an assert failed or the kernel aborted)");
}

Outcome exec_nop(Interpreter&, const Frame&, const Instr&, std::size_t&) { return Outcome::Next; }
Outcome exec_fence(Interpreter&, const Frame&, const Instr&, std::size_t&)
{
    emu::detail::memory_fence();
    return Outcome::Next;
}

Outcome exec_unsupported(Interpreter& it, const Frame&, const Instr& in, std::size_t&) { it.unsupported(in); }

// The general path: one case an operation, each to its family's function.
Outcome Interpreter::general(const Frame& fr, const Instr& in, std::size_t& pc)
{
    switch (in.op) {
#define PTX_OP(Enum, name, exec, mix, traced) \
    case Op::Enum: return exec(*this, fr, in, pc);
#include "ops.def"
    }
    unsupported(in);  // never a silent no-op
}

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
    // The instruction mix: the kernel's instructions this lane reaches (a watched block's lanes only).
    std::uint32_t* const tally = fr.f == t_->L->kernel ? t_->tally : nullptr;
    if (t_->pending) {  // resumed after a wait: collect the result first
        finish(fr, *t_->pending);
        t_->pending = nullptr;
    }
    // One handler a hot form, in ops.def's order: Fast's values index it.
    static const void* const handlers[] = {
        &&general_path,
#define PTX_FAST_REGISTER(label, Enum, Op, types, statement) &&label,
#define PTX_FAST_PARAM(label, Enum, bytes, statement) &&label,
#define PTX_FAST_ACCESS(label, Enum, Op, Space, lanes, statement) &&label,
#define PTX_FAST_CONTROL(label, Enum, Op) &&label,
#include "ops.def"
    };
#define WL_STOP(flow) \
    do {              \
        stopped = flow; \
        goto stop;    \
    } while (0)
#define WL_NEXT()                                                                                    \
    do {                                                                                             \
        in = code + pc++;                                                                            \
        if (tally) [[unlikely]] ++tally[pc - 1];                                                     \
        if (in->pred != kNoReg && ((r[in->pred] & 1) != 0) == ((in->flags & kNegPred) != 0)) goto skip; \
        ++emu::detail::tls_lane_instructions;                                                        \
        goto* handlers[static_cast<unsigned>(in->fast)];                                            \
    } while (0)
    WL_NEXT();
stop:
    entry_pc = pc;
    return stopped;
skip:
    WL_NEXT();
general_path: {
    std::size_t next = pc;  // general() sees a copy, so that pc's address never escapes
    const Outcome outcome = general(fr, *in, next);
    pc = next;
    switch (outcome) {
    case Outcome::Next: WL_NEXT();
    case Outcome::Return: WL_STOP(Flow::Returned);
    case Outcome::Exit: WL_STOP(Flow::Exited);
    case Outcome::Wait: WL_STOP(Flow::Waiting);
    }
}
#define PTX_FAST_REGISTER(label, Enum, Op, types, statement) \
    label:                                                    \
    statement;                                                \
    WL_NEXT();
#define PTX_FAST_PARAM(label, Enum, bytes, statement) \
    label:                                             \
    statement;                                         \
    WL_NEXT();
#define PTX_FAST_ACCESS(label, Enum, Op, Space, lanes, statement) \
    label:                                                         \
    if (round_pending(pc)) WL_STOP(Flow::Waiting);          \
    statement;                                              \
    WL_NEXT();
#include "ops.def"
bra:
    count_loop(*in, pc, in->o[0].reg);
    pc = in->o[0].reg;
    WL_NEXT();
bar_sync:
    if (t_->explicit_state) {
        emu::detail::barrier_arrive(emu::detail::BarrierOp::None, 0, file(*in), line(*in));
        WL_STOP(Flow::Waiting);
    }
    emu::detail::barrier(emu::detail::BarrierOp::None, 0, file(*in), line(*in));
    WL_NEXT();
nop: WL_NEXT();
#undef WL_NEXT
#undef WL_STOP
}

}  // namespace wl::ptx::detail
