// Facts some labs report about a run and others do not (matmul: the problem in
// words, the shape of the block). Read through requires-expressions, so the
// viewer builds against a registry with or without them.
#pragma once
#include <string>
#include <vector>

#include "labs/common/lab.h"

namespace warplab::viewer {

template <class Result = RunResult> std::string problem_text(const Result& r)
{
    if constexpr (requires { r.problem; })
        return r.problem;
    else
        return {};
}

// {x, y, z} of the traced block; empty when the lab does not say (1D: x = threads).
template <class Result = RunResult> std::vector<unsigned> block_shape(const Result& r)
{
    if constexpr (requires { r.block_dim; })
        return std::vector<unsigned>(r.block_dim.begin(), r.block_dim.end());
    else
        return {};
}

// The problem's dimensions where it has several (matmul: {M, N, K}); empty otherwise.
template <class Result = RunResult> std::vector<std::size_t> problem_shape(const Result& r)
{
    if constexpr (requires { r.shape; })
        return std::vector<std::size_t>(r.shape.begin(), r.shape.end());
    else
        return {};
}

}  // namespace warplab::viewer
