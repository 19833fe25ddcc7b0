// Lowering a parsed module for the interpreter, once, after the last token:
// kernel info (parameters, shared variables, sizes), constant operands turned
// into register slots, each instruction's hot form (the rows of ops.def), and
// the toolkit functions a module declares but does not define.
#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>

#include "lower.h"
#include "warplab/ptx/cuda_source.h"

namespace wl::ptx::detail {

namespace {

bool fixed_special(Special s)
{
    return s != Special::Clock && s != Special::Clock64 && s != Special::GlobalTimer;
}

// Constant operands become register slots that a frame fills when it starts,
// so that the interpreter reads every hot operand as r[slot].
void constants_to_slots(Function& fn)
{
    std::map<ConstSlot, std::uint32_t> ids;
    auto slot = [&](OpKind kind, std::uint32_t id, std::int64_t imm) {
        const ConstSlot c{kind, id, imm};
        auto [it, fresh] = ids.try_emplace(c, fn.registers + static_cast<std::uint32_t>(fn.consts.size()));
        if (fresh) fn.consts.push_back(c);
        return it->second;
    };
    for (Instr& in : fn.code) {
        for (unsigned k = 0; k < in.nops; ++k) {
            Operand& o = in.o[k];
            switch (o.kind) {
            case OpKind::Imm: o.reg = slot(OpKind::Imm, 0, o.imm); break;
            case OpKind::ParamSym: o.reg = slot(OpKind::Imm, 0, o.imm); break;
            case OpKind::SharedSym: o.reg = slot(OpKind::SharedSym, o.reg, o.imm); break;
            case OpKind::LocalSym: o.reg = slot(OpKind::LocalSym, 0, o.imm); break;
            case OpKind::Func: if (in.op != Op::Call) o.reg = slot(OpKind::Func, o.reg, 0); else continue; break;
            case OpKind::Special:
                if (!fixed_special(static_cast<Special>(o.imm))) continue;
                o.reg = slot(OpKind::Special, 0, o.imm);
                break;
            case OpKind::Addr:
                if (o.base == OpKind::SharedSym) { o.reg = slot(OpKind::SharedSym, o.reg, 0); o.base = OpKind::Reg; }
                else if (o.base == OpKind::LocalSym) { o.reg = slot(OpKind::LocalSym, 0, 0); o.base = OpKind::Reg; }
                continue;
            default: continue;
            }
            o.kind = OpKind::Reg;
            o.n = 0;
        }
    }
}

// ptxas's contraction. PTX lets a mul and an add (or sub) without a rounding
// modifier be folded into a multiply-add (the ISA's summary of floating-point
// instructions), and ptxas folds them by default (--fmad=true): the GPU gives
// the product and sum rounded once, an ulp from the two roundings apart where
// the product is inexact (differential kernels 1369, 2536, 2654 and 6690 of
// seed 1, where nvcc left such a pair, hoisting the product out of a loop or
// rewriting x * 0.5f + -x). ptxas of CUDA 13.0 (sm_90) folds a mul only where
// every reader of its product is such an add or sub, each reading it once and
// each in the mul's basic block, or anywhere where the mul has a constant
// operand; a call or a return ends a block (kernel 7591 kept its product by a
// register apart, the mul before a call and the add in a branch; the PTX cases
// of tests/differential/test_sass_outline.py show the rule). So each reader of
// such a mul becomes the fma of the mul's operands, where nothing on a way from
// the mul to it rewrites them.
//
// One pass over the control-flow graph's basic blocks serves every add: the
// muls reaching each point (on a way that does not pass the mul again), each
// marked where an instruction on some such way wrote one of its operands. Between
// blocks only the muls whose products an add still reads further on are kept.
class Contraction {
public:
    explicit Contraction(Function& fn)
        : fn_(fn), n_(fn.code.size()), writers_(fn.registers), written_(n_), readers_(fn.registers), next_(n_), prev_(n_)
    {
        for (std::size_t i = 0; i < n_; ++i) {
            const Instr& in = fn.code[i];
            written_[i] = written(in);
            for (std::uint32_t reg : written_[i]) writers_[reg].push_back(i);
            const bool jumps = in.op == Op::Bra || in.op == Op::Ret || in.op == Op::Exit || in.op == Op::Trap;
            if (!(jumps && in.pred == kNoReg) && i + 1 < n_) link(i, i + 1);
            for (unsigned k = 0; k < in.nops; ++k)
                if (in.o[k].kind == OpKind::Label && in.o[k].reg < n_) link(i, in.o[k].reg);
        }
        split_blocks();
        mark_folding_muls();
        for (std::size_t i = 0; i < n_; ++i)
            if (foldable(i))
                for (unsigned k = 1; k <= 2; ++k)
                    if (fn.code[i].o[k].reg < fn.registers) readers_[fn.code[i].o[k].reg].push_back(static_cast<std::uint32_t>(i));
    }

