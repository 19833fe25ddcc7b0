// Arithmetic: integer and float operations with their qualifiers (.sat,
// .ftz, .cc carries, rounding modes), conversions, comparisons, selections,
// moves and the address-window conversions, on the general path. The hot
// forms of the common ones are rows of ops.def.
// About 700 lines: it is one family, and integer_op's switch over
// every integer operation (180 lines) is nearly a third of it.
#include <algorithm>
#include <climits>
#include <cstdlib>

#include "../emu/bit_count.h"
#include "interp.h"
#include "rounding.h"

namespace wl::ptx::detail {

bool Interpreter::compare(const Instr& in, std::uint64_t a, std::uint64_t b) const
{
    const Ty t = in.op == Op::Slct ? in.ty2 : (in.op == Op::Set ? in.ty2 : in.ty);
    if (ty_float(t)) {
        double x, y;
        if (t == Ty::F32) { x = f32(a); y = f32(b); }
        else if (t == Ty::F64) { x = f64(a); y = f64(b); }
        else if (t == Ty::F16) { x = half_to_float(static_cast<std::uint16_t>(a)); y = half_to_float(static_cast<std::uint16_t>(b)); }
        else if (t == Ty::BF16) { x = bf16_to_float(static_cast<std::uint16_t>(a)); y = bf16_to_float(static_cast<std::uint16_t>(b)); }
        else unsupported(in);
        const bool nan = std::isnan(x) || std::isnan(y);
        switch (in.cmp) {
        case Cmp::Eq: return !nan && x == y;
        case Cmp::Ne: return !nan && x != y;
        case Cmp::Lt: return !nan && x < y;
        case Cmp::Le: return !nan && x <= y;
        case Cmp::Gt: return !nan && x > y;
        case Cmp::Ge: return !nan && x >= y;
        case Cmp::Equ: return nan || x == y;
        case Cmp::Neu: return nan || x != y;
        case Cmp::Ltu: return nan || x < y;
        case Cmp::Leu: return nan || x <= y;
        case Cmp::Gtu: return nan || x > y;
        case Cmp::Geu: return nan || x >= y;
        case Cmp::Num: return !nan;
        case Cmp::Nan: return nan;
        default: unsupported(in);
        }
    }
    if (ty_signed(t)) {
        const std::int64_t x = sext(t, a), y = sext(t, b);
        switch (in.cmp) {
        case Cmp::Eq: return x == y;
        case Cmp::Ne: return x != y;
        case Cmp::Lt: return x < y;
        case Cmp::Le: return x <= y;
        case Cmp::Gt: return x > y;
        case Cmp::Ge: return x >= y;
        default: break;
        }
    }
    const std::uint64_t x = mask_to(t, a), y = mask_to(t, b);
    switch (in.cmp) {
    case Cmp::Eq: return x == y;
    case Cmp::Ne: return x != y;
    case Cmp::Lt: case Cmp::Lo: return x < y;
    case Cmp::Le: case Cmp::Ls: return x <= y;
    case Cmp::Gt: case Cmp::Hi: return x > y;
    case Cmp::Ge: case Cmp::Hs: return x >= y;
    default: unsupported(in);
    }
}

void Interpreter::setp(const Frame& fr, const Instr& in)
{
    const bool pair = in.flags & kPair;
    const unsigned a = pair ? 2 : 1;
    bool r = compare(in, get(fr, in.o[a]), get(fr, in.o[a + 1]));
    bool q = !r;
    if (in.flags & (kBoolAnd | kBoolOr | kBoolXor)) {
        const bool c = get(fr, in.o[a + 2]) & 1;
        if (in.flags & kBoolAnd) { r = r && c; q = q && c; }
        else if (in.flags & kBoolOr) { r = r || c; q = q || c; }
        else { r = r != c; q = q != c; }
    }
    put_pred(fr, in.o[0], r);
    if (pair) put_pred(fr, in.o[1], q);
}

// The high 64 bits of a 128-bit product, from 32-bit halves (no __int128: 32-bit
// hosts and some compilers lack it).
static std::uint64_t umulhi(std::uint64_t a, std::uint64_t b)
{
    const std::uint64_t a0 = a & 0xFFFFFFFF, a1 = a >> 32, b0 = b & 0xFFFFFFFF, b1 = b >> 32;
    const std::uint64_t p01 = a0 * b1, p10 = a1 * b0;
    const std::uint64_t middle = ((a0 * b0) >> 32) + (p01 & 0xFFFFFFFF) + (p10 & 0xFFFFFFFF);
    return a1 * b1 + (p01 >> 32) + (p10 >> 32) + (middle >> 32);
}
// Signed: a negative operand x reads as x + 2^64 unsigned, which adds the other
// operand times 2^64 to the product: subtract it back from the high word.
static std::int64_t smulhi(std::int64_t a, std::int64_t b)
{
    const auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
    return static_cast<std::int64_t>(umulhi(ua, ub) - (a < 0 ? ub : 0) - (b < 0 ? ua : 0));
}

// Lane `index` of `bits` bits of a word, sign-extended for a signed type.
static std::int64_t lane_of(std::uint64_t word, unsigned bits, unsigned index, bool is_signed)
{
    const auto v = static_cast<std::int64_t>((word >> (bits * index)) & ((std::uint64_t(1) << bits) - 1));
    return is_signed && (v >> (bits - 1)) ? v - (std::int64_t(1) << bits) : v;
}

// dp4a: c plus the products of a's and b's bytes; dp2a: c plus the products of
// a's two 16-bit halves with b's bytes 0 and 1 (.lo) or 2 and 3 (.hi). Each
// lane signed or not by its operand's type; the sum wraps at 32 bits.
static std::uint64_t dot_product(const Instr& in, std::uint64_t a, std::uint64_t b, std::uint64_t c)
{
    const bool four = in.op == Op::Dp4a;
    const unsigned first = !four && (in.flags & kHi) ? 2 : 0;
    std::uint64_t sum = c;
    for (unsigned k = 0; k < (four ? 4u : 2u); ++k)
        sum += static_cast<std::uint64_t>(lane_of(a, four ? 8 : 16, k, ty_signed(in.ty)) * lane_of(b, 8, first + k, ty_signed(in.ty2)));
    return sum;
}

// vabsdiff4: |a - b| of each pair of bytes, as d's bytes (.sat: at most d's
// type's largest byte), or with .add summed into c (.sat: clamped to d's
// type). The byte mask and selectors, which nvcc does not write, are not read.
static std::uint64_t byte_differences(const Instr& in, std::uint64_t a, std::uint64_t b, std::uint64_t c)
{
    const bool s = ty_signed(in.ty), sat = in.flags & kSat, signed_result = ty_signed(in.ty2);
    std::int64_t sum = signed_result ? static_cast<std::int32_t>(c) : static_cast<std::int64_t>(c & 0xFFFF'FFFF);
    std::uint64_t bytes = 0;
    for (unsigned k = 0; k < 4; ++k) {
        const std::int64_t d = std::abs(lane_of(a, 8, k, s) - lane_of(b, 8, k, s));  // 0 to 255
        sum += d;
        bytes |= static_cast<std::uint64_t>(sat ? std::min<std::int64_t>(d, signed_result ? 127 : 255) : d & 0xFF) << (8 * k);
    }
    if (in.sub != Sub::Add) return bytes;
    if (sat) sum = signed_result ? std::clamp<std::int64_t>(sum, INT32_MIN, INT32_MAX) : std::clamp<std::int64_t>(sum, 0, UINT32_MAX);
    return static_cast<std::uint64_t>(sum);
}

// add, min and max on each 16-bit lane of u16x2 and s16x2 (add wraps in its
// lane); .relu takes a negative lane to 0.
static std::uint64_t halves_op(const Instr& in, std::uint64_t a, std::uint64_t b)
{
    const bool s = in.ty == Ty::S16x2;
    std::uint64_t out = 0;
    for (unsigned k = 0; k < 2; ++k) {
        const std::int64_t x = lane_of(a, 16, k, s), y = lane_of(b, 16, k, s);
        std::int64_t v = in.op == Op::Add ? x + y : in.op == Op::Min ? std::min(x, y) : std::max(x, y);
        if (in.sub == Sub::Relu) v = std::max<std::int64_t>(v, 0);
        out |= (static_cast<std::uint64_t>(v) & 0xFFFF) << (16 * k);
    }
    return out;
}

void Interpreter::integer_op(const Frame& fr, const Instr& in)
{
    const Ty t = in.ty;
    const unsigned w = ty_bytes(t) * 8;
    const bool s = ty_signed(t);
    const std::uint64_t a = get(fr, in.o[1]);
    const std::uint64_t b = in.nops > 2 ? get(fr, in.o[2]) : 0;
    const std::uint64_t c = in.nops > 3 ? get(fr, in.o[3]) : 0;
    const std::int64_t sa = sext(t, a), sb = sext(t, b);
    const std::uint64_t ua = mask_to(t, a), ub = mask_to(t, b);
    std::uint64_t r = 0;
    auto saturate = [&](std::int64_t v) -> std::uint64_t {  // .sat: s32 only
        if (!(in.flags & kSat)) return static_cast<std::uint64_t>(v);
        return static_cast<std::uint64_t>(std::clamp<std::int64_t>(v, INT32_MIN, INT32_MAX));
    };
    const std::uint64_t top = w == 64 ? ~0ULL : (1ULL << w) - 1;
    // a + b + carry_in over w bits, with the carry out when .cc asks for it
    auto add_carry = [&](std::uint64_t x, std::uint64_t y, bool carry_in) {
        x &= top;
        y &= top;
        const std::uint64_t sum = x + y + carry_in;  // below 2^(w+1) where w < 64
        if (in.flags & kCarryOut) t_->carry = w == 64 ? sum < x || (carry_in && sum == x) : (sum >> w) != 0;
        return sum;
    };
    auto product = [&](bool high) -> std::uint64_t {
        if (!high) return a * b;
        if (w == 64) return s ? static_cast<std::uint64_t>(smulhi(sa, sb)) : umulhi(ua, ub);
        return s ? static_cast<std::uint64_t>((sa * sb) >> w) : (ua * ub) >> w;
    };
    if (in.flags & kCarryOut || in.op == Op::AddC || in.op == Op::SubC || in.op == Op::MadC || in.op == Op::MadCHi) {
        const bool carry_in = (in.op == Op::AddC || in.op == Op::SubC || in.op == Op::MadC || in.op == Op::MadCHi) && t_->carry;
        switch (in.op) {
        case Op::Add: case Op::AddC: r = add_carry(a, b, carry_in); break;
        case Op::Sub: case Op::SubC: {  // a - (b + borrow): the borrow is the carry of a + ~b + 1, inverted
            const std::uint64_t diff = add_carry(a, ~b, !carry_in);
            if (in.flags & kCarryOut) t_->carry = !t_->carry;
            r = diff;
            break;
        }
        case Op::Mad: case Op::MadC: r = add_carry(product(false), c, carry_in); break;
        case Op::MadHi: case Op::MadCHi: r = add_carry(product(true), c, carry_in); break;
        default: unsupported(in);
        }
        put(fr, in.o[0], t, r);
        return;
    }
    if (t == Ty::U16x2 || t == Ty::S16x2) {
        if (in.op != Op::Add && in.op != Op::Min && in.op != Op::Max) unsupported(in);
        put(fr, in.o[0], Ty::B32, halves_op(in, a, b));
        return;
    }
    switch (in.op) {
    case Op::Dp4a: case Op::Dp2a: r = dot_product(in, a, b, c); break;
    case Op::Vabsdiff4: r = byte_differences(in, a, b, c); break;
    case Op::Add: r = s && (in.flags & kSat) ? saturate(sa + sb) : a + b; break;
    case Op::Sub: r = s && (in.flags & kSat) ? saturate(sa - sb) : a - b; break;
    case Op::Mul: r = a * b; break;
    case Op::Mad: r = s && (in.flags & kSat) ? saturate(sa * sb + sext(t, c)) : a * b + c; break;
    case Op::MulHi:
        if (w == 64) r = s ? static_cast<std::uint64_t>(smulhi(sa, sb)) : umulhi(ua, ub);
        else r = s ? static_cast<std::uint64_t>((sa * sb) >> w) : (ua * ub) >> w;
        break;
    case Op::MadHi:
        if (w == 64) r = (s ? static_cast<std::uint64_t>(smulhi(sa, sb)) : umulhi(ua, ub)) + c;
        else r = (s ? static_cast<std::uint64_t>((sa * sb) >> w) : (ua * ub) >> w) + c;
        break;
    case Op::MulWide: r = s ? static_cast<std::uint64_t>(sa * sb) : ua * ub; put(fr, in.o[0], w == 16 ? Ty::B32 : Ty::B64, r); return;
    case Op::MadWide: r = (s ? static_cast<std::uint64_t>(sa * sb) : ua * ub) + c; put(fr, in.o[0], w == 16 ? Ty::B32 : Ty::B64, r); return;
    case Op::Mul24: case Op::Mad24: {
        const std::int64_t x = s ? (sa << 40) >> 40 : static_cast<std::int64_t>(ua & 0xFFFFFF);
        const std::int64_t y = s ? (sb << 40) >> 40 : static_cast<std::int64_t>(ub & 0xFFFFFF);
        const std::int64_t p = x * y;
        r = static_cast<std::uint64_t>((in.flags & kHi) ? p >> 16 : p);
        if (in.op == Op::Mad24) r += c;
        break;
    }
    case Op::Sad: r = (s ? static_cast<std::uint64_t>(sa > sb ? sa - sb : sb - sa) : (ua > ub ? ua - ub : ub - ua)) + c; break;
    case Op::Div:
        if (ub == 0) r = s ? (sa < 0 ? 1 : ~0ULL) : ~0ULL;  // what the hardware gives: no trap
        else if (s && sb == -1) r = static_cast<std::uint64_t>(-sa);
        else r = s ? static_cast<std::uint64_t>(sa / sb) : ua / ub;
        break;
    case Op::Rem:
        if (ub == 0) r = a;
        else if (s && sb == -1) r = 0;
        else r = s ? static_cast<std::uint64_t>(sa % sb) : ua % ub;
        break;
    case Op::Abs: r = static_cast<std::uint64_t>(sa < 0 ? -sa : sa); break;
    case Op::Neg: r = static_cast<std::uint64_t>(-sa); break;
    case Op::Min: case Op::Max: {  // .relu (s32): a negative result gives 0
        const std::int64_t m = in.op == Op::Min ? std::min(sa, sb) : std::max(sa, sb);
        r = s ? static_cast<std::uint64_t>(in.sub == Sub::Relu ? std::max<std::int64_t>(m, 0) : m)
              : in.op == Op::Min ? std::min(ua, ub) : std::max(ua, ub);
        break;
    }
    case Op::Popc: r = emu::detail::bit_count(ua); put(fr, in.o[0], Ty::U32, r); return;
    case Op::Clz: r = static_cast<std::uint64_t>(std::countl_zero(ua) - (64 - w)); put(fr, in.o[0], Ty::U32, r); return;
    case Op::Bfind: {
        std::uint64_t x = s && sa < 0 ? ~ua & (w == 64 ? ~0ULL : (1ULL << w) - 1) : ua;
        if (x == 0) r = 0xFFFFFFFF;
        else {
            r = 63 - std::countl_zero(x);
            if (in.flags & kShiftAmt) r = w - 1 - r;
        }
        put(fr, in.o[0], Ty::U32, r);
        return;
    }
    case Op::Brev: {
        std::uint64_t x = ua, y = 0;
        for (unsigned k = 0; k < w; ++k, x >>= 1) y = (y << 1) | (x & 1);
        r = y;
        break;
    }
    case Op::Bfe: {
        const unsigned pos = static_cast<unsigned>(b & 0xFF), len = static_cast<unsigned>(c & 0xFF);
        std::uint64_t field = 0;
        for (unsigned k = 0; k < len; ++k) {
            const unsigned bit = std::min(pos + k, w - 1);
            field |= ((ua >> bit) & 1) << k;
        }
        bool sign = false;
        if (s && len > 0) sign = pos + len - 1 >= w ? (ua >> (w - 1)) & 1 : (ua >> (pos + len - 1)) & 1;
        if (s && len == 0) sign = false;
        if (sign && len < 64) field |= ~0ULL << len;
        r = field;
        break;
    }
    case Op::Bfi: {  // bfi d, a (insert), b (base), pos, len
        const std::uint64_t d4 = in.nops > 4 ? get(fr, in.o[4]) : 0;
        const unsigned pos = static_cast<unsigned>(c & 0xFF), len = static_cast<unsigned>(d4 & 0xFF);
        r = ub;
        for (unsigned k = 0; k < len && pos + k < w; ++k) r = (r & ~(1ULL << (pos + k))) | (((ua >> k) & 1) << (pos + k));
        break;
    }
    case Op::Bmsk: {  // bmsk.{clamp,wrap}.b32 d, a, b: b ones from bit a (the PTX ISA's semantics)
        const std::uint32_t pos = static_cast<std::uint32_t>(a), width = static_cast<std::uint32_t>(b);
        const unsigned a1 = pos & 31, b1 = width & 31, sum = a1 + b1;
        const bool clamp = !(in.flags & kShfWrap);
        const std::uint32_t mask0 = clamp && pos >= 32 ? 0 : ~0u << a1;
        // .clamp: a width of 32 or more runs to bit 31; .wrap: the width is b mod 32, and 0 gives no bits
        const std::uint32_t mask1 = sum >= 32 || (clamp && (pos >= 32 || width >= 32)) ? 0 : b1 == 0 ? ~0u : ~0u << sum;
        r = mask0 & ~mask1;
        break;
    }
    case Op::And: r = a & b; if (t == Ty::Pred) { put_pred(fr, in.o[0], r & 1); return; } break;
    case Op::Or: r = a | b; if (t == Ty::Pred) { put_pred(fr, in.o[0], r & 1); return; } break;
    case Op::Xor: r = a ^ b; if (t == Ty::Pred) { put_pred(fr, in.o[0], r & 1); return; } break;
    case Op::Not: if (t == Ty::Pred) { put_pred(fr, in.o[0], !(a & 1)); return; } r = ~a; break;
    case Op::Cnot: r = ua == 0; break;
    case Op::Shl: r = (b & 0xFFFFFFFF) >= w ? 0 : ua << b; break;
    case Op::Shr:
        if ((b & 0xFFFFFFFF) >= w) r = s && sa < 0 ? ~0ULL : 0;
        else r = s ? static_cast<std::uint64_t>(sa >> b) : ua >> b;
        break;
    case Op::Shf: {  // shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: funnel a (low) b (high) by c
        unsigned n = static_cast<unsigned>(c);
        n = (in.flags & kShfWrap) ? n & 31 : std::min(n, 32u);
        const std::uint64_t v = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(b)) << 32) | static_cast<std::uint32_t>(a);
        r = (in.flags & kShfLeft) ? (v << n) >> 32 : v >> n;
        break;
    }
    case Op::Lop3: {  // lop3.b32 d, a, b, c, immLut
        const std::uint64_t lut = get(fr, in.o[4]);
        r = 0;
        for (unsigned k = 0; k < 32; ++k) {
            const unsigned idx = (((a >> k) & 1) << 2) | (((b >> k) & 1) << 1) | ((c >> k) & 1);
            r |= ((lut >> idx) & 1) << k;
        }
        break;
    }
    case Op::Prmt: {  // default mode: byte selectors in c
        const std::uint64_t bytes = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(b)) << 32) | static_cast<std::uint32_t>(a);
        r = 0;
        for (unsigned k = 0; k < 4; ++k) {
            const unsigned sel = (c >> (4 * k)) & 0xF;
            std::uint64_t byte = (bytes >> (8 * (sel & 7))) & 0xFF;
            if (sel & 8) byte = (byte & 0x80) ? 0xFF : 0;
            r |= byte << (8 * k);
        }
        break;
    }
    case Op::Fns: {  // fns.b32 d, mask, base, offset: the n-th set bit
        const std::uint32_t mask = static_cast<std::uint32_t>(a);
        const unsigned base = static_cast<unsigned>(b);
        const int off = static_cast<int>(c);
        r = 0xFFFFFFFF;
        int count = 0;
        if (off > 0) {
            for (unsigned k = base; k < 32; ++k)
                if ((mask >> k) & 1 && ++count == off) { r = k; break; }
        } else if (off < 0) {
            for (int k = static_cast<int>(base); k >= 0; --k)
                if ((mask >> k) & 1 && --count == off) { r = static_cast<unsigned>(k); break; }
        } else if (base < 32 && ((mask >> base) & 1)) {
            r = base;
        }
        break;
    }
    default: unsupported(in);
    }
    put(fr, in.o[0], t, r);
}

