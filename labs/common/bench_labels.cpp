// How a bench table names its problem size, for the CLI's tables and the viewer's chart.
#include "labs/common/bench.h"

namespace warplab {

std::string size_text(std::size_t n)
{
    for (int k = 40; k >= 10; --k)  // 64-bit arithmetic: 2^40 does not fit a 32-bit size_t
        if (std::uint64_t(n) == (std::uint64_t(1) << k)) return "2^" + std::to_string(k);
    return std::to_string(n);
}

std::vector<std::size_t> dims_of(const BenchTable& t)
{
    if (!t.shape.empty()) return t.shape;
    if (t.rate_unit == "GFLOP/s") return {t.n, t.n, t.n};
    return {};
}

// Appended piece by piece: g++ 12 misreads `("" or sign) + std::to_string(d)`
// as an overlapping copy.
std::string joined(const std::vector<std::size_t>& dims, const char* sign)
{
    std::string text;
    for (std::size_t d : dims) {
        if (!text.empty()) text += sign;
        text += std::to_string(d);
    }
    return text;
}

std::string size_label(const BenchTable& t)
{
    const std::vector<std::size_t> dims = dims_of(t);
    if (dims.empty()) return t.type + ", n = " + size_text(t.n);
    return t.type + ", " + joined(dims, "×");
}

}  // namespace warplab