    void run()
    {
        const std::vector<Reaching> at_start = muls_reaching_blocks(products_live_into_blocks());
        Walk walk(n_);
        for (std::size_t b = 0; b < blocks_.size(); ++b) {
            walk.start(at_start[b]);
            for (std::size_t i = blocks_[b].first; i < blocks_[b].last; ++i) {
                Instr& in = fn_.code[i];
                if (sum(in))
                    for (unsigned k = 1; k <= 2; ++k) {
                        const std::int64_t mul = product(in.o[k], i, walk);
                        if (mul < 0) continue;
                        fuse(in, fn_.code[static_cast<std::size_t>(mul)], k);
                        break;
                    }
                step(walk, i);
            }
        }
    }

private:
    // A mul reaching a point, and whether its operands may have been rewritten on the way.
    struct Reached {
        std::uint32_t mul;
        bool rewritten;
    };
    using Reaching = std::vector<Reached>;         // sorted by mul
    using Registers = std::vector<std::uint32_t>;  // sorted
    struct Block {
        std::size_t first, last;  // [first, last)
        std::vector<std::size_t> next, prev;
    };

    // What reaches the instruction a walk through a block is at: by mul,
    // 0 (not reaching), 1 (reaching) or 2 (reaching, an operand rewritten).
    struct Walk {
        explicit Walk(std::size_t n) : state(n, 0) {}
        std::vector<std::uint8_t> state;
        std::vector<std::uint32_t> present;
        void start(const Reaching& from)
        {
            for (std::uint32_t m : present) state[m] = 0;
            present.clear();
            for (const Reached& r : from) state[r.mul] = r.rewritten ? 2 : 1, present.push_back(r.mul);
        }
    };

    // A float mul, add or sub without a rounding modifier.
    static bool unrounded(const Instr& in, Op op)
    {
        return in.op == op && (in.ty == Ty::F32 || in.ty == Ty::F64) && in.round == Round::None && in.nops == 3;
    }

    // An add or sub that may take a product in: .sat too (ptxas makes it FFMA.SAT).
    static bool sum(const Instr& in) { return unrounded(in, Op::Add) || unrounded(in, Op::Sub); }

    std::vector<std::uint32_t> written(const Instr& in) const
    {
        std::vector<std::uint32_t> regs;
        for (unsigned k = 0; k < std::min<unsigned>(in.flags & kPair ? 2 : 1, in.nops); ++k) {
            const Operand& d = in.o[k];
            if (d.kind == OpKind::Reg && d.reg < fn_.registers) regs.push_back(d.reg);
            if (d.kind == OpKind::Vec)
                for (unsigned j = 0; j < d.n; ++j)
                    if (fn_.lists[d.reg + j] < fn_.registers) regs.push_back(fn_.lists[d.reg + j]);
        }
        return regs;
    }

    void link(std::size_t from, std::size_t to)
    {
        next_[from].push_back(to);
        prev_[to].push_back(from);
    }

    // Basic blocks, as ptxas's contraction sees them: a block starts at the
    // first instruction, at a jump's target other than the next instruction,
    // and after a jump elsewhere, a call, a return, an exit or a trap (guarded
    // too: a guarded return kept ptxas from folding across it).
    void split_blocks()
    {
        std::vector<bool> leads(n_, false);
        for (std::size_t i = 0; i < n_; ++i) {
            if (i == 0) leads[i] = true;
            const Op op = fn_.code[i].op;
            const bool ends = op == Op::Call || op == Op::Ret || op == Op::Exit || op == Op::Trap ||
                              std::any_of(next_[i].begin(), next_[i].end(), [&](std::size_t j) { return j != i + 1; });
            if (ends && i + 1 < n_) leads[i + 1] = true;
            for (std::size_t j : next_[i])
                if (j != i + 1) leads[j] = true;
        }
        block_of_.assign(n_, 0);
        for (std::size_t i = 0; i < n_; ++i) {
            if (leads[i]) blocks_.push_back({i, i, {}, {}});
            blocks_.back().last = i + 1;
            block_of_[i] = blocks_.size() - 1;
        }
        for (std::size_t b = 0; b < blocks_.size(); ++b)
            for (std::size_t j : next_[blocks_[b].last - 1]) {
                blocks_[b].next.push_back(block_of_[j]);
                blocks_[block_of_[j]].prev.push_back(b);
            }
    }