// min and max as the GPU orders them: -0 below +0, a NaN operand ignored
// (both NaN: a NaN, which the result's rule makes canonical for f32, and
// f64_result makes an operand's for f64); min.NaN and max.NaN give a NaN
// where either operand is one.
template <class F> static F min_max(Op op, F a, F b, const Instr& in)
{
    if (a != a || b != b) return in.sub == Sub::Nan || (a != a && b != b) ? std::numeric_limits<F>::quiet_NaN() : (a != a ? b : a);
    if (a == b) return std::signbit(a) == (op == Op::Min) ? a : b;  // equal: only zeros' signs differ
    return (a < b) == (op == Op::Min) ? a : b;
}

template <class F> static F apply_float(Op op, F a, F b, F c, const Instr& in, bool& ok)
{
    ok = true;
    switch (op) {
    case Op::Add: return a + b;
    case Op::Sub: return a - b;
    case Op::Mul: return a * b;
    case Op::Fma: case Op::Mad: return fused(a, b, c);
    case Op::Div: return a / b;
    case Op::Abs: return std::fabs(a);
    case Op::Neg: return -a;
    case Op::Min: case Op::Max: return min_max(op, a, b, in);
    case Op::Rcp: return F(1) / a;
    case Op::Sqrt: return std::sqrt(a);
    case Op::Rsqrt: return F(1) / std::sqrt(a);
    case Op::Sin: return std::sin(a);
    case Op::Cos: return std::cos(a);
    case Op::Lg2: return std::log2(a);
    case Op::Ex2: return std::exp2(a);
    case Op::Tanh: return std::tanh(a);
    case Op::Copysign: return std::copysign(b, a);  // copysign d, a, b: b's magnitude, a's sign
    default: ok = false; return F(0);
    }
}

