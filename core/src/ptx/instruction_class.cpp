// The instruction mix's class of each operation (instruction_class.h). The
// switch names every operation of ops.def, without a default, so that a new
// row without a class is a compiler warning (-Wswitch), not a silent "other".
#include "instruction_class.h"

namespace wl::ptx::detail {

namespace {

using trace::InstructionClass;

// Arithmetic whose unit is its type's: half, single, double precision or integer.
InstructionClass by_type(Ty t)
{
    switch (t) {
    case Ty::F32: return InstructionClass::Fp32;
    case Ty::F64: return InstructionClass::Fp64;
    case Ty::F16: case Ty::F16x2: case Ty::BF16: case Ty::BF16x2: return InstructionClass::Fp16;
    default: return InstructionClass::Integer;
    }
}

// rcp, sqrt, div: the special-function unit's approximation, or the type's arithmetic (a Newton sequence).
InstructionClass approximated(const Instr& in)
{
    return (in.flags & kApprox) && in.ty != Ty::F64 ? InstructionClass::Special : by_type(in.ty);
}

InstructionClass load_of(Space s)
{
    switch (s) {
    case Space::Global: return InstructionClass::LoadGlobal;
    case Space::Shared: return InstructionClass::LoadShared;
    case Space::Local: return InstructionClass::LoadLocal;
    case Space::Const: return InstructionClass::LoadConstant;
    case Space::Param: return InstructionClass::LoadParam;
    case Space::Generic: return InstructionClass::LoadGeneric;
    }
    return InstructionClass::LoadGeneric;
}

InstructionClass store_of(Space s)
{
    switch (s) {
    case Space::Global: return InstructionClass::StoreGlobal;
    case Space::Shared: return InstructionClass::StoreShared;
    case Space::Local: return InstructionClass::StoreLocal;
    case Space::Const: case Space::Param: case Space::Generic: return InstructionClass::StoreGeneric;
    }
    return InstructionClass::StoreGeneric;
}

}  // namespace

trace::InstructionClass instruction_class(const Instr& in)
{
    switch (in.op) {
    case Op::Mov: return InstructionClass::Move;
    case Op::Ld: return load_of(in.space);
    case Op::St: return store_of(in.space);
    case Op::Cvt: return InstructionClass::Conversion;
    case Op::Cvta: case Op::CvtaTo: case Op::Isspacep: return InstructionClass::Integer;
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Mad: case Op::Abs: case Op::Neg: case Op::Min: case Op::Max:
    case Op::Copysign: case Op::Fma: case Op::Testp: case Op::Setp: case Op::Set:
        return by_type(in.ty);
    case Op::Div: case Op::Rcp: case Op::Sqrt: return approximated(in);
    case Op::Rsqrt: return in.ty == Ty::F64 ? InstructionClass::Fp64 : InstructionClass::Special;
    case Op::Sin: case Op::Cos: case Op::Lg2: case Op::Ex2: case Op::Tanh: return InstructionClass::Special;
    case Op::MulHi: case Op::MulWide: case Op::MadHi: case Op::MadWide: case Op::AddC: case Op::SubC: case Op::MadC:
    case Op::MadCHi: case Op::Mul24: case Op::Mad24: case Op::Sad: case Op::Rem: case Op::Popc: case Op::Clz:
    case Op::Bfind: case Op::Brev: case Op::Bfe: case Op::Bfi: case Op::Fns: case Op::Prmt: case Op::And: case Op::Or:
    case Op::Xor: case Op::Not: case Op::Cnot: case Op::Shl: case Op::Shr: case Op::Shf: case Op::Lop3: case Op::Selp:
    case Op::Slct: case Op::Dp4a: case Op::Dp2a: case Op::Vabsdiff4:
        return InstructionClass::Integer;
    case Op::Bra: case Op::Call: case Op::Ret: case Op::Exit: case Op::Trap: return InstructionClass::Branch;
    case Op::Bar: case Op::BarRed: case Op::BarWarp: case Op::Fence: case Op::Mbarrier: return InstructionClass::Barrier;
    case Op::Shfl: case Op::Vote: case Op::Match: case Op::Redux: case Op::Activemask: case Op::Mma:
        return InstructionClass::Collective;
    case Op::Atom: case Op::Red: return InstructionClass::Atomic;
    case Op::CpAsync: case Op::CpAsyncBulk: return InstructionClass::AsyncCopy;
    case Op::Tex: return InstructionClass::LoadTexture;
    case Op::Nop: case Op::Unsupported: return InstructionClass::Other;
    }
    return InstructionClass::Other;
}

}  // namespace wl::ptx::detail
