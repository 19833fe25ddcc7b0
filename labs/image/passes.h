// The passes of one version, on any backend with alloc / free / zero /
// copy_to_host / launch (the emulator, the GPU trace, the GPU timing build):
// the first pass leaves a grid of partial sums, one per group; the lab's
// later pass (16×16 groups) shrinks it 16 times each way until one value is
// left, unless the version's first pass sums them itself (v7).
#pragma once
#include <algorithm>
#include <vector>

#include "labs/common/lab.h"
#include "labs/image/problem.h"
#include "labs/image/versions.h"

namespace warplab::image {

// Version V at group BX×BY over a width×height picture, its buffers
// allocated once so that run() can be timed alone.
template <class V, unsigned BX, unsigned BY, class Backend> class Passes {
public:
    Passes(Backend& be, std::size_t width, std::size_t height)
        : be_(be), width_(unsigned(width)), height_(unsigned(height)), first_(V::grid(width, height, Group{BX, BY}))
    {
        bufs_[0] = be.template alloc<float>(groups() + (kSinglePass ? 2 : 0));
        bufs_[1] = be.template alloc<float>(std::max<std::size_t>(1, std::size_t(later(first_.x)) * later(first_.y)));
        if constexpr (kSinglePass) be.zero(reinterpret_cast<unsigned*>(bufs_[0] + groups() + 1), 1);  // its count of groups done
    }
    ~Passes()
    {
        be_.free(bufs_[0]);
        be_.free(bufs_[1]);
    }
    Passes(const Passes&) = delete;
    Passes& operator=(const Passes&) = delete;

    dim3 first_grid() const { return first_; }

    // Launches every pass; returns the device address of the sum. With
    // `grids`, each pass's output is copied back into it.
    const float* run(const Rgba8* d_in, std::vector<PassGrid>* grids = nullptr)
    {
        launch_pass<V, BX, BY>(be_, PixelPointer{d_in}, width_, height_, bufs_[0], first_);
        unsigned w = first_.x, h = first_.y;
        keep(grids, bufs_[0], w, h);
        if constexpr (kSinglePass) {  // its last group left the sum after the partials
            keep(grids, bufs_[0] + groups(), 1, 1);
            return bufs_[0] + groups();
        }
        int pass = 0;
        for (; w * h > 1; ++pass) {
            const dim3 grid(later(w), later(h));
            launch_pass<SumPartials, SumPartials::group.x, SumPartials::group.y>(be_, static_cast<const float*>(bufs_[pass % 2]), w, h,
                                                                               bufs_[(pass + 1) % 2], grid);
            w = grid.x, h = grid.y;
            keep(grids, bufs_[(pass + 1) % 2], w, h);
        }
        return bufs_[pass % 2];
    }

    float sum(const Rgba8* d_in, std::vector<PassGrid>* grids = nullptr)
    {
        float result = 0;
        be_.copy_to_host(&result, run(d_in, grids), 1);
        return result;
    }

private:
    // A version whose first pass also sums its partials (V::single_pass): the
    // sum follows them in its buffer, then a count of groups done.
    static constexpr bool kSinglePass = requires { V::single_pass; };
    std::size_t groups() const { return std::size_t(first_.x) * first_.y; }
    static unsigned later(unsigned n) { return ceil_div(n, SumPartials::group.x); }  // the later pass's groups are square
    void keep(std::vector<PassGrid>* grids, const float* d, unsigned w, unsigned h)
    {
        if (!grids) return;
        PassGrid g{w, h, std::vector<float>(std::size_t(w) * h)};
        be_.copy_to_host(g.values.data(), d, g.values.size());
        grids->push_back(std::move(g));
    }

    Backend& be_;
    unsigned width_, height_;
    dim3 first_;
    float* bufs_[2] = {};
};

}  // namespace warplab::image