// The operations with a rounding mode (.rn, .rz, .rm, .rp), in double, rounded
// to nearest with the sign of the residual (rounding.h); ok = false for others.
static Nearest nearest_of(Op op, double a, double b, double c, Round r, bool& ok)
{
    ok = true;
    switch (op) {
    case Op::Add: return add_nearest(a, b, r);
    case Op::Sub: return add_nearest(a, -b, r);
    case Op::Mul: return mul_nearest(a, b);
    case Op::Fma: case Op::Mad: return fma_nearest(a, b, c, r);
    case Op::Div: return div_nearest(a, b);
    case Op::Rcp: return div_nearest(1.0, a);
    case Op::Sqrt: return sqrt_nearest(a);
    default: ok = false; return {0, 0};
    }
}

// The NaN a double operation keeps where an operand is one (values.h), else
// the result computed; ops without NaN operands give theirs as computed.
// min and max keep a NaN only where both operands are one: PTX's double
// instructions carry NaN payloads, so it is an operand's, not a canonical
// NaN (which of the two, PTX leaves open: a's here).
static std::uint64_t f64_result(Op op, std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t computed)
{
    std::uint64_t nan = 0;
    switch (op) {
    case Op::Min: case Op::Max:
        if (std::isnan(f64(a)) && std::isnan(f64(b))) nan = f64_nan_kept({a, b});
        break;
    case Op::Add: case Op::Sub: case Op::Div: nan = f64_nan_kept({a, b}); break;
    case Op::Mul: nan = f64_nan_kept({b, a}); break;
    case Op::Fma: case Op::Mad: nan = f64_nan_kept({b, a, c}); break;
    case Op::Rcp: case Op::Sqrt: nan = f64_nan_kept({a}); break;
    default: break;
    }
    return nan != 0 ? nan : computed;
}

