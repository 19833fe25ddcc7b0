// The method lab's __constant__ table, shared by the constant-memory pair
// (NVIDIA, "Optimizing CUDA": constant memory): the 32 coefficients of a
// polynomial, one a lane of a warp, coefficient k = (k + 1)/32, exact in float.
// Set by the table's initializer, so that every build of the kernels (the
// emulator's PTX, the GPU build) starts with it and no host copies it in; the
// CPU's check (labs/method/problem.h) reads the same values from here.
#pragma once

namespace warplab::method {

constexpr unsigned kCoefficients = 32;

struct Coefficients {
    float c[kCoefficients];
};

constexpr Coefficients coefficients()
{
    Coefficients t{};
    for (unsigned k = 0; k < kCoefficients; ++k) t.c[k] = float(k + 1) / 32;
    return t;
}

#if defined(__CUDACC__)
__constant__ Coefficients kTable = coefficients();
#endif

}  // namespace warplab::method
