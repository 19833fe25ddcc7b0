// Reduces n >= 1 device elements with one version, on any backend that offers
// alloc / free / copy_to_host / launch (the emulator, the GPU, the GPU trace).
// Passes repeat until one value is left.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

#include "labs/reduction/versions.h"

namespace warplab::reduction {

constexpr unsigned kBlockSizes[] = {32, 64, 128, 256, 512, 1024};

// Calls f.template operator()<B>() for the supported block size B == block.
template <class F> void with_block_size(unsigned block, F&& f)
{
    switch (block) {
    case 32: f.template operator()<32>(); break;
    case 64: f.template operator()<64>(); break;
    case 128: f.template operator()<128>(); break;
    case 256: f.template operator()<256>(); break;
    case 512: f.template operator()<512>(); break;
    case 1024: f.template operator()<1024>(); break;
    default: throw std::invalid_argument("block size " + std::to_string(block) + " is not a power of two from 32 to 1024");
    }
}

// Partial sums of one pass of version V over m elements of src into dst.
template <class V, unsigned B, class T, class Backend>
std::size_t reduce_pass(Backend& be, const T* src, T* dst, std::size_t m)
{
    const std::size_t blocks = V::blocks(m, B);
    V::template launch<B, T>(be, dim3(static_cast<unsigned>(blocks)), src, dst, static_cast<unsigned>(m));
    return blocks;
}

template <class V, class T, class Backend> T reduce_on(Backend& be, const T* d_in, std::size_t n, unsigned block)
{
    if (n == 0) throw std::invalid_argument("n must be at least 1");
    if (block < V::meta.min_block)
        throw std::invalid_argument(std::string(V::meta.id) + " needs a block of at least " + std::to_string(V::meta.min_block));
    T result{};
    with_block_size(block, [&]<unsigned B>() {
        const std::size_t first = V::blocks(n, B);
        T* bufs[2] = {be.template alloc<T>(first), be.template alloc<T>(first)};  // every later pass is smaller
        const T* src = d_in;
        std::size_t m = n;
        for (int pass = 0; pass == 0 || m > 1; ++pass) {
            T* dst = bufs[pass % 2];
            m = reduce_pass<V, B>(be, src, dst, m);
            src = dst;
        }
        be.copy_to_host(&result, src, 1);
        be.free(bufs[0]);
        be.free(bufs[1]);
    });
    return result;
}

}  // namespace warplab::reduction