// .sat: NaN to 0, else clamped to [0, 1]; a clamped value is exact.
static Nearest saturate(Nearest n)
{
    if (!(n.value > 0) || n.value >= 1) return {saturated(n.value), 0};
    return n;
}

// .rz, .rm, .rp (in software, rounding.h): the operation rounded once, in the mode.
void Interpreter::float_op_directed(const Frame& fr, const Instr& in)
{
    const std::uint64_t a = get(fr, in.o[1]);
    const std::uint64_t b = in.nops > 2 ? get(fr, in.o[2]) : 0;
    const std::uint64_t c = in.nops > 3 ? get(fr, in.o[3]) : 0;
    const bool flush = in.flags & kFtz, sat = in.flags & kSat;
    bool ok = true;
    switch (in.ty) {
    case Ty::F32: {  // floats in double: products exact, residuals exact
        auto arg = [&](std::uint64_t v) { return static_cast<double>(flush ? ftz(f32(v)) : f32(v)); };
        Nearest n = nearest_of(in.op, arg(a), arg(b), arg(c), in.round, ok);
        if (!ok) unsupported(in);
        if (sat) n = saturate(n);
        float r = float_directed(n, in.round);
        if (flush) r = ftz(r);
        put(fr, in.o[0], Ty::B32, f32_result(r));
        return;
    }
    case Ty::F64: {
        Nearest n = nearest_of(in.op, f64(a), f64(b), f64(c), in.round, ok);
        if (!ok) unsupported(in);
        if (sat) n = saturate(n);
        put(fr, in.o[0], Ty::B64, f64_result(in.op, a, b, c, bits(step_directed(n.value, n.residual, in.round))));
        return;
    }
    case Ty::F16: case Ty::BF16: {
        const bool bf = in.ty == Ty::BF16;
        auto arg = [&](std::uint64_t v) {
            const auto u = static_cast<std::uint16_t>(v);
            return static_cast<double>(bf ? bf16_to_float(u) : half_to_float(u));
        };
        Nearest n = nearest_of(in.op, arg(a), arg(b), arg(c), in.round, ok);
        if (!ok) unsupported(in);
        if (sat) n = saturate(n);
        put(fr, in.o[0], Ty::B16, bf ? bf16_directed(n, in.round) : half_directed(n, in.round));
        return;
    }
    default: unsupported(in);
    }
}

