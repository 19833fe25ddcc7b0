// The decoded form of a PTX module: what the parser makes and the interpreter runs.
//
// Every function is decoded once into a flat array of Instr: an opcode, the
// types, operands resolved to register slots, immediates or symbol ids, branch
// targets as instruction indices, and the source location.
#pragma once
#include <cstdint>
#include <map>
#include <tuple>
#include <memory>
#include <string>
#include <vector>

#include "statements.h"
#include "warplab/ptx/ptx.h"
#include "../emu/runtime.h"

namespace wl::ptx::detail {

enum class Space : std::uint8_t { Generic, Global, Shared, Local, Param, Const };

// Operations and their hot forms: both from the table in ops.def.
enum class Op : std::uint16_t {
#define PTX_OP(Enum, name, exec, mix, traced) Enum,
#include "ops.def"
};

// Hot instructions specialised by type at decode time; None: the general path.
// Their operands are all register slots (constants live in slots too).
enum class Fast : std::uint8_t {
    None,
#define PTX_FAST_REGISTER(label, Enum, Op, types, statement) Enum,
#define PTX_FAST_PARAM(label, Enum, bytes, statement) Enum,
#define PTX_FAST_ACCESS(label, Enum, Op, Space, lanes, statement) Enum,
#define PTX_FAST_CONTROL(label, Enum, Op) Enum,
#include "ops.def"
};

// Sets of types, for the hot forms' rows: bit t is Ty t.
using TySet = std::uint32_t;
constexpr TySet ty_bit(Ty t) { return TySet{1} << static_cast<unsigned>(t); }
constexpr TySet kTyU32 = ty_bit(Ty::U32), kTyS32 = ty_bit(Ty::S32), kTyS64 = ty_bit(Ty::S64);
constexpr TySet kTyF32 = ty_bit(Ty::F32), kTyPred = ty_bit(Ty::Pred);
constexpr TySet kTyB32U32 = ty_bit(Ty::B32) | kTyU32, kTyB64U64 = ty_bit(Ty::B64) | ty_bit(Ty::U64);
constexpr TySet kTyInt32 = kTyB32U32 | kTyS32, kTyInt64 = kTyB64U64 | kTyS64;
constexpr TySet kTyWidth4 = kTyInt32 | kTyF32 | ty_bit(Ty::F16x2) | ty_bit(Ty::BF16x2);
constexpr TySet kTyWidth8 = kTyInt64 | ty_bit(Ty::F64);

enum class Cmp : std::uint8_t { Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan };
enum class Round : std::uint8_t { None, Rn, Rz, Rm, Rp, Rni, Rzi, Rmi, Rpi };
// Qualifier bits.
enum : std::uint16_t {
    kFtz = 1, kSat = 2, kApprox = 4, kBoolAnd = 8, kBoolOr = 16, kBoolXor = 32, kUni = 64,
    kShfLeft = 128, kShfWrap = 256, kNegPred = 512, kFull = 1024, kHi = 2048,
    kPair = 4096,  // a d|p destination pair (setp, shfl, match.all)
    kShiftAmt = 8192,  // bfind.shiftamt
    kCarryOut = 16384,  // .cc: the carry (or borrow) goes to the thread's condition code
    kUnreadable = 32768,  // Unsupported: a statement the parser could not read (texts[text] says why)
};
// Sub-operations of atom/red/vote/shfl/redux/match/bar.red/shf.
enum class Sub : std::uint8_t {
    None, Add, Min, Max, Exch, Cas, And, Or, Xor, Inc, Dec,     // atom, redux, bar.red (And/Or, Popc)
    Popc, All, Any, Uni, Ballot,                                // vote, bar.red
    Up, Down, Bfly, Idx,                                        // shfl
    MatchAny, MatchAll,
    MbInit, MbArrive, MbArriveExpectTx, MbExpectTx, MbTestWait, MbTryWait, MbInval, MbArriveDrop,  // mbarrier
    MbCpAsyncArrive, MbCpAsyncArriveNoinc,  // cp.async.mbarrier.arrive[.noinc]
    AsyncCommit, AsyncWait, AsyncWaitAll,   // cp.async.commit_group, wait_group N, wait_all
    Finite, Infinite, Number, NotANumber, Normal, Subnormal,  // testp
    Nan,   // min.NaN, max.NaN: a NaN operand gives NaN
    Relu,  // min.relu, max.relu (s32, s16x2): a negative result gives 0
    NegProduct, NegAddend,  // fma contracted from a sub (lower.cpp): its product, or its addend, negated
    WmmaRowA, WmmaColA, WmmaRowB, WmmaColB, WmmaRowC, WmmaColC,  // wmma.load's matrix and layout (wmma.store: C's)
    WmmaF16, WmmaBf16,  // wmma.mma's input type
};

enum class OpKind : std::uint8_t { None, Reg, Imm, Vec, Addr, Special, SharedSym, LocalSym, ParamSym, Sink, Label, Func, List };

enum class Special : std::uint16_t {
    TidX, TidY, TidZ, NtidX, NtidY, NtidZ, CtaidX, CtaidY, CtaidZ, NctaidX, NctaidY, NctaidZ,
    LaneId, WarpId, NWarpId, SmId, NSmId, GridId, Clock, Clock64, GlobalTimer,
    LanemaskLt, LanemaskLe, LanemaskEq, LanemaskGe, LanemaskGt, DynSmem, TotalSmem,
    // The shared memory a GPU keeps for the toolkit (cooperative groups' multi-warp tiles): its bounds and two regions.
    ReservedBegin, ReservedEnd, ReservedCap, Reserved0, Reserved1,
    WarpSize,  // WARP_SZ: the launch's warp width
    // %envreg1 and %envreg2: a cooperative launch's grid barrier workspace, its high and low 32 bits (0 in other launches).
    GridWorkspaceHigh, GridWorkspaceLow,
};
constexpr bool reserved_shared(Special s) { return s >= Special::ReservedBegin && s <= Special::Reserved1; }

constexpr std::uint32_t kNoReg = 0xFFFFFFFFu;
enum : std::uint8_t { kPlain = 0, kVolatile = 1, kStrong = 2 };  // Instr::order

// One operand. Addr: [reg + imm] where the base is a register (reg) or a
// symbol (base = SharedSym/LocalSym/ParamSym with reg = symbol id, or Imm:
// a host address). Reg with n = 1: a negated predicate (!%p). Vec: `n` register slots from Function::lists at `reg`;
// List (a call's): `n` (value, kind) pairs there, the value a register slot or a parameter's offset.
struct Operand {
    OpKind kind = OpKind::None;
    OpKind base = OpKind::None;  // Addr only
    std::uint8_t n = 0;
    std::uint32_t reg = kNoReg;
    std::int64_t imm = 0;
};

struct Instr {
    Op op = Op::Unsupported;
    Fast fast = Fast::None;
    Ty ty = Ty::None;    // the instruction's type (cvt: destination)
    Ty ty2 = Ty::None;   // cvt: source; mul.wide/mad.wide: the operands' type; set: source; ld of a signed type
                         // narrower than its 64-bit destination register: S64 (the value is sign-extended to it)
    Space space = Space::Generic;
    Cmp cmp = Cmp::Eq;
    Round round = Round::None;
    Sub sub = Sub::None;
    std::uint8_t vec = 1;     // ld/st .v2/.v4
    std::uint8_t nops = 0;
    // ld/st .volatile: a spin loop may wait on it (the emulator lets other threads run); .relaxed, .acquire,
    // .release: that too, and a strong access, which races with no atomic (volatile races as a plain access does).
    std::uint8_t order = 0;  // kPlain, kVolatile, kStrong
    bool releases = false;   // st, atom, red .release or .acq_rel: the thread's earlier accesses are ordered before it
    // ld: a plain load whose value an atom.cas of the same address takes as its expected value (an atomicCAS
    // loop's first read): a stale value only makes the CAS fail and retry, so it races with no atomic
    // (lower.cpp, mark_cas_seeds).
    bool cas_seed = false;
    std::uint16_t flags = 0;
    std::uint32_t pred = kNoReg;  // guard predicate slot
    std::uint32_t loc = 0;        // index into Module::Impl::locations
    std::uint32_t ptx_line = 0;
    std::uint32_t text = 0;       // index into Module::Impl::texts (the opcode as written)
    Operand o[6];
};

struct SourceLoc {
    std::uint32_t file = 0;  // index into Module::Impl::files (0: unknown): the innermost frame outside the toolkit
    std::uint32_t line = 0;
    std::uint32_t header_file = 0;  // the innermost frame when it lies in a toolkit header (0: it does not)
    std::uint32_t header_line = 0;
    bool in_toolkit = false;  // no frame lies outside the toolkit (a function it compiled on its own): the caller's line tells
};

struct ParamSlot {
    std::string name;
    std::uint32_t offset = 0, bytes = 0, align = 0;
};

struct SharedVar {
    std::string ptx_name;
    std::string name;      // source name
    std::uint64_t bytes = 0;
    unsigned align = 1;
    bool dynamic = false;
    emu::detail::DeclaredShape shape;  // from the source's declaration (Module::shape_shared); rank 0: unknown
};

// A constant operand turned into a register slot, filled when a frame starts:
// immediates, symbol addresses, the thread's fixed special registers.
struct ConstSlot {
    OpKind kind;       // Imm, SharedSym, LocalSym, ParamSym, Special, Func
    std::uint32_t id;  // SharedSym: variable; Func: function
    std::int64_t imm;  // Imm: the bits; *Sym: the displacement; Special: which
    bool operator<(const ConstSlot& o) const
    {
        return std::tie(kind, id, imm) < std::tie(o.kind, o.id, o.imm);
    }
};

// A function's address as a value (`mov %rd, func`, or a function named in a
// .global's initialiser, as a vtable or a table of device function pointers):
// the tag with the function's id, which an indirect call takes apart.
constexpr std::uint64_t kFunctionTag = 0xFFFF'0000'0000'0000ULL;

// A function the module declares and the interpreter provides (nvcc's printf
// and assert; the device heap's malloc and free, which new and delete call).
enum class Builtin : std::uint8_t { None, Vprintf, Assertfail, Malloc, Free };

struct Function {
    std::string name;
    Builtin builtin = Builtin::None;     // declared_only: what a call of it does
    std::vector<ConstSlot> consts;       // slots registers .. registers + consts.size()
    bool entry = false;
    bool declared_only = true;
    std::vector<Instr> code;
    std::vector<std::uint32_t> lists;    // register slots of Vec/List operands
    std::uint32_t registers = 0;         // slots (predicates included)
    std::vector<Ty> register_types;      // each register slot's declared type (.reg .s64 %rd<9>: S64)
    std::vector<ParamSlot> params, rets;
    std::uint32_t param_bytes = 0;       // the frame's param buffer: params, returns, call arguments
    std::uint32_t local_bytes = 0;       // this function's .local depot
    std::vector<std::uint32_t> shared_used;  // kernels: the shared variables it uses (statements.h's SharedUse), by id
    unsigned narrowest_shared = kNoSharedAccess;  // bytes of its narrowest explicitly shared access (statements.h)
    KernelInfo info;
};

// Calls use(reg, operand index) for each register slot an instruction's operands
// name, its destinations too.
template <class Use> void each_register(const Function& f, const Instr& in, Use use)
{
    for (unsigned i = 0; i < in.nops; ++i) {
        const Operand& o = in.o[i];
        if (o.kind == OpKind::Reg || (o.kind == OpKind::Addr && o.base == OpKind::Reg)) use(o.reg, i);
        if (o.kind == OpKind::Vec)
            for (unsigned k = 0; k < o.n; ++k) use(f.lists[o.reg + k], i);
        if (o.kind == OpKind::List)
            for (unsigned k = 0; k < o.n; ++k)
                if (static_cast<OpKind>(f.lists[o.reg + 2 * k + 1]) == OpKind::Reg) use(f.lists[o.reg + 2 * k], i);
    }
}

struct ModuleVar {  // .global / .const variables: host memory owned by the module
    std::string name;
    unsigned char* data;
    std::uint64_t bytes;
};

}  // namespace wl::ptx::detail

namespace wl::ptx {
struct Module::Impl {
    std::string text, origin;
    std::vector<detail::Function> functions;
    std::map<std::string, std::uint32_t, std::less<>> function_ids;
    std::vector<detail::SharedVar> shared;           // every .shared variable of the module
    std::vector<std::string> files{""};              // .file paths by index (0: unknown)
    std::vector<detail::SourceLoc> locations{{}};
    std::vector<std::string> texts;                  // opcodes as written, for messages
    std::vector<std::unique_ptr<std::vector<unsigned char>>> storage;  // .global/.const bytes
    std::vector<std::pair<std::uintptr_t, std::uint64_t>> var_ranges;  // their host ranges
    std::vector<detail::ModuleVar> vars;

    const detail::Function* kernel(std::string_view name) const;
};
}  // namespace wl::ptx
