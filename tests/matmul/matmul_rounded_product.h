// C = A·B as tensor cores compute it from inputs of fewer bits: each input
// put through `round` (TF32's cut, bf16's rounding), the products exact
// (two significands of at most 11 bits fit in float's 24), the sums in FP32;
// k == skip is left out (a kernel that drops a product).
#pragma once
#include <cstdint>
#include <vector>

#include "labs/matmul/problem.h"

namespace warplab::test {

template <class Round>
std::vector<float> rounded_product(const matmul::Shape& s, const matmul::Inputs& in, Round round, std::size_t skip = SIZE_MAX)
{
    std::vector<float> c(s.m * s.n, 0.0f);
    for (std::size_t i = 0; i < s.m; ++i)
        for (std::size_t j = 0; j < s.n; ++j) {
            float acc = 0;
            for (std::size_t k = 0; k < s.k; ++k)
                if (k != skip) acc += round(in.a[i * s.k + k]) * round(in.b[k * s.n + j]);
            c[i * s.n + j] = acc;
        }
    return c;
}

}  // namespace warplab::test