// A bf16 operation in double with what rounding to double dropped: a sum or
// fma of bf16 values far apart in magnitude is not exact in double (bf16 has
// float's exponents). The others (min, max, neg, abs) are exact: r as it is.
static Nearest bf16_operation(const Instr& in, double a, double b, double c, double r)
{
    bool rounded = true;
    const Nearest n = nearest_of(in.op, a, b, c, Round::Rn, rounded);
    if (!rounded) return {r, 0};
    return (in.flags & kSat) ? saturate(n) : n;
}

// An fma contracted from a sub (lower.cpp's contract_products): its product's
// first factor or its addend with the sign flipped, as the sub had it.
static std::uint64_t negated_if(const Instr& in, Sub which, std::uint64_t v)
{
    if (in.sub != which) return v;
    return v ^ (in.ty == Ty::F64 ? std::uint64_t(1) << 63 : std::uint64_t(1) << 31);
}

void Interpreter::float_op(const Frame& fr, const Instr& in)
{
    if (directed(in.round)) return float_op_directed(fr, in);
    const std::uint64_t a = negated_if(in, Sub::NegProduct, get(fr, in.o[1]));
    const std::uint64_t b = in.nops > 2 ? get(fr, in.o[2]) : 0;
    const std::uint64_t c = in.nops > 3 ? negated_if(in, Sub::NegAddend, get(fr, in.o[3])) : 0;
    bool ok = true;
    switch (in.ty) {
    case Ty::F32: {
        float x = f32(a), y = f32(b), z = f32(c);
        const bool flush = in.flags & kFtz;
        if (flush) { x = ftz(x); y = ftz(y); z = ftz(z); }
        float r = apply_float<float>(in.op, x, y, z, in, ok);
        if (!ok) unsupported(in);
        if (flush) r = ftz(r);
        if (in.flags & kSat) r = static_cast<float>(saturated(r));
        put(fr, in.o[0], Ty::B32, in.op == Op::Copysign ? bits(r) : f32_result(r));  // copysign moves a sign bit
        return;
    }
    case Ty::F64: {
        if ((in.op == Op::Abs || in.op == Op::Neg) && std::isnan(f64(a))) {  // the NaN passes as it is, sign and all
            put(fr, in.o[0], Ty::B64, a);
            return;
        }
        double r = apply_float<double>(in.op, f64(a), f64(b), f64(c), in, ok);
        if (!ok) unsupported(in);
        put(fr, in.o[0], Ty::B64, f64_result(in.op, a, b, c, bits(r)));
        return;
    }
    case Ty::F16: case Ty::BF16: case Ty::F16x2: case Ty::BF16x2: {
        const bool bf = in.ty == Ty::BF16 || in.ty == Ty::BF16x2;
        const unsigned lanes = (in.ty == Ty::F16x2 || in.ty == Ty::BF16x2) ? 2 : 1;
        std::uint64_t out = 0;
        for (unsigned k = 0; k < lanes; ++k) {
            auto h = [&](std::uint64_t v) {
                const auto u = static_cast<std::uint16_t>(v >> (16 * k));
                return static_cast<double>(bf ? bf16_to_float(u) : half_to_float(u));
            };
            double r = apply_float<double>(in.op, h(a), h(b), h(c), in, ok);  // exact in double, rounded once below
            if (!ok) unsupported(in);
            if (in.flags & kSat) r = saturated(r);
            const std::uint16_t bits16 = bf ? bf16_nearest(bf16_operation(in, h(a), h(b), h(c), r)) : double_to_half(r);
            out |= static_cast<std::uint64_t>(bits16) << (16 * k);
        }
        put(fr, in.o[0], lanes == 2 ? Ty::B32 : Ty::B16, out);
        return;
    }
    default: unsupported(in);
    }
}