    // Whether the mul at `at` may be folded at all: it alone writes its
    // product, from two registers (or constants), unguarded, not x = x * y.
    bool candidate(std::size_t at) const
    {
        const Instr& mul = fn_.code[at];
        if (!unrounded(mul, Op::Mul) || (mul.flags & kSat) || mul.pred != kNoReg || at + 1 >= n_) return false;
        const std::uint32_t product = mul.o[0].reg;
        if (mul.o[0].kind != OpKind::Reg || product >= fn_.registers || writers_[product].size() != 1) return false;
        if (mul.o[1].reg == product || mul.o[2].reg == product) return false;
        return mul.o[1].kind == OpKind::Reg && mul.o[2].kind == OpKind::Reg;
    }

    // The candidate muls that ptxas folds: every reader of the product an add
    // or sub of its type and flush mode, reading it once, in the mul's block
    // unless the mul has a constant operand.
    void mark_folding_muls()
    {
        folds_.assign(n_, false);
        std::vector<std::vector<std::size_t>> reads(fn_.registers);  // by product: its readers, once per mention
        for (std::size_t i = 0; i < n_; ++i) folds_[i] = candidate(i);
        for (std::size_t i = 0; i < n_; ++i)
            each_register(fn_, fn_.code[i], [&](std::uint32_t reg, unsigned) {
                if (reg < fn_.registers && writers_[reg].size() == 1 && writers_[reg][0] != i && folds_[writers_[reg][0]])
                    reads[reg].push_back(i);
            });
        for (std::size_t m = 0; m < n_; ++m) {
            if (!folds_[m]) continue;
            const Instr& mul = fn_.code[m];
            const std::vector<std::size_t>& readers = reads[mul.o[0].reg];
            const bool by_constant = mul.o[1].reg >= fn_.registers || mul.o[2].reg >= fn_.registers;
            for (std::size_t j = 0; j < readers.size() && folds_[m]; ++j) {
                const Instr& add = fn_.code[readers[j]];
                folds_[m] = sum(add) && add.ty == mul.ty && (add.flags & kFtz) == (mul.flags & kFtz) &&
                            (j == 0 || readers[j - 1] != readers[j]) && (by_constant || block_of_[readers[j]] == block_of_[m]);
            }
        }
    }

    bool foldable(std::size_t at) const { return folds_[at]; }

    // The foldable mul that writes `reg`: its index, or -1.
    std::int64_t sole_mul(std::uint32_t reg) const
    {
        if (reg >= fn_.registers || writers_[reg].size() != 1 || !foldable(writers_[reg][0])) return -1;
        return static_cast<std::int64_t>(writers_[reg][0]);
    }

    // Whether instruction `i` writes a register operand (not a constant) of the mul at `mul`.
    bool rewrites_operand(std::size_t i, std::uint32_t mul) const
    {
        const Instr& m = fn_.code[mul];
        for (std::uint32_t reg : written_[i])
            if (reg == m.o[1].reg || reg == m.o[2].reg) return true;
        return false;
    }

    // Past instruction `i`: the muls whose operands it writes are marked, and a foldable mul starts afresh.
    void step(Walk& walk, std::size_t i) const
    {
        for (std::uint32_t reg : written_[i]) {
            if (readers_[reg].size() <= walk.present.size()) {
                for (std::uint32_t m : readers_[reg])
                    if (walk.state[m]) walk.state[m] = 2;
            } else {
                for (std::uint32_t m : walk.present)
                    if (rewrites_operand(i, m)) walk.state[m] = 2;
            }
        }
        if (!foldable(i)) return;
        if (!walk.state[i]) walk.present.push_back(static_cast<std::uint32_t>(i));
        walk.state[i] = 1;
    }

    static Registers joined(const Registers& a, const Registers& b)
    {
        Registers both;
        std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
        return both;
    }

