// A specified random generator: the same seed gives the same numbers with any
// compiler and standard library. std::mt19937_64 is specified, but the
// distributions are not (libstdc++ and libc++ draw different ints and floats
// from the same engine), so the labs' inputs, the grader's cases and the tests
// draw from this instead.
//
// The engine is SplitMix64 (Steele, Lea and Flood, "Fast splittable
// pseudorandom number generators", 2014): a 64-bit counter advanced by the
// golden-ratio increment, then mixed. Small, fast, and good enough for inputs.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "warplab/parts.h"

namespace wl {

class Random {
public:
    explicit Random(std::uint64_t seed) : state_(seed) {}

    std::uint64_t next() { return mix(state_ += kGamma); }

    // An integer in [lo, hi], each value equally likely: draws that fall in
    // the last, partial copy of the range are drawn again.
    std::int64_t uniform_int(std::int64_t lo, std::int64_t hi) { return draw(IntRange(lo, hi)); }

    // A float in [lo, hi): 24 random bits make u = k / 2^24 in [0, 1), exact
    // in float; lo + (hi - lo) * u rounds, so a result that rounds up to hi
    // is drawn again.
    float uniform_float(float lo, float hi) { return draw(FloatRange{lo, hi}); }

    // out[i] = the i-th of out.size() calls of uniform_int(Lo, Hi) (or
    // uniform_float(lo, hi)), the generator left where those calls leave it;
    // a large span is drawn on the host's cores (draw_all). Lo and Hi are
    // constants so that the remainder by the span is a multiplication.
    template <std::int64_t Lo, std::int64_t Hi, class T> void fill_ints(std::span<T> out) { draw_all(out, IntRangeOf<Lo, Hi>{}); }
    template <class T> void fill_floats(std::span<T> out, float lo, float hi) { draw_all(out, FloatRange{lo, hi}); }

private:
    static constexpr std::uint64_t kGamma = 0x9E3779B97F4A7C15ull;
    // Draws enough to share out among cores (a thread costs a fraction of drawing them).
    static constexpr std::size_t kDrawsAPart = std::size_t(1) << 18;

    static std::uint64_t mix(std::uint64_t z)
    {
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }

    // What a draw gives in a range, or nothing where it is drawn again.
    struct IntRange {
        using value_type = std::int64_t;
        constexpr IntRange(std::int64_t lo, std::int64_t hi)
            : lo(std::uint64_t(lo)), span(std::uint64_t(hi) - std::uint64_t(lo) + 1),  // span 0: the whole 64-bit range
              limit(span ? ~std::uint64_t(0) - (~std::uint64_t(0) % span + 1) % span : ~std::uint64_t(0))
        {
        }
        constexpr std::optional<std::int64_t> operator()(std::uint64_t x) const
        {
            if (x > limit) return std::nullopt;
            return static_cast<std::int64_t>(span ? lo + x % span : x);
        }
        std::uint64_t lo, span, limit;
    };
    template <std::int64_t Lo, std::int64_t Hi> struct IntRangeOf {
        using value_type = std::int64_t;
        static constexpr IntRange range{Lo, Hi};
        std::optional<std::int64_t> operator()(std::uint64_t x) const { return range(x); }
    };
    struct FloatRange {
        using value_type = float;
        std::optional<float> operator()(std::uint64_t x) const
        {
            const float u = float(x >> 40) * (1.0f / 16777216.0f);
            const float v = lo + (hi - lo) * u;
            if (v < hi) return v;
            return std::nullopt;
        }
        float lo, hi;
    };

    template <class Range> typename Range::value_type draw(const Range& range)
    {
        for (;;)
            if (const auto v = range(next())) return *v;
    }

    // SplitMix64 is a counter: the k-th draw from here needs none before it.
    // Each part of `out` takes its elements' draws, supposing no draw before
    // them was drawn again; from the first that is (a chance of 6 in 2^64 a
    // draw for ints in [0, 9]), the rest are drawn in order.
    template <class T, class Range> void draw_all(std::span<T> out, const Range& range)
    {
        const std::size_t n = out.size(), parts = parts_for(n, kDrawsAPart);
        std::vector<std::size_t> redrawn(parts, n);  // each part's first element drawn again, n where none is
        run_parts(parts, [&](std::size_t p) {
            const std::size_t first = n * p / parts, end = n * (p + 1) / parts;
            std::uint64_t state = state_ + first * kGamma;
            for (std::size_t i = first; i < end; ++i) {
                const auto v = range(mix(state += kGamma));
                if (!v) {
                    redrawn[p] = i;
                    return;
                }
                out[i] = static_cast<T>(*v);
            }
        });
        const std::size_t in_step = *std::min_element(redrawn.begin(), redrawn.end());  // elements each taking one draw
        state_ += in_step * kGamma;
        for (std::size_t i = in_step; i < n; ++i) out[i] = static_cast<T>(draw(range));
    }

    std::uint64_t state_;
};

}  // namespace wl