// A NaN converted to an integer of w bits: 0 from f32 and the narrower formats,
// the sign bit alone (0x80000000) from f64, signed or unsigned, as an H100 gives.
static std::uint64_t nan_as_integer(Ty source, unsigned w)
{
    return source == Ty::F64 ? std::uint64_t(1) << (w - 1) : 0;
}

// cvt d.dtype, a.atype
void Interpreter::convert(const Frame& fr, const Instr& in)
{
    const Ty dt = in.ty, st = in.ty2;
    const std::uint64_t a = get(fr, in.o[1]);
    if ((dt == Ty::F16x2 || dt == Ty::BF16x2) && st == Ty::F32 && in.nops == 3) {
        // cvt.rn.f16x2.f32 d, a, b: a to the upper half, b to the lower
        if (in.round != Round::Rn && in.round != Round::None) unsupported(in);
        auto half = [&](std::uint64_t v) -> std::uint64_t {
            float f = f32(v);
            if (in.flags & kSat) f = static_cast<float>(saturated(f));
            return dt == Ty::F16x2 ? float_to_half(f) : float_to_bf16(f);
        };
        put(fr, in.o[0], Ty::B32, (half(a) << 16) | half(get(fr, in.o[2])));
        return;
    }
    if (dt == Ty::F32 && st == Ty::BF16) {  // bf16 is f32's top half: widened by its bits, a NaN's included
        put(fr, in.o[0], Ty::B32, (a & 0xFFFF) << 16);
        return;
    }
    const bool sat = in.flags & kSat;
    // the source as a double (floats) or an integer
    double x = 0;
    if (ty_float(st)) {
        switch (st) {
        case Ty::F32: x = (in.flags & kFtz) ? ftz(f32(a)) : f32(a); break;
        case Ty::F64: x = f64(a); break;
        case Ty::F16: x = half_to_float(static_cast<std::uint16_t>(a)); break;
        case Ty::BF16: x = bf16_to_float(static_cast<std::uint16_t>(a)); break;
        default: unsupported(in);
        }
        if (in.round >= Round::Rni) x = round_integer(x, in.round);
    }
    if (ty_float(dt)) {
        const bool s = ty_signed(st);
        if (!ty_float(st) && dt == Ty::F32 && !directed(in.round) && !sat) {  // rounded once, not through double
            const float f = s ? static_cast<float>(sext(st, a)) : static_cast<float>(mask_to(st, a));
            put(fr, in.o[0], Ty::B32, bits(f));
            return;
        }
        Nearest n{x, 0};  // a float source widens exactly
        if (!ty_float(st)) n = s ? int_nearest(sext(st, a)) : uint_nearest(mask_to(st, a));
        if (sat) n = saturate(n);
        const Round mode = directed(in.round) ? in.round : Round::Rn;
        switch (dt) {
        case Ty::F32: {  // a double's NaN keeps its payload's top bits, as between f32 and f64 both ways
            float f = float_directed(n, mode);
            if (in.flags & kFtz) f = ftz(f);
            put(fr, in.o[0], Ty::B32, st == Ty::F64 ? bits(f) : f32_result(f));
            return;
        }
        case Ty::F64: put(fr, in.o[0], Ty::B64, bits(step_directed(n.value, n.residual, mode))); return;
        case Ty::F16: put(fr, in.o[0], Ty::B16, half_directed(n, mode)); return;
        case Ty::BF16: put(fr, in.o[0], Ty::B16, mode == Round::Rn ? float_to_bf16(static_cast<float>(n.value)) : bf16_directed(n, mode)); return;
        default: unsupported(in);
        }
    }
    // integer destination
    const unsigned w = ty_bytes(dt) * 8;
    const bool ds = ty_signed(dt);
    const double lo = ds ? -std::ldexp(1.0, static_cast<int>(w) - 1) : 0.0;
    const double hi = ds ? std::ldexp(1.0, static_cast<int>(w) - 1) - 1 : std::ldexp(1.0, static_cast<int>(w)) - 1;
    std::uint64_t r;
    if (ty_float(st)) {  // float -> integer saturates, to the integers' bounds exactly (2^63 - 1 is no double)
        const std::uint64_t top = w == 64 ? ~0ULL : (1ULL << w) - 1, largest = ds ? top >> 1 : top;
        if (std::isnan(x)) r = nan_as_integer(st, w);
        else if (x <= lo) r = ds ? ~(top >> 1) : 0;
        else if (x >= hi) r = largest;
        else r = ds ? static_cast<std::uint64_t>(static_cast<std::int64_t>(x)) : static_cast<std::uint64_t>(x);
    } else {
        const bool ss = ty_signed(st);
        const std::int64_t si = sext(st, a);
        const std::uint64_t ui = mask_to(st, a);
        r = ss ? static_cast<std::uint64_t>(si) : ui;
        if (sat) {
            if (ss && ds) r = static_cast<std::uint64_t>(std::clamp<std::int64_t>(si, static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi)));
            else if (ss && !ds) r = si < 0 ? 0 : std::min<std::uint64_t>(static_cast<std::uint64_t>(si), w == 64 ? ~0ULL : static_cast<std::uint64_t>(hi));
            else if (!ss && ds) r = std::min<std::uint64_t>(ui, static_cast<std::uint64_t>(hi));
            else r = std::min<std::uint64_t>(ui, w == 64 ? ~0ULL : static_cast<std::uint64_t>(hi));
        }
        if (ds && w < 32) r = static_cast<std::uint32_t>(sext(dt, r));  // sign-extended into the register
    }
    put(fr, in.o[0], ds && w < 32 ? Ty::B32 : dt, r);
}

