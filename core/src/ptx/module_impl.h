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

#include "warplab/ptx/ptx.h"
#include "../emu/runtime.h"

namespace wl::ptx::detail {

enum class Ty : std::uint8_t {
    None, B8, B16, B32, B64, B128, U8, U16, U32, U64, S8, S16, S32, S64, F16, F16x2, BF16, BF16x2, F32, F64, Pred
};
constexpr unsigned ty_bytes(Ty t)
{
    switch (t) {
    case Ty::B8: case Ty::U8: case Ty::S8: case Ty::Pred: return 1;
    case Ty::B16: case Ty::U16: case Ty::S16: case Ty::F16: case Ty::BF16: return 2;
    case Ty::B32: case Ty::U32: case Ty::S32: case Ty::F32: case Ty::F16x2: case Ty::BF16x2: return 4;
    case Ty::B64: case Ty::U64: case Ty::S64: case Ty::F64: return 8;
    case Ty::B128: return 16;
    case Ty::None: return 0;
    }
    return 0;
}
constexpr bool ty_signed(Ty t) { return t == Ty::S8 || t == Ty::S16 || t == Ty::S32 || t == Ty::S64; }
constexpr bool ty_float(Ty t)
{
    return t == Ty::F16 || t == Ty::F16x2 || t == Ty::BF16 || t == Ty::BF16x2 || t == Ty::F32 || t == Ty::F64;
}

enum class Space : std::uint8_t { Generic, Global, Shared, Local, Param, Const };

enum class Op : std::uint16_t {
    Mov, Ld, St, Cvta, CvtaTo, Cvt, Isspacep,
    Add, Sub, Mul, MulHi, MulWide, Mad, MadHi, MadWide, AddC, SubC, MadC, MadCHi, Mul24, Mad24, Sad, Div, Rem, Abs, Neg, Min, Max,
    Popc, Clz, Bfind, Brev, Bfe, Bfi, Fns, Prmt, And, Or, Xor, Not, Cnot, Shl, Shr, Shf, Lop3, Testp, Copysign,
    Fma, Rcp, Sqrt, Rsqrt, Sin, Cos, Lg2, Ex2, Tanh,
    Setp, Selp, Slct, Set,
    Bra, Call, Ret, Exit, Trap,
    Bar, BarRed, BarWarp, Shfl, Vote, Match, Redux, Activemask, Nop,
    Atom, Red, CpAsync, CpAsyncBulk, Mbarrier, Mma,
    Unsupported,
};

// Hot instructions specialised by type at decode time; None: the general path.
// Their operands are all register slots (constants live in slots too).
enum class Fast : std::uint8_t {
    None, Mov32, Mov64, MovPred, Add32, Add64, Sub32, Sub64, Mul32, Mul64, Mad32, Mad64, MulWideU32, MulWideS32,
    Shl32, Shl64, ShrU32, ShrS32, ShrU64, And32, Or32, Xor32, And64, RemU32, DivU32, Min32U, Max32U, Min32S, Max32S,
    Selp32, Selp64, SetpU32, SetpS32, SetpU64, SetpS64, SetpF32, AddF32, SubF32, MulF32, FmaF32, Bra,
    LdParam32, LdParam64, LdShared32, StShared32, LdGlobal32, StGlobal32, BarSync, Nop,
};

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
    MbInit, MbArrive, MbArriveExpectTx, MbExpectTx, MbTestWait, MbTryWait,  // mbarrier
    MbCpAsyncArrive, MbCpAsyncArriveNoinc,  // cp.async.mbarrier.arrive[.noinc]
};

enum class OpKind : std::uint8_t { None, Reg, Imm, Vec, Addr, Special, SharedSym, LocalSym, ParamSym, Sink, Label, Func, List };

enum class Special : std::uint16_t {
    TidX, TidY, TidZ, NtidX, NtidY, NtidZ, CtaidX, CtaidY, CtaidZ, NctaidX, NctaidY, NctaidZ,
    LaneId, WarpId, NWarpId, SmId, NSmId, GridId, Clock, Clock64, GlobalTimer,
    LanemaskLt, LanemaskLe, LanemaskEq, LanemaskGe, LanemaskGt, DynSmem, TotalSmem,
    // The shared memory a GPU keeps for the toolkit (cooperative groups' multi-warp tiles): its bounds and two regions.
    ReservedBegin, ReservedEnd, ReservedCap, Reserved0, Reserved1,
};
constexpr bool reserved_shared(Special s) { return s >= Special::ReservedBegin && s <= Special::Reserved1; }

constexpr std::uint32_t kNoReg = 0xFFFFFFFFu;
enum : std::uint8_t { kPlain = 0, kVolatile = 1, kStrong = 2 };  // Instr::order

// One operand. Addr: [reg + imm] where the base is a register (reg) or a
// symbol (base = SharedSym/LocalSym/ParamSym with reg = symbol id, or Imm:
// a host address). Reg with n = 1: a negated predicate (!%p). Vec and List: `n` register slots from Function::lists at `reg`.
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
    Ty ty2 = Ty::None;   // cvt: source; mul.wide/mad.wide: the operands' type; set: source
    Space space = Space::Generic;
    Cmp cmp = Cmp::Eq;
    Round round = Round::None;
    Sub sub = Sub::None;
    std::uint8_t vec = 1;     // ld/st .v2/.v4
    std::uint8_t nops = 0;
    // ld/st .volatile: a spin loop may wait on it (the emulator lets other threads run); .relaxed, .acquire,
    // .release: that too, and a strong access, which races with no atomic (volatile races as a plain access does).
    std::uint8_t order = 0;  // kPlain, kVolatile, kStrong
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

struct Function {
    std::string name;
    std::vector<ConstSlot> consts;       // slots registers .. registers + consts.size()
    bool entry = false;
    bool declared_only = true;
    std::vector<Instr> code;
    std::vector<std::uint32_t> lists;    // register slots of Vec/List operands
    std::uint32_t registers = 0;         // slots (predicates included)
    std::vector<ParamSlot> params, rets;
    std::uint32_t param_bytes = 0;       // the frame's param buffer: params, returns, call arguments
    std::uint32_t local_bytes = 0;       // this function's .local depot
    std::vector<std::uint32_t> shared_used;  // module shared variable ids the code names
    KernelInfo info;
};

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
