// What the GPU trace records of each PTX operation: the traced column of the
// table of operations (ops.def), for the instrumenter (core/src/cuda), which
// reads PTX as statements and never decodes an instruction. The row gives
// what an operation records; the instruction's qualifiers refine it there: the
// state space (global, shared and const are traced; param and local are not),
// bar.warp.sync (__syncwarp) against bar.sync, bar.arrive (nothing waits).
#pragma once
#include <cstdint>
#include <string_view>

namespace wl::ptx::detail {

enum class TraceRecord : std::uint8_t {
    Nothing,  // no record
    Load,     // ld: the address and the value loaded
    Store,    // st: the address and the value stored
    Copy,     // cp.async.{ca,cg}.shared.global: a global load, then a shared store
    Atomic,   // atom, red: the address and the value stored
    Barrier,  // bar, barrier: a block barrier, or the warp's with .warp
    Shuffle,  // shfl.sync: the lane's input
    Vote,     // vote, match, redux (.sync): the lane's input
};

// The row of an opcode's first word ("ld" of ld.global.v4.f32), a further
// spelling's (ldu) its operation's; Nothing for a word the table lacks.
TraceRecord trace_record(std::string_view first_word);

}  // namespace wl::ptx::detail