// ---- the general path's arithmetic, moves and selections

Outcome exec_numeric(Interpreter& it, const Frame& fr, const Instr& in, std::size_t&)
{
    if (ty_float(in.ty)) it.float_op(fr, in);
    else it.integer_op(fr, in);
    return Outcome::Next;
}

Outcome exec_integer(Interpreter& it, const Frame& fr, const Instr& in, std::size_t&)
{
    it.integer_op(fr, in);
    return Outcome::Next;
}

Outcome exec_float(Interpreter& it, const Frame& fr, const Instr& in, std::size_t&)
{
    it.float_op(fr, in);
    return Outcome::Next;
}

Outcome exec_convert(Interpreter& it, const Frame& fr, const Instr& in, std::size_t&)
{
    it.convert(fr, in);
    return Outcome::Next;
}

Outcome exec_move(Interpreter& it, const Frame& fr, const Instr& in, std::size_t&)
{
    std::uint64_t* r = fr.r;
    const Operand& d = in.o[0];
    const Operand& s = in.o[1];
    if (d.kind == OpKind::Vec) {  // unpack: mov.b64 {%r1, %r2}, %rd1
        const std::uint64_t v = it.get(fr, s);
        const unsigned w = ty_bytes(in.ty) * 8 / d.n;
        for (unsigned k = 0; k < d.n; ++k) {
            const std::uint32_t reg = fr.f->lists[d.reg + k];
            if (reg != kNoReg) r[reg] = (v >> (w * k)) & (w == 64 ? ~0ULL : (1ULL << w) - 1);
        }
    } else if (s.kind == OpKind::Vec) {  // pack
        const unsigned w = ty_bytes(in.ty) * 8 / s.n;
        std::uint64_t v = 0;
        for (unsigned k = 0; k < s.n; ++k) {
            const std::uint32_t reg = fr.f->lists[s.reg + k];
            const std::uint64_t part = reg == kNoReg ? 0 : r[reg];
            v |= (part & (w == 64 ? ~0ULL : (1ULL << w) - 1)) << (w * k);
        }
        r[d.reg] = v;
    } else if (in.ty == Ty::Pred) {
        Interpreter::put_pred(fr, d, it.get(fr, s) & 1);
    } else {
        Interpreter::put(fr, d, in.ty, it.get(fr, s));
    }
    return Outcome::Next;
}

