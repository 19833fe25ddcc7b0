// The instruction mix as the machine runs it: what ptxas makes of a kernel's
// PTX instructions where its choice is fixed, so that `trace --mix` reads as
// Nsight Compute counts (sass__inst_executed_per_opcode). Checked against
// ncu on an H100 for the method lab (results/mix):
// - sin.approx/cos.approx.f32: MUFU.SIN/COS takes its argument in turns, so
//   an FMUL by 1/(2π) comes first (one FP32 instruction more);
// - ex2.approx.f32 without .ftz: an FSETP and two FMULs scale a result that
//   would be subnormal around MUFU.EX2 (three FP32 instructions more);
// - div/rem.u32/s32 by a register: an integer sequence around the divisor's
//   reciprocal, one MUFU.RCP computed once per divisor and reused (one
//   special-function instruction, at the first division by that register);
// - selp.f32 is an FSEL, on the FP32 pipe (its class in ops.def);
// - neg/abs.f32 read only by FP32 arithmetic and compares become operand
//   modifiers (-x, |x|) of their readers: no instruction of their own;
// - a guarded forward branch over at most four arithmetic or move
//   instructions becomes predication: the warp issues them whenever it
//   reaches the branch, whichever lanes take it (sinf's quadrant fix-ups).
// Everything else counts one machine instruction of its PTX class. Integer
// and move counts stay PTX's: ptxas computes addresses its own way.
#pragma once
#include <cstdint>
#include <vector>

#include "module_impl.h"

namespace wl::ptx::detail {

using emu::detail::kFolded;
using emu::detail::kOwnCount;
using emu::detail::MachineCount;

// One entry per instruction of `f.code`.
std::vector<MachineCount> machine_counts(const Function& f);

}  // namespace wl::ptx::detail
