// CUDA's launch-shape types for code built without CUDA: the labs' version
// lists, the CLI, the viewer and the grader name grids and blocks with them.
// Under nvcc they are CUDA's own.
#pragma once

#if defined(__CUDACC__)
#include <vector_types.h>
#else
struct uint3 {
    unsigned x = 0, y = 0, z = 0;
};
struct dim3 {
    unsigned x = 1, y = 1, z = 1;
    constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
#endif