// cvta (to generic) and cvta.to (from generic): the shared and local windows.
Outcome exec_cvta(Interpreter& it, const Frame& fr, const Instr& in, std::size_t&)
{
    std::uint64_t a = it.get(fr, in.o[1]);
    const bool to = in.op == Op::CvtaTo;
    if (in.space == Space::Shared) a = to ? a - kSharedWindow : kSharedWindow + (a & 0xFFFF'FFFF);
    else if (in.space == Space::Local) a = to ? a - kLocalWindow : kLocalWindow + a;
    Interpreter::put(fr, in.o[0], in.ty, a);
    return Outcome::Next;
}

Outcome exec_isspacep(Interpreter& it, const Frame& fr, const Instr& in, std::size_t&)
{
    const std::uint64_t a = it.get(fr, in.o[1]);
    const bool sh = a >= kSharedWindow && a < kSharedWindow + kWindowSize;
    const bool lo = a >= kLocalWindow && a < kLocalWindow + kWindowSize;
    const bool v = in.space == Space::Shared ? sh : in.space == Space::Local ? lo : in.space == Space::Global ? !sh && !lo : false;
    Interpreter::put_pred(fr, in.o[0], v);
    return Outcome::Next;
}

// testp.class.type p, a: the class was decoded at load (Instr::sub).
Outcome exec_testp(Interpreter& it, const Frame& fr, const Instr& in, std::size_t&)
{
    const std::uint64_t a = it.get(fr, in.o[1]);
    // classified in the operand's own format: a float subnormal is a normal double
    const int c = in.ty == Ty::F64 ? std::fpclassify(f64(a)) : std::fpclassify(f32(a));
    bool v = false;
    switch (in.sub) {
    case Sub::Finite: v = c != FP_INFINITE && c != FP_NAN; break;
    case Sub::Infinite: v = c == FP_INFINITE; break;
    case Sub::Number: v = c != FP_NAN; break;
    case Sub::NotANumber: v = c == FP_NAN; break;
    case Sub::Normal: v = c == FP_NORMAL; break;
    case Sub::Subnormal: v = c == FP_SUBNORMAL; break;
    default: it.unsupported(in);
    }
    Interpreter::put_pred(fr, in.o[0], v);
    return Outcome::Next;
}

Outcome exec_setp(Interpreter& it, const Frame& fr, const Instr& in, std::size_t&)
{
    it.setp(fr, in);
    return Outcome::Next;
}

Outcome exec_selp(Interpreter& it, const Frame& fr, const Instr& in, std::size_t&)
{
    Interpreter::put(fr, in.o[0], in.ty, (it.get(fr, in.o[3]) & 1) ? it.get(fr, in.o[1]) : it.get(fr, in.o[2]));
    return Outcome::Next;
}

Outcome exec_slct(Interpreter& it, const Frame& fr, const Instr& in, std::size_t&)
{
    // slct.dtype.ctype d, a, b, c: c >= 0 ? a : b
    const std::uint64_t c = it.get(fr, in.o[3]);
    const bool ge = in.ty2 == Ty::F32 ? f32(c) >= 0.0f : sext(in.ty2, c) >= 0;
    Interpreter::put(fr, in.o[0], in.ty, ge ? it.get(fr, in.o[1]) : it.get(fr, in.o[2]));
    return Outcome::Next;
}

Outcome exec_set(Interpreter& it, const Frame& fr, const Instr& in, std::size_t&)
{
    // set.cmp.dtype.stype d, a, b
    const bool v = it.compare(in, it.get(fr, in.o[1]), it.get(fr, in.o[2]));
    const std::uint64_t out = in.ty == Ty::F32 ? (v ? bits(1.0f) : 0) : (v ? ~0ULL : 0);
    Interpreter::put(fr, in.o[0], in.ty, out);
    return Outcome::Next;
}

}  // namespace wl::ptx::detail
