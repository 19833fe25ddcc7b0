// Lowering a parsed module for the interpreter, once, after the last token:
// kernel info (parameters, shared variables, sizes), constant operands turned
// into register slots, each instruction's hot form (the rows of ops.def), and
// the toolkit functions a module declares but does not define.
#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>

#include "lower.h"

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
        return in.order == kPlain && in.ty2 == Ty::None ? access_form(fn, in) : Fast::None;
    if (in.op == Op::Bar)  // bar.sync 0: the whole block
        return in.nops == 1 && in.o[0].kind == OpKind::Reg && in.o[0].reg >= fn.registers &&
                       fn.consts[in.o[0].reg - fn.registers].kind == OpKind::Imm &&
                       fn.consts[in.o[0].reg - fn.registers].imm == 0
                   ? Fast::BarSync
                   : Fast::None;
    for (unsigned k = 0; k < in.nops; ++k)
        if (in.o[k].kind != OpKind::Reg && !(in.op == Op::Bra && in.o[k].kind == OpKind::Label)) return Fast::None;
    const bool plain = (in.flags & ~kUni) == 0 && (in.round == Round::None || in.round == Round::Rn) && in.vec == 1;
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
        const std::string& d = f.info.demangled;
        const std::string_view qualified = std::string_view(d).substr(0, d.find_first_of("<("));
        const bool named = qualified == kernel ||
                           (qualified.size() > kernel.size() + 2 && qualified.ends_with(kernel) &&
                            qualified.substr(qualified.size() - kernel.size() - 2, 2) == "::");
        if (!named) continue;
        for (std::size_t i = 0; i < names.size(); ++i) f.info.params[i].source_name = names[i];
    }
}

}  // namespace wl::ptx