    // The products of foldable muls that a plain add or sub reads at or after
    // each block's start, before their mul writes them again (a liveness of the
    // products, by the adds' reads alone).
    std::vector<Registers> products_live_into_blocks() const
    {
        std::vector<Registers> read(blocks_.size()), defined(blocks_.size());  // in the block, a read before the mul
        std::vector<std::size_t> defined_in(fn_.registers, blocks_.size());       // each product's mul's block
        for (std::size_t b = 0; b < blocks_.size(); ++b) {
            for (std::size_t i = blocks_[b].first; i < blocks_[b].last; ++i) {
                const Instr& in = fn_.code[i];
                if (sum(in))
                    for (unsigned k = 1; k <= 2; ++k)
                        if (in.o[k].kind == OpKind::Reg && sole_mul(in.o[k].reg) >= 0 && defined_in[in.o[k].reg] != b)
                            read[b].push_back(in.o[k].reg);
                if (foldable(i)) defined[b].push_back(in.o[0].reg), defined_in[in.o[0].reg] = b;
            }
            for (Registers* set : {&read[b], &defined[b]}) {
                std::sort(set->begin(), set->end());
                set->erase(std::unique(set->begin(), set->end()), set->end());
            }
        }
        std::vector<Registers> live_in = read;
        std::vector<std::size_t> todo(blocks_.size());
        for (std::size_t b = 0; b < blocks_.size(); ++b) todo[b] = b;  // popped from the back: the last block first
        std::vector<bool> queued(blocks_.size(), true);
        while (!todo.empty()) {
            const std::size_t b = todo.back();
            todo.pop_back();
            queued[b] = false;
            Registers out;
            for (std::size_t s : blocks_[b].next) out = joined(out, live_in[s]);
            Registers in;
            std::set_difference(out.begin(), out.end(), defined[b].begin(), defined[b].end(), std::back_inserter(in));
            in = joined(in, read[b]);
            if (in == live_in[b]) continue;
            live_in[b] = std::move(in);
            for (std::size_t p : blocks_[b].prev)
                if (!queued[p]) queued[p] = true, todo.push_back(p);
        }
        return live_in;
    }

    // The muls reaching each block's start, forward from the entry; a mul is
    // kept into a block only where that block's adds may still read its product.
    std::vector<Reaching> muls_reaching_blocks(const std::vector<Registers>& live_in) const
    {
        std::vector<Reaching> reaching(blocks_.size());
        std::vector<std::size_t> todo(blocks_.size());
        for (std::size_t b = 0; b < blocks_.size(); ++b) todo[b] = blocks_.size() - 1 - b;  // the first block first
        std::vector<bool> queued(blocks_.size(), true);
        Walk walk(n_);
        while (!todo.empty()) {
            const std::size_t b = todo.back();
            todo.pop_back();
            queued[b] = false;
            walk.start(reaching[b]);
            for (std::size_t i = blocks_[b].first; i < blocks_[b].last; ++i) step(walk, i);
            for (std::size_t s : blocks_[b].next) {
                Reaching out;
                for (std::uint32_t m : walk.present)
                    if (std::binary_search(live_in[s].begin(), live_in[s].end(), fn_.code[m].o[0].reg))
                        out.push_back({m, walk.state[m] == 2});
                std::sort(out.begin(), out.end(), [](const Reached& x, const Reached& y) { return x.mul < y.mul; });
                if (merge(reaching[s], out) && !queued[s]) queued[s] = true, todo.push_back(s);
            }
        }
        return reaching;
    }

    // `into` joined with `more` (a mul rewritten on either way is rewritten): whether `into` changed.
    static bool merge(Reaching& into, const Reaching& more)
    {
        Reaching both;
        bool changed = false;
        auto a = into.begin();
        for (const Reached& r : more) {
            for (; a != into.end() && a->mul < r.mul; ++a) both.push_back(*a);
            if (a != into.end() && a->mul == r.mul) {
                changed |= r.rewritten && !a->rewritten;
                both.push_back({r.mul, a->rewritten || r.rewritten});
                ++a;
            } else {
                changed = true;
                both.push_back(r);
            }
        }
        both.insert(both.end(), a, into.end());
        if (changed) into = std::move(both);
        return changed;
    }

