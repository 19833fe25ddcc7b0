// Reduces n >= 1 device elements with one version, on any backend that offers
// alloc / free / zero / copy_to_host / launch / multiprocessors (the emulator,
// the GPU, the GPU trace). Multi-pass versions repeat until one value is left;
// the single-pass version launches once.
#pragma once
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "labs/reduction/versions.h"

namespace warplab::reduction {

// Calls f.template operator()<B>() for every block size the kernels are built
// for: the powers of two from 32 to 1024.
template <class F> void for_each_block_size(F&& f)
{
    [&]<unsigned... Shift>(std::integer_sequence<unsigned, Shift...>) {
        (f.template operator()<(32u << Shift)>(), ...);
    }(std::make_integer_sequence<unsigned, 6>{});
}

// Calls f.template operator()<B>() for the supported block size B == block.
template <class F> void with_block_size(unsigned block, F&& f)
{
    bool supported = false;
    for_each_block_size([&]<unsigned B>() {
        if (B != block) return;
        supported = true;
        f.template operator()<B>();
    });
    if (!supported) throw std::invalid_argument("block size " + std::to_string(block) + " is not a power of two from 32 to 1024");
}

// The device buffers one version needs for n elements, allocated once, so
// that run() can be timed alone.
template <class V, unsigned B, class T, class Backend> class Reducer {
public:
    Reducer(Backend& be, std::size_t n) : be_(be), n_(n)
    {
        const std::size_t first = V::blocks(n, B, be.multiprocessors());
        bufs_[0] = be.template alloc<T>(first);
        bufs_[1] = be.template alloc<T>(first);  // every later pass is smaller
        done_ = be.template alloc<unsigned>(1);
        be.zero(done_, 1);
    }
    ~Reducer()
    {
        be_.free(bufs_[0]);
        be_.free(bufs_[1]);
        be_.free(done_);
    }
    Reducer(const Reducer&) = delete;
    Reducer& operator=(const Reducer&) = delete;

    // Launches the passes; returns the device address of the sum.
    const T* run(const T* d_in)
    {
        if constexpr (V::single_pass) {
            launch(Pass<T>{d_in, bufs_[1], bufs_[0], done_, static_cast<unsigned>(n_)});
            return bufs_[1];
        } else {
            const T* src = d_in;
            std::size_t m = n_;
            for (int pass = 0; pass == 0 || m > 1; ++pass) {
                T* dst = bufs_[pass % 2];
                m = launch(Pass<T>{src, dst, nullptr, nullptr, static_cast<unsigned>(m)});
                src = dst;
            }
            return src;
        }
    }

    T sum(const T* d_in)
    {
        T result{};
        be_.copy_to_host(&result, run(d_in), 1);
        return result;
    }

private:
    std::size_t launch(Pass<T> p)
    {
        const std::size_t blocks = V::blocks(p.n, B, be_.multiprocessors());
        reduction::launch<V, B, T>(be_, dim3(static_cast<unsigned>(blocks)), p);
        return blocks;
    }
    Backend& be_;
    std::size_t n_;
    T* bufs_[2] = {};
    unsigned* done_ = nullptr;
};

// Calls f.template operator()<B>() for the block size B == block, where
// version V can reduce n elements with it.
template <class V, class F> void with_version_block(std::size_t n, unsigned block, F&& f)
{
    if (n == 0) throw std::invalid_argument("n must be at least 1");
    if (block < V::min_block)
        throw std::invalid_argument(std::string(V::meta.id) + " needs a block of at least " + std::to_string(V::min_block));
    with_block_size(block, [&]<unsigned B>() {
        if constexpr (B >= V::min_block) f.template operator()<B>();
    });
}

// Calls f(reducer) with a Reducer for version V at the given block size.
template <class V, class T, class Backend, class F> void with_reducer(Backend& be, std::size_t n, unsigned block, F&& f)
{
    with_version_block<V>(n, block, [&]<unsigned B>() {
        Reducer<V, B, T, Backend> reducer(be, n);
        f(reducer);
    });
}

// A Reducer of any version and block size behind one interface, for code
// that holds several at once (the bench times them in turns).
template <class T> class AnyReducer {
public:
    virtual ~AnyReducer() = default;
    virtual const T* run(const T* d_in) = 0;
    virtual T sum(const T* d_in) = 0;
};

template <class V, class T, class Backend> std::unique_ptr<AnyReducer<T>> make_reducer(Backend& be, std::size_t n, unsigned block)
{
    std::unique_ptr<AnyReducer<T>> made;
    with_version_block<V>(n, block, [&]<unsigned B>() {
        struct Held final : AnyReducer<T> {
            Held(Backend& be, std::size_t n) : reducer(be, n) {}
            const T* run(const T* d_in) override { return reducer.run(d_in); }
            T sum(const T* d_in) override { return reducer.sum(d_in); }
            Reducer<V, B, T, Backend> reducer;
        };
        made = std::make_unique<Held>(be, n);
    });
    return made;
}

template <class V, class T, class Backend> T reduce_on(Backend& be, const T* d_in, std::size_t n, unsigned block)
{
    T result{};
    with_reducer<V, T>(be, n, block, [&](auto& r) { result = r.sum(d_in); });
    return result;
}

}  // namespace warplab::reduction
