// The instruction mix: per step, the warp instructions a block's warps issued,
// by class (FP32, FP64, integer, special function, conversion, loads and
// stores by space, branch, barrier, collective, atomic). It is what the
// bottleneck method reasons about (Filipovič, "Searching for bottlenecks"):
// how much arithmetic a kernel does beside its memory accesses.
//
// A warp instruction counts once however many of its lanes it has: the
// emulator counts, for each PTX instruction and step, the most times any lane
// of the warp reached it (SIMT's view, as events.h groups accesses), guard
// false or not, as a GPU issues a predicated-off instruction. The counts
// travel as Kind::Mix records, one per warp, step and class: thread = the
// warp's first lane, array = the class, offset = its warp instructions.
// Counts are of machine instructions where ptxas's code for a PTX instruction
// is fixed (the rules are in core/src/ptx/machine_count.h: sinf's FMUL, a
// division's reciprocal, operand modifiers, short branches predicated), so the
// FP32, FP64, special-function and memory classes read as Nsight Compute's;
// integer, move and branch counts stay PTX's (ptxas computes addresses its own
// way, turns ld.param into constant-bank operands, adds reconvergence).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace wl::trace {

// X(enumerator, word): each class once; its word is the CLI's column and the JSON's key.
// Append, never reorder: a record's array byte is the class's value.
#define WL_INSTRUCTION_CLASSES(X)                                                                          \
    X(Fp32, "fp32")               /* single-precision add, mul, fma, min/max, compare */                  \
    X(Fp64, "fp64")               /* double precision */                                                   \
    X(Fp16, "fp16")               /* half and bfloat16, paired or not */                                   \
    X(Integer, "integer")         /* integer arithmetic, logic, shifts, compares, selects */               \
    X(Special, "special")         /* special-function unit: sin, cos, lg2, ex2, rsqrt, .approx rcp/sqrt/div */ \
    X(Conversion, "conversion")   /* cvt */                                                                 \
    X(Move, "move")               /* mov */                                                                 \
    X(LoadGlobal, "ld.global")                                                                            \
    X(StoreGlobal, "st.global")                                                                           \
    X(LoadShared, "ld.shared")                                                                            \
    X(StoreShared, "st.shared")                                                                           \
    X(LoadLocal, "ld.local")                                                                              \
    X(StoreLocal, "st.local")                                                                             \
    X(LoadConstant, "ld.const")                                                                           \
    X(LoadParam, "ld.param")      /* a kernel parameter: a constant-bank operand in machine code */       \
    X(LoadGeneric, "ld.generic")  /* through a generic address */                                          \
    X(StoreGeneric, "st.generic")                                                                         \
    X(AsyncCopy, "cp.async")      /* asynchronous copies, global to shared */                              \
    X(Atomic, "atomic")           /* atom, red */                                                           \
    X(Branch, "branch")           /* bra, call, ret, exit, trap */                                          \
    X(Barrier, "barrier")         /* __syncthreads, __syncwarp, fences, mbarriers */                        \
    X(Collective, "collective")   /* shuffle, vote, match, reduce, activemask, mma */                       \
    X(Other, "other")             /* hints (nop, prefetch), what the interpreter cannot run */              \
    X(LoadTexture, "tex")         /* texture fetches (tex1Dfetch, tex2D) */

#define WL_INSTRUCTION_CLASS_ENUMERATOR(id, word) id,
enum class InstructionClass : std::uint8_t { WL_INSTRUCTION_CLASSES(WL_INSTRUCTION_CLASS_ENUMERATOR) };
#undef WL_INSTRUCTION_CLASS_ENUMERATOR

#define WL_INSTRUCTION_CLASS_WORD(id, word) word,
inline constexpr const char* kInstructionClassWords[] = {WL_INSTRUCTION_CLASSES(WL_INSTRUCTION_CLASS_WORD)};
#undef WL_INSTRUCTION_CLASS_WORD
inline constexpr std::size_t kInstructionClasses = std::size(kInstructionClassWords);

constexpr const char* class_word(InstructionClass c)
{
    const auto i = static_cast<std::size_t>(c);
    return i < kInstructionClasses ? kInstructionClassWords[i] : "unknown";
}
constexpr std::optional<InstructionClass> find_class(std::string_view word)
{
    for (std::size_t i = 0; i < kInstructionClasses; ++i)
        if (word == kInstructionClassWords[i]) return static_cast<InstructionClass>(i);
    return std::nullopt;
}

// Warp instructions by class.
using ClassCounts = std::array<std::uint64_t, kInstructionClasses>;

// One warp's instructions of one class in one step (a Kind::Mix record, grouped).
struct MixCount {
    std::uint32_t step = 0;  // index into BlockTrace::steps
    std::uint32_t warp = 0;
    InstructionClass cls = InstructionClass::Other;
    std::uint64_t count = 0;
    bool operator==(const MixCount&) const = default;
};

struct BlockTrace;

// The block's warp instructions by class in each step: one entry a step of
// block.steps (one, when the block has counts but no step: a kernel that
// made no access).
std::vector<ClassCounts> mix_by_step(const BlockTrace& block);
// The whole block's, all steps.
ClassCounts mix_total(const BlockTrace& block);
// Did the backend count the block's instructions at all?
inline bool has_mix(const std::vector<MixCount>& mix) { return !mix.empty(); }
std::uint64_t instructions(const ClassCounts& counts);

}  // namespace wl::trace