    // The mul that alone writes `o`, read by the add at `add`, whose operands no
    // instruction on a way from the mul to the add (the add included) writes:
    // its index, or -1. A mul that does not reach the add has no such way.
    std::int64_t product(const Operand& o, std::size_t add, const Walk& walk) const
    {
        if (o.kind != OpKind::Reg) return -1;
        const std::int64_t at = sole_mul(o.reg);
        if (at < 0) return -1;
        const std::uint8_t reached = walk.state[static_cast<std::size_t>(at)];
        if (reached == 2 || (reached == 1 && rewrites_operand(add, static_cast<std::uint32_t>(at)))) return -1;
        return at;
    }

    // a*b + c; a*b - c: the addend negated; c - a*b: the product negated.
    static void fuse(Instr& in, const Instr& mul, unsigned k)
    {
        const Operand addend = in.o[3 - k];
        in.sub = in.op == Op::Add ? Sub::None : k == 1 ? Sub::NegAddend : Sub::NegProduct;
        in.op = Op::Fma;
        in.round = Round::Rn;
        in.o[1] = mul.o[1];
        in.o[2] = mul.o[2];
        in.o[3] = addend;
        in.nops = 4;
    }

    Function& fn_;
    std::size_t n_;
    std::vector<std::vector<std::size_t>> writers_;    // each register's writing instructions
    std::vector<std::vector<std::uint32_t>> written_;  // each instruction's written registers
    std::vector<std::vector<std::uint32_t>> readers_;  // each register's foldable muls that read it
    std::vector<std::vector<std::size_t>> next_, prev_;
    std::vector<bool> folds_;  // by instruction: a mul that ptxas folds into its readers
    std::vector<Block> blocks_;
    std::vector<std::size_t> block_of_;
};

// The hot form of an instruction, where it has one: the first row of ops.def
// that matches. Loads and stores: 4 or 8 bytes of a kernel parameter at a fixed
// offset, or one, two or four 4-byte elements of shared or global memory at
// [register + offset].
Fast access_form(const Function& fn, const Instr& in)
{
    const unsigned w = ty_bytes(in.ty);
    const Operand& addr = in.op == Op::Ld ? in.o[1] : in.o[0];
    const Operand& value = in.op == Op::Ld ? in.o[0] : in.o[1];
    const bool scalar = value.kind == OpKind::Reg && in.vec == 1, vector = value.kind == OpKind::Vec && value.n == in.vec;
    if (addr.kind != OpKind::Addr || !(scalar || vector) || in.nops != 2) return Fast::None;
    // [param_name] or [offset]: either way the address is the displacement
    const bool fixed = addr.base == OpKind::Imm || addr.base == OpKind::ParamSym;
    if (in.space == Space::Param) {
        if (in.op != Op::Ld || !scalar || !fixed || addr.imm < 0 || static_cast<std::uint64_t>(addr.imm) + w > fn.param_bytes)
            return Fast::None;
#define PTX_FAST_PARAM(label, Enum, bytes, statement) \
        if (w == bytes) return Fast::Enum;
#include "ops.def"
        return Fast::None;
    }
    if (w != 4 || addr.base != OpKind::Reg) return Fast::None;
#define PTX_FAST_ACCESS(label, Enum, Op_, Space_, lanes, statement) \
    if (in.op == Op::Op_ && in.space == Space::Space_ && in.vec == lanes) return Fast::Enum;
#include "ops.def"
    return Fast::None;
}

Fast fast_form(const Function& fn, const Instr& in)
{
    if (in.op == Op::Ld || in.op == Op::St)  // a widened signed load (Instr::ty2) takes the general path
        return in.order == kPlain && in.ty2 == Ty::None && !in.cas_seed ? access_form(fn, in) : Fast::None;
    if (in.op == Op::Bar)  // bar.sync 0: the whole block
        return in.nops == 1 && in.o[0].kind == OpKind::Reg && in.o[0].reg >= fn.registers &&
                       fn.consts[in.o[0].reg - fn.registers].kind == OpKind::Imm &&
                       fn.consts[in.o[0].reg - fn.registers].imm == 0
                   ? Fast::BarSync
                   : Fast::None;
    for (unsigned k = 0; k < in.nops; ++k)
        if (in.o[k].kind != OpKind::Reg && !(in.op == Op::Bra && in.o[k].kind == OpKind::Label)) return Fast::None;
    const bool plain = (in.flags & ~kUni) == 0 && (in.round == Round::None || in.round == Round::Rn) && in.vec == 1 &&
                       !(in.op == Op::Fma && in.sub != Sub::None);  // a contracted sub's negation: the general path
    if (!plain || (in.op == Op::Setp && in.nops != 3)) return Fast::None;
    // cvta to or from the global window changes nothing here: a mov
    const bool global_cvta = (in.op == Op::Cvta || in.op == Op::CvtaTo) && in.space == Space::Global;
    const Op op = global_cvta ? Op::Mov : in.op;
    if (global_cvta && in.ty == Ty::Pred) return Fast::None;
    const TySet ty = ty_bit(in.ty);
#define PTX_FAST_REGISTER(label, Enum, Op_, types, statement) \
    if (op == Op::Op_ && (ty & (types))) return Fast::Enum;
#define PTX_FAST_CONTROL(label, Enum, Op_) \
    if (op == Op::Op_ && Op::Op_ != Op::Bar) return Fast::Enum;
#include "ops.def"
    return Fast::None;
}

// A kernel's parameters, shared arrays (the parser listed the ones it reaches:
// statements.h's SharedUse) and sizes.
// Where an address operand points: a register, a variable (SharedSym, ...) or a fixed address (Imm),
// each plus a displacement.
struct Place {
    OpKind base;
    std::uint32_t id;  // Reg: the register; *Sym: the variable; Imm: 0
    std::int64_t imm;
    bool operator==(const Place&) const = default;
};

// The one instruction that writes `reg` (its first operand), or null where none or several do.
const Instr* only_writer(const Function& fn, std::uint32_t reg)
{
    const Instr* writer = nullptr;
    for (const Instr& in : fn.code)
        if (in.op != Op::St && in.nops > 0 && in.o[0].kind == OpKind::Reg && in.o[0].reg == reg) {
            if (writer) return nullptr;
            writer = &in;
        }
    return writer;
}

// What an address operand points at, seen through the registers written once by a mov of a variable's
// address or of another register, or by cvta: `ld.shared [total]` and `atom.shared [%r14]` after
// `mov.u32 %r14, total` name one word, as do a generic pointer and its global window.
Place place_of(const Function& fn, const Operand& a)
{
    Place p{a.base, a.base == OpKind::Imm ? 0 : a.reg, a.imm};
    for (unsigned hops = 0; p.base == OpKind::Reg && hops < 8; ++hops) {
        if (p.id >= fn.registers) {  // a constant's slot (constants_to_slots): a variable's address, or a number
            const ConstSlot& c = fn.consts[p.id - fn.registers];
            if (c.kind == OpKind::Imm) p = Place{OpKind::Imm, 0, p.imm + c.imm};
            else if (c.kind == OpKind::SharedSym || c.kind == OpKind::LocalSym) p = Place{c.kind, c.id, p.imm + c.imm};
            break;
        }
        const Instr* writer = only_writer(fn, p.id);
        const bool copies = writer && (writer->op == Op::Mov || writer->op == Op::Cvta || writer->op == Op::CvtaTo) &&
                            writer->nops == 2 && writer->o[1].kind == OpKind::Reg;
        if (!copies) break;
        p.id = writer->o[1].reg;
    }
    return p;
}

// The registers whose value reaches `reg` through movs (a loop's `assumed = old`, a reinterpretation
// as float), `reg` included; flow-insensitive, as nvcc's loops need.
std::vector<bool> copied_into(const Function& fn, std::uint32_t reg)
{
    std::vector<bool> feeds(fn.registers, false);
    feeds[reg] = true;
    for (bool grew = true; grew;) {
        grew = false;
        for (const Instr& in : fn.code)
            if (in.op == Op::Mov && in.o[0].kind == OpKind::Reg && in.o[1].kind == OpKind::Reg &&
                in.o[0].reg < fn.registers && in.o[1].reg < fn.registers && feeds[in.o[0].reg] && !feeds[in.o[1].reg])
                feeds[in.o[1].reg] = grew = true;
    }
    return feeds;
}

// Marks each plain load that seeds an atomicCAS loop (Instr::cas_seed): `old = *p; do { assumed = old;
// old = atomicCAS(p, assumed, f(assumed)); } while (assumed != old);` as the Programming Guide builds
// the atomics the hardware lacks. Its read may be stale, which the loop's compare catches.
void mark_cas_seeds(Function& fn)
{
    for (const Instr& cas : fn.code) {
        if (cas.op != Op::Atom || cas.sub != Sub::Cas || cas.o[1].kind != OpKind::Addr ||
            cas.o[2].kind != OpKind::Reg || cas.o[2].reg >= fn.registers)
            continue;
        const std::vector<bool> feeds = copied_into(fn, cas.o[2].reg);
        const Place target = place_of(fn, cas.o[1]);
        for (Instr& in : fn.code)
            if (in.op == Op::Ld && in.order == kPlain && in.vec == 1 && in.o[0].kind == OpKind::Reg &&
                in.o[0].reg < fn.registers && feeds[in.o[0].reg] && in.o[1].kind == OpKind::Addr &&
                place_of(fn, in.o[1]) == target)
                in.cas_seed = true;
    }
}

void kernel_info(const Module::Impl& m, Function& fn)
{
    KernelInfo& k = fn.info;
    k.mangled = fn.name;
    k.demangled = without_return_type(demangle(fn.name));
    for (const ParamSlot& s : fn.params)
        k.params.push_back(ParamInfo{s.name, s.bytes, s.align, pointer_parameter(s.bytes), ""});
    std::uint64_t off = 0;
    for (std::uint32_t id : fn.shared_used) {
        const SharedVar& v = m.shared[id];
        k.shared.push_back(SharedInfo{v.name, v.bytes, v.align, v.dynamic});
        if (!v.dynamic) off = (off + 15) / 16 * 16 + v.bytes;
    }
    k.static_shared_bytes = off;
    k.local_bytes = fn.local_bytes;
    k.registers = fn.registers;
}

// The toolkit functions a module declares and the interpreter provides.
Builtin builtin_of(const std::string& name)
{
    if (name == "vprintf") return Builtin::Vprintf;
    if (name == "__assertfail") return Builtin::Assertfail;
    if (name == "malloc") return Builtin::Malloc;  // new and delete call these too
    if (name == "free") return Builtin::Free;
    return Builtin::None;
}

}  // namespace

void lower_module(Module::Impl& m)
{
    for (Function& fn : m.functions) {
        if (fn.declared_only) {
            fn.builtin = builtin_of(fn.name);
            continue;
        }
        if (fn.entry) kernel_info(m, fn);
        constants_to_slots(fn);
        Contraction(fn).run();
        mark_cas_seeds(fn);
        for (Instr& in : fn.code) in.fast = fast_form(fn, in);
    }
}

std::string demangle(const std::string& name)
{
    int status = 0;
    char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
    if (status != 0 || !d) return name;
    std::string s(d);
    std::free(d);
    return s;
}
// "void f<1u>(int)" -> "f<1u>(int)": template functions' demangled names start with the return type.
std::string without_return_type(const std::string& d)
{
    int depth = 0;
    for (std::size_t i = 0; i < d.size(); ++i) {
        const char c = d[i];
        if (c == '<') ++depth;
        else if (c == '>') --depth;
        else if (c == '(' && depth == 0) break;
        else if (c == ' ' && depth == 0) return without_return_type(d.substr(i + 1));
    }
    return d;
}

}  // namespace wl::ptx::detail

