// Which class of the instruction mix (warplab/trace/mix.h) a decoded
// instruction belongs to: its operation (ops.def), refined by its type, its
// state space or .approx where the operation spans classes (add.f32 is FP32,
// add.s32 integer; ld.shared and ld.global are loads of two spaces).
#pragma once
#include "module_impl.h"
#include "warplab/trace/mix.h"

namespace wl::ptx::detail {

trace::InstructionClass instruction_class(const Instr& in);

}  // namespace wl::ptx::detail
