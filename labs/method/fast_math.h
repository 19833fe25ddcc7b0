// v10 as nvcc compiles it with -use_fast_math (nvcc only): `warplab bench
// method` times it beside v10 and v11, so that the flag's effect on the whole
// file is measured, not only the intrinsics written by hand.
#pragma once

namespace warplab::method {

using MapKernel = void (*)(const float*, float*, unsigned);

// Its row's name in the bench table, and the kernel (labs/method/fast_math.cu).
inline constexpr const char* kFastMathRow = "v10 -use_fast_math";
MapKernel sin_exp_fast_math();

}  // namespace warplab::method