namespace wl::ptx {

void Module::name_parameters(std::string_view kernel, const std::vector<std::string>& names)
{
    for (detail::Function& f : impl_->functions) {
        if (!f.entry || f.declared_only || f.info.params.size() != names.size()) continue;
        if (!kernel_named(instance_name(f.info.demangled), kernel)) continue;
        for (std::size_t i = 0; i < names.size(); ++i) f.info.params[i].source_name = names[i];
    }
}

void Module::shape_shared(std::string_view mangled, std::string_view name, const std::vector<std::uint64_t>& extents,
                          unsigned elem_bytes)
{
    emu::detail::DeclaredShape shape;
    if (extents.size() < 2 || extents.size() > shape.kMaxRank || elem_bytes == 0) return;
    std::uint64_t bytes = elem_bytes;
    for (const std::uint64_t e : extents) {
        shape.extents[shape.rank++] = e;
        bytes *= e;
    }
    shape.elem = elem_bytes;
    for (const detail::Function& f : impl_->functions) {
        if (!f.entry || f.declared_only || f.info.mangled != mangled) continue;
        for (const std::uint32_t id : f.shared_used) {
            detail::SharedVar& v = impl_->shared[id];
            if (!v.dynamic && v.name == name && v.bytes == bytes) v.shape = shape;
        }
    }
}

}  // namespace wl::ptx
