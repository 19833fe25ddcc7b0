// The transpose problem itself, independent of any kernel: the shape, a
// seeded input, the CPU reference and the check (exact: a transpose only
// moves bits).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "labs/common/index_limit.h"
#include "warplab/random.h"

namespace warplab::transpose {

// `in` is rows×cols, `out` cols×rows, both row-major floats.
struct Shape {
    std::size_t rows = 0, cols = 0;
    std::size_t elements() const { return rows * cols; }
    // Bytes a transpose must move: every element read once and written once.
    std::size_t bytes_moved() const { return 2 * elements() * sizeof(float); }
    std::string text() const { return std::to_string(rows) + "×" + std::to_string(cols); }
    bool operator==(const Shape&) const = default;
};


// Uniform in [-1, 1), seeded: the same seed gives the same matrix everywhere.
// Distinct values (with probability near 1 at these sizes), so an element in
// the wrong place shows.
inline std::vector<float> make_input(const Shape& s, std::uint64_t seed)
{
    wl::Random rng(seed * 0x9E3779B97F4A7C15ull + 7);
    std::vector<float> v(s.elements());
    for (float& x : v) x = rng.uniform_float(-1.0f, 1.0f);
    return v;
}

// out[c][r] = in[r][c], a 16x16 tile at a time, each column of the tile
// written as one run: element by element, every write of a large matrix
// misses the cache (at 4096^2 the tiles take half the time).
inline std::vector<float> reference(const Shape& s, const std::vector<float>& in)
{
    constexpr std::size_t kTile = 16;
    std::vector<float> out(s.elements());
    for (std::size_t r0 = 0; r0 < s.rows; r0 += kTile)
        for (std::size_t c0 = 0; c0 < s.cols; c0 += kTile)
            for (std::size_t c = c0; c < std::min(s.cols, c0 + kTile); ++c)
                for (std::size_t r = r0; r < std::min(s.rows, r0 + kTile); ++r) out[c * s.rows + r] = in[r * s.cols + c];
    return out;
}

// How a computed `out` compares with the reference, bit for bit (out starts
// as NaN, so an element no thread writes fails too).
struct Comparison {
    bool ok = true;
    std::size_t checked = 0, bad = 0;
    std::size_t first_bad = 0;  // flat index into `out` of the first wrong element (when bad > 0)
    float got = 0, expected = 0;
    std::string text(const Shape& s) const
    {
        if (ok) return "all " + std::to_string(checked) + " elements in place";
        const std::size_t out_row = first_bad / s.rows, out_col = first_bad % s.rows;
        return std::to_string(bad) + " of " + std::to_string(checked) + " elements wrong; first out[" + std::to_string(out_row) +
               "][" + std::to_string(out_col) + "] = " + std::to_string(got) + ", expected in[" + std::to_string(out_col) + "][" +
               std::to_string(out_row) + "] = " + std::to_string(expected);
    }
};

inline Comparison compare(const std::vector<float>& got, const std::vector<float>& expected)
{
    Comparison c;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        ++c.checked;
        if (std::memcmp(&got[i], &expected[i], sizeof(float)) == 0) continue;
        if (c.bad++ == 0) {
            c.first_bad = i;
            c.got = got[i];
            c.expected = expected[i];
        }
    }
    c.ok = c.bad == 0;
    return c;
}

}  // namespace warplab::transpose
