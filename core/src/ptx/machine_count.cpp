#include "machine_count.h"

#include <set>

#include "instruction_class.h"

namespace wl::ptx::detail {

namespace {

using trace::InstructionClass;

std::uint8_t byte(InstructionClass c) { return static_cast<std::uint8_t>(c); }

// FP32 instructions whose sources take a -x or |x| modifier in machine code.
bool takes_modifiers(const Instr& in)
{
    switch (in.op) {
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Fma: case Op::Mad: case Op::Setp: case Op::Min: case Op::Max:
        return in.ty == Ty::F32;
    default: return false;
    }
}

// Is neg/abs.f32 `in` a modifier of its readers: unguarded, and its result
// read only as a source of FP32 instructions that take modifiers, written nowhere else?
bool folds(const Function& f, std::size_t at)
{
    const Instr& in = f.code[at];
    if ((in.op != Op::Neg && in.op != Op::Abs) || in.ty != Ty::F32 || in.pred != kNoReg || in.o[0].kind != OpKind::Reg)
        return false;
    const std::uint32_t result = in.o[0].reg;
    bool read = false, only_modifiable = true;
    for (std::size_t pc = 0; pc < f.code.size(); ++pc) {
        if (pc == at) continue;
        const Instr& other = f.code[pc];
        each_register(f, other, [&](std::uint32_t reg, unsigned position) {
            if (reg != result) return;
            read = true;
            if (position == 0 || !takes_modifiers(other)) only_modifiable = false;
        });
    }
    return read && only_modifiable;
}

bool divides_by_register(const Function& f, const Instr& in)
{
    return (in.op == Op::Div || in.op == Op::Rem) && (in.ty == Ty::U32 || in.ty == Ty::S32) &&
           in.o[2].kind == OpKind::Reg && in.o[2].reg < f.registers;  // not a constant turned into a slot
}

// Instructions a predicated region may hold: arithmetic and moves, no memory, branch or special function.
bool predicable(InstructionClass c)
{
    switch (c) {
    case InstructionClass::Fp32: case InstructionClass::Fp64: case InstructionClass::Fp16: case InstructionClass::Integer:
    case InstructionClass::Conversion: case InstructionClass::Move: return true;
    default: return false;
    }
}

constexpr std::uint32_t kLongestPredicated = 4;

// Marks the instructions of each short forward branch's region as issued with the branch.
void predicate_short_branches(const Function& f, std::vector<MachineCount>& counts)
{
    std::set<std::uint32_t> targets;
    for (const Instr& in : f.code)
        if (in.op == Op::Bra && in.o[0].kind == OpKind::Label) targets.insert(in.o[0].reg);
    for (std::uint32_t pc = 0; pc < f.code.size(); ++pc) {
        const Instr& in = f.code[pc];
        if (in.op != Op::Bra || in.pred == kNoReg || in.o[0].kind != OpKind::Label) continue;
        const std::uint32_t end = in.o[0].reg;
        if (end <= pc + 1 || end - pc - 1 > kLongestPredicated) continue;
        bool region = true;
        for (std::uint32_t i = pc + 1; i < end && region; ++i)
            region = !targets.contains(i) &&
                     (counts[i].cls == kFolded || predicable(static_cast<InstructionClass>(counts[i].cls)));
        for (std::uint32_t i = pc + 1; i < end && region; ++i) counts[i].issued_with = pc;
    }
}

}  // namespace

std::vector<MachineCount> machine_counts(const Function& f)
{
    std::vector<MachineCount> counts(f.code.size());
    std::set<std::uint32_t> divisors;  // registers whose reciprocal is already computed
    for (std::size_t pc = 0; pc < f.code.size(); ++pc) {
        const Instr& in = f.code[pc];
        MachineCount& c = counts[pc];
        c.cls = byte(instruction_class(in));
        if (folds(f, pc)) c.cls = kFolded;
        if ((in.op == Op::Sin || in.op == Op::Cos) && in.ty == Ty::F32) c.extra_cls = byte(InstructionClass::Fp32), c.extra = 1;
        if (in.op == Op::Ex2 && in.ty == Ty::F32 && !(in.flags & kFtz)) c.extra_cls = byte(InstructionClass::Fp32), c.extra = 3;
        if (divides_by_register(f, in) && divisors.insert(in.o[2].reg).second)
            c.extra_cls = byte(InstructionClass::Special), c.extra = 1;
    }
    predicate_short_branches(f, counts);
    return counts;
}

}  // namespace wl::ptx::detail
