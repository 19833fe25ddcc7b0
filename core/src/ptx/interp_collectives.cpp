// Block barriers and warp collectives (shfl, vote, match, redux,
// activemask, bar.warp.sync, the TF32 mma product, wmma.mma): a lane arrives with its
// value, the runtime releases the lanes of the mask together, and each lane
// collects its result (on resume, for explicit-state lanes).
#include "interp.h"

namespace wl::ptx::detail {

void arrive_at_warp_product(const Interpreter& it, const Frame& fr, const Instr& in);  // interp_wmma.cpp

// A warp collective or block barrier: arrive, wait until the runtime releases
// the lane, finish (collect the result). True when the lane must return to the
// scheduler first (explicit-state lanes); finish() then runs on resume.
bool Interpreter::warp_op(const Frame& fr, const Instr& in)
{
    arrive(fr, in);
    if (t_->explicit_state) {
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
    const unsigned warp = t_->L->warp_size;
    switch (in.op) {
    case Op::Shfl: {  // shfl.sync.mode.b32 d[|p], a, b, c, membermask
        const unsigned base = (in.flags & kPair) ? 2 : 1;
        const std::uint32_t value = static_cast<std::uint32_t>(get(fr, in.o[base]));
        const int arg = static_cast<int>(get(fr, in.o[base + 1]));
        const std::uint32_t c = static_cast<std::uint32_t>(get(fr, in.o[base + 2]));
        const unsigned mask = static_cast<unsigned>(get(fr, in.o[base + 3]));
        // c = ((warp width - segment width) << 8) | clamp, as the toolkit's __shfl_*_sync writes it
        const int width = static_cast<int>(warp) - static_cast<int>((c >> 8) & (warp - 1));
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
        emu::detail::collective_arrive(collective_op(in), mask, &value, 4, 0, static_cast<int>(warp), f, l);
        return;
    }
    case Op::Match: {  // match.any.sync.b32 d, a, membermask / match.all.sync.b32 d[|p], a, membermask
        const unsigned base = (in.flags & kPair) ? 2 : 1;
        const std::uint64_t value[2] = {mask_to(in.ty, get(fr, in.o[base])), 0};
        const unsigned mask = static_cast<unsigned>(get(fr, in.o[base + 1]));
        emu::detail::collective_arrive(collective_op(in), mask, value, 16, 0, static_cast<int>(warp), f, l);
        return;
    }
    case Op::Redux: {  // redux.sync.op.type d, a, membermask
        const std::uint32_t value = static_cast<std::uint32_t>(get(fr, in.o[1]));
        const unsigned mask = static_cast<unsigned>(get(fr, in.o[2]));
        emu::detail::collective_arrive(collective_op(in), mask, &value, 4, 0, static_cast<int>(warp), f, l);
        return;
    }
    case Op::BarWarp: {
        const unsigned mask = static_cast<unsigned>(get(fr, in.o[0]));
        emu::detail::collective_arrive(CollectiveOp::SyncWarp, mask, nullptr, 0, 0, static_cast<int>(warp), f, l);
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
        emu::detail::collective_arrive(CollectiveOp::MmaTf32, 0xFFFFFFFFu, words, sizeof words, 0, static_cast<int>(warp), f, l);
        return;
    }
    case Op::WmmaMma: arrive_at_warp_product(*this, fr, in); return;
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
    case Op::BarWarp: case Op::WmmaMma: emu::detail::collective_take(nullptr, 0); return;  // wmma.mma: D written at completion
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

// bar, bar.red, bar.warp.sync, shfl, vote, match, redux, activemask, mma, wmma.mma.
Outcome exec_collective(Interpreter& it, const Frame& fr, const Instr& in, std::size_t&)
{
    return it.warp_op(fr, in) ? Outcome::Wait : Outcome::Next;
}

}  // namespace wl::ptx::detail
