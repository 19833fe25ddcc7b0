// The instruction mix's class of each operation (instruction_class.h): the
// mix column of ops.def, whose expressions read the rules below.
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
    using enum InstructionClass;  // the table's class words
    switch (in.op) {
#define PTX_OP(Enum, name, exec, mix, traced) \
    case Op::Enum: return mix;
#include "ops.def"
    }
    return Other;
}

}  // namespace wl::ptx::detail
