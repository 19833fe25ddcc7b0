// A and B rounded to bf16 on the device (nvcc only): the inputs of the BF16
// versions and of cuBLAS's BF16 GEMM. The bench makes them once per problem,
// before and outside any timing, as a BF16 application holds its matrices in
// bf16; a single run's launch of v14 makes its own (tma_launch.cu).
#pragma once
#include <cuda_bf16.h>

#include "kernels/matmul/14_bf16_wgmma.cuh"  // round_rows_to_bf16
#include "labs/matmul/problem.h"
#include "labs/matmul/versions.h"
#include "warplab/cuda/device.h"

namespace warplab::matmul {

class Bf16Inputs {
public:
    // a (M×K floats) and b (K×N floats) on the device, rounded to nearest even.
    Bf16Inputs(const float* a, const float* b, const Shape& s)
    {
        a_ = round(a, s.m, s.k);
        try {
            b_ = round(b, s.k, s.n);
        } catch (...) {
            cudaFree(a_);  // no destructor runs for a constructor that throws
            throw;
        }
    }
    ~Bf16Inputs()
    {
        cudaFree(a_);
        cudaFree(b_);
    }
    Bf16Inputs(const Bf16Inputs&) = delete;
    Bf16Inputs& operator=(const Bf16Inputs&) = delete;
    Bf16Operands operands() const
    {
        return {reinterpret_cast<const std::uint16_t*>(a_), reinterpret_cast<const std::uint16_t*>(b_)};
    }

private:
    static __nv_bfloat16* round(const float* in, std::size_t rows, std::size_t cols)
    {
        const std::size_t padded = bf16_row(cols);
        __nv_bfloat16* out = nullptr;
        wl::cuda::check(cudaMalloc(&out, rows * padded * sizeof(__nv_bfloat16)), "cudaMalloc of the bf16 inputs");
        round_rows_to_bf16<float><<<dim3(ceil_div(padded, 32), ceil_div(rows, 32)), dim3(32, 8)>>>(
            in, out, static_cast<unsigned>(rows), static_cast<unsigned>(cols), static_cast<unsigned>(padded));
        wl::cuda::check(cudaGetLastError(), "rounding the inputs to bf16");
        return out;
    }
    __nv_bfloat16* a_ = nullptr;
    __nv_bfloat16* b_ = nullptr;
};

}  // namespace warplab::matmul
