// The matrix-multiply problem itself, independent of any kernel: the shape,
// seeded inputs, the CPU reference and the tolerance a result must meet.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "labs/common/index_limit.h"
#include "warplab/parts.h"
#include "warplab/random.h"

namespace warplab::matmul {

// C (M×N) = A (M×K) · B (K×N), all row-major.
struct Shape {
    std::size_t m = 0, n = 0, k = 0;
    std::size_t flops() const { return 2 * m * n * k; }
    std::string text() const { return std::to_string(m) + "×" + std::to_string(n) + "×" + std::to_string(k); }
    bool operator==(const Shape&) const = default;
};

// Kernels index with 32-bit unsigned arithmetic (labs/common/index_limit.h):
// every matrix has fewer than 2^32 elements (and a grid dimension is at most
// 65535 blocks for y).
inline bool indexable_by_32_bits(const Shape& s)
{
    return warplab::indexable_by_32_bits(s.m, s.k) && warplab::indexable_by_32_bits(s.k, s.n) &&
           warplab::indexable_by_32_bits(s.m, s.n);
}

// Uniform in [-1, 1): signed, so that sums cancel as in real data and a wrong
// sign or a missing term shows. Seeded: the same seed gives the same data
// everywhere, drawn on the host's cores (wl::Random::fill_floats). A and B
// come from different streams of the same seed.
inline std::vector<float> make_matrix(std::size_t rows, std::size_t cols, std::uint64_t seed, unsigned which)
{
    wl::Random rng(seed * 0x9E3779B97F4A7C15ull + which);
    std::vector<float> v(rows * cols);
    rng.fill_floats(std::span<float>(v), -1.0f, 1.0f);
    return v;
}

struct Inputs {
    std::vector<float> a, b;
};
inline Inputs make_inputs(const Shape& s, std::uint64_t seed)
{
    return {make_matrix(s.m, s.k, seed, 0), make_matrix(s.k, s.n, seed, 1)};
}

// The exact product in double (each product of two floats is exact in double;
// the sum of K of them errs by about K·2^-53 relative, far below float's
// rounding) and, beside it, S = sum_k |a_ik|·|b_kj|, which scales the
// tolerance. rows < m computes only the first rows (a sample of C). Rows are
// shared out among the host's cores where there are enough of them; each
// element is summed over k in order whoever computes it, so the result is
// the same bits on any number of cores.
struct Reference {
    std::vector<double> c, abs;
};
// Adds the products of row i of A's elements k0 .. k0 + Ks - 1 with B's rows
// to row i of the reference, each element's in k's order: an element is read
// and written once for Ks products instead of once for each.
template <std::size_t Ks>
void add_products(const Shape& s, const std::vector<float>& a, const std::vector<float>& b, Reference& r, std::size_t i,
                  std::size_t k0)
{
    std::array<double, Ks> aik;
    std::array<const float*, Ks> brow;
    for (std::size_t t = 0; t < Ks; ++t) {
        aik[t] = a[i * s.k + k0 + t];
        brow[t] = &b[(k0 + t) * s.n];
    }
    double* crow = &r.c[i * s.n];
    double* srow = &r.abs[i * s.n];
    for (std::size_t j = 0; j < s.n; ++j) {
        double c = crow[j], abs = srow[j];
        for (std::size_t t = 0; t < Ks; ++t) {
            const double product = aik[t] * brow[t][j];  // exact: two floats' product fits a double
            c += product;
            abs += std::fabs(product);
        }
        crow[j] = c;
        srow[j] = abs;
    }
}
inline void sum_reference_rows(const Shape& s, const std::vector<float>& a, const std::vector<float>& b, Reference& r,
                               std::size_t first, std::size_t end)
{
    constexpr std::size_t kTogether = 4;  // products an element takes between its read and its write
    for (std::size_t i = first; i < end; ++i) {
        std::size_t k = 0;
        for (; k + kTogether <= s.k; k += kTogether) add_products<kTogether>(s, a, b, r, i, k);
        for (; k < s.k; ++k) add_products<1>(s, a, b, r, i, k);
    }
}
inline Reference reference(const Shape& s, const std::vector<float>& a, const std::vector<float>& b, std::size_t rows)
{
    Reference r{std::vector<double>(rows * s.n, 0.0), std::vector<double>(rows * s.n, 0.0)};
    constexpr std::size_t kMultiplyAddsAPart = std::size_t(1) << 22;  // below this a thread costs more than it saves
    const std::size_t parts = wl::parts_for(rows * s.n * s.k, kMultiplyAddsAPart), per_part = (rows + parts - 1) / parts;
    wl::run_parts(parts, [&](std::size_t p) { sum_reference_rows(s, a, b, r, std::min(rows, p * per_part), std::min(rows, (p + 1) * per_part)); });
    return r;
}

// Tolerance for one element of C computed in float, whatever the order of the
// K multiply-adds (a dot product, tiles, FMA or not):
//   |c - exact| <= gamma · S + abs_tol,  S = sum_k |a_ik b_kj|.
// Each of the K roundings (unit roundoff u = 2^-24) errs by at most u times a
// partial sum, and every partial sum is at most S: the worst case is
// gamma = K·u/(1 - K·u) (Higham, Accuracy and Stability, §3.1). Rounding
// errors of independent signs grow like sqrt(K), not K: with probability at
// least 1 - 2·exp(-lambda^2/2) the error is within lambda·sqrt(K)·u·S
// (Higham & Mary 2019, probabilistic bound); lambda = 8 makes a false alarm
// rarer than 1e-13 per element. We take the smaller of the two bounds, and
// twice it when the reference is itself a float computation (cuBLAS), since
// both results may err. abs_tol = 1e-6 covers elements whose S is zero or
// tiny (a missing product of two inputs in [-1, 1) is on average 0.25, far
// above it). Sizes: K = 4096 gives gamma = 8·64·u = 3.1e-5, about 0.03 for the
// typical S = K/4 = 1024 (inputs in [-1, 1), E|a| = 1/2); K = 33 gives the
// worst-case gamma = 33·u = 2e-6.
//
// TF32 (tensor cores, v10): the multiply reads each input with 10 of float's
// 23 mantissa bits, so a_ik and b_kj may each be off by a relative 2^-10
// (truncated; 2^-11 if rounded to nearest), and their product by
// (1 + 2^-10)^2 - 1 = 2·2^-10 + 2^-20; the products are then added in FP32 as
// above. Summed over k, the input rounding adds at most (2·2^-10 + 2^-20)·S:
// a bound that holds for any data (truncation errs the same way for inputs of
// one sign, so the errors need not cancel). It is 60x looser than FP32's
// probable bound at K = 4096 (about 2 for S = 1024: TF32 cannot tell a
// dropped product there), but still tight at small K: 2·10^-3·S, against
// which a missing product of two inputs in [-1, 1) at K = 33 (S about 8, a
// bound of 0.016) shows.
//
// BF16 (v14): A and B are rounded to bf16 before the multiply, to nearest
// (bf16 keeps 8 significant bits: unit roundoff u16 = 2^-8), so a_ik and b_kj
// are each off by at most a relative 2^-8, their product by (1 + 2^-8)^2 - 1
// = 2^-7 + 2^-16; the tensor cores then multiply the bf16 values exactly
// (two 8-bit significands make 16 bits) and add in FP32, as above. Summed
// over k, the rounding adds at most (2^-7 + 2^-16)·S, the same kind of bound
// as TF32's, 4x looser: at K = 33 (S about 8) it is 0.06, against which a
// missing product (about 0.25) still shows.
enum class Arithmetic { Fp32, Tf32, Bf16 };
struct Tolerance {
    double gamma = 0, abs_tol = 1e-6;
};
inline Tolerance tolerance(std::size_t k, bool float_reference, Arithmetic arithmetic = Arithmetic::Fp32)
{
    const double u = std::ldexp(1.0, -24), kk = static_cast<double>(k);
    const double worst = kk * u / (1 - kk * u), probable = 8.0 * std::sqrt(kk) * u;
    const double tf32_input = std::ldexp(1.0, -9) + std::ldexp(1.0, -20), bf16_input = std::ldexp(1.0, -7) + std::ldexp(1.0, -16);
    const double inputs = arithmetic == Arithmetic::Tf32 ? tf32_input : arithmetic == Arithmetic::Bf16 ? bf16_input : 0.0;
    return {std::min(worst, probable) * (float_reference ? 2.0 : 1.0) + inputs, 1e-6};
}

// How a computed C compares with the reference: any NaN or infinity fails.
struct Comparison {
    bool ok = true;
    std::size_t checked = 0, bad = 0, non_finite = 0;
    double worst_ratio = 0;     // max over elements of |c - ref| / (gamma·S + abs_tol); <= 1 passes
    std::size_t first_bad = 0;  // flat index of the first failing element (when bad > 0)
    double got = 0, expected = 0;  // at the worst element
    std::string text() const
    {
        if (ok) return "all " + std::to_string(checked) + " elements within tolerance (worst " + std::to_string(worst_ratio) + " of it)";
        return std::to_string(bad) + " of " + std::to_string(checked) + " elements wrong (" + std::to_string(non_finite) +
               " not finite), worst " + std::to_string(worst_ratio) + "x the tolerance: got " + std::to_string(got) +
               ", expected " + std::to_string(expected);
    }
};

// Compares got[i] with ref[i] for i < ref.size() (got may hold more elements).
template <class Ref>
Comparison compare(const std::vector<float>& got, const Ref& ref, const Ref& abs, const Tolerance& tol)
{
    Comparison c;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        const double g = got[i], e = ref[i];
        const double bound = tol.gamma * double(abs[i]) + tol.abs_tol;
        const double ratio = std::isfinite(g) ? std::fabs(g - e) / bound : INFINITY;
        ++c.checked;
        if (!std::isfinite(g)) ++c.non_finite;
        if (!(ratio <= 1.0)) {
            if (c.bad++ == 0) c.first_bad = i;
        }
        if (!(ratio <= c.worst_ratio)) {
            c.worst_ratio = ratio;
            c.got = g;
            c.expected = e;
        }
    }
    c.ok = c.bad == 0;
    return c;
}

// The norm-wise relative error ||got - exact|| / ||exact|| (2-norm) over the
// elements of `exact` (got may hold more): about 1e-7 for FP32 products of
// inputs in [-1, 1), about 3e-4 for TF32, about 2e-3 for BF16.
inline double relative_error(const std::vector<float>& got, const std::vector<double>& exact)
{
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < exact.size(); ++i) {
        diff += (got[i] - exact[i]) * (got[i] - exact[i]);
        norm += exact[i] * exact[i];
    }
    return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

}  // namespace warplab::matmul
