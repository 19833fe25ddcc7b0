#!/usr/bin/env python3
"""Random race-free CUDA kernels for differential testing (emulator against GPU).

A batch is one whole program: many generated kernels and a main() that runs each
on a seeded input and writes every result word to a file. The same program is
built natively (nvcc -arch=sm_90) and for warplab's emulator (`warplab run`);
the two result files must be equal bit for bit, floats included, except the
slots the manifest marks approximate (functions PTX lets the hardware
approximate, below), which are compared with a stated tolerance.

Each kernel mixes what lab and public code use: integer arithmetic and the
integer intrinsics, float and double arithmetic in every rounding mode,
conversions (half and bfloat16 too), the math library's correctly-defined
functions, shuffles of every kind and width, votes, match, redux, cooperative
groups tiles, shared memory (static 1D and padded 2D, sub-word, dynamic) with
barriers, atomics on shared and global memory, a __constant__ table, divergent
branches and loops, cp.async (__pipeline_memcpy_async, cooperative groups'
and cuda::memcpy_async), vector and read-only loads, local arrays at dynamic
indices and the threadfence reduction. Every kernel is race-free and its
results do not depend on the order the hardware runs threads in: atomics on a
word all apply one commutative operation (integer add, min, max, and, or, xor,
inc and dec with one limit, float add of values whose sums are exact, a float
maximum by an atomicCAS loop), and an atomic's returned value is used only
through an order-free sum; a thread reads another's word only after a barrier
(or a fence and an atomic, for the last block).

Blocks are whole warps (32 to 256 threads, 1D or 2D), grids 1 to 4 blocks, so a
full-mask collective always names every lane; inside divergent branches the
collectives take the branch's mask from __ballot_sync, and a shuffle there reads
a lane of that mask.

Deterministic: the generator draws from its own SplitMix64 (Sebastiano Vigna's
generator), not Python's random module, so a seed gives the same program with
any Python 3.

    python3 generate.py --seed S --first I --count N --out batch.cu [--manifest batch.json]
"""
import argparse
import json
import sys

MASK64 = (1 << 64) - 1

# Approximate functions: PTX lets these differ from the exact value (sin.approx,
# ex2.approx, lg2.approx, rsqrt.approx, rcp.approx, div.approx in their code),
# so the GPU's bits are not the only right ones. Tolerances are twice the
# CUDA C++ Programming Guide's bound for the GPU (its table of intrinsic and
# single-precision function errors): the emulator may be off the other way by
# as much. kind "abs": |gpu - emu| <= tol; "ulp": the distance in floats <= tol.
APPROX = {
    # name: (expression on x and y, kind, tolerance)
    "__sinf": ("__sinf(fminf(fmaxf({x}, -3.14159f), 3.14159f))", "abs", 2.0 ** -20.41),
    "__cosf": ("__cosf(fminf(fmaxf({x}, -3.14159f), 3.14159f))", "abs", 2.0 ** -20.19),
    "__expf": ("__expf(fminf(fmaxf({x}, -8.0f), 8.0f))", "ulp", 2 * (2 + 9)),  # 2 + floor(|1.173 x|) ulp
    "__logf": ("__logf(fminf(fmaxf(fabsf({x}), 0.5f), 2.0f))", "abs", 2.0 ** -20.41),  # in [0.5, 2]: 2^-21.41
    "__log2f": ("__log2f(fminf(fmaxf(fabsf({x}), 0.5f), 2.0f))", "abs", 2.0 ** -21),  # in [0.5, 2]: 2^-22
    "__fdividef": ("__fdividef({x}, 1.0f + fminf(fabsf({y}), 1e30f))", "ulp", 4),  # 2 ulp for |y| in [2^-126, 2^126]
    "rsqrtf": ("rsqrtf(1e-30f + fminf(fabsf({x}), 1e30f))", "ulp", 4),  # 2 ulp
    "expf": ("expf(fminf(fmaxf({x}, -80.0f), 80.0f))", "ulp", 4),  # 2 ulp
    "exp2f": ("exp2f(fminf(fmaxf({x}, -120.0f), 120.0f))", "ulp", 4),  # 2 ulp
    "tanhf": ("tanhf({x})", "ulp", 4),  # 2 ulp
    "atanf": ("atanf({x})", "ulp", 4),  # 2 ulp
    "cbrtf": ("cbrtf({x})", "ulp", 2),  # 1 ulp
    "erff": ("erff({x})", "ulp", 4),  # 2 ulp
}

ROUNDINGS = ("rn", "rz", "ru", "rd")
FULL = "0xffffffffu"


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n):
        return self.next() % n

    def chance(self, p):
        return self.next() % 1000 < int(p * 1000)

    def pick(self, seq):
        return seq[self.below(len(seq))]


def kernel_seed(seed, index):
    """The seed of kernel `index` of the run seeded `seed` (also its input's seed)."""
    return SplitMix64((seed * 0x100000001B3 + index * 0x9E3779B97F4A7C15) & MASK64).next()


# Integer expressions over unsigned operands a, b, c (all wrap-around or defined for every value).
INT_EXPRS = [
    "{a} + {b}", "{a} - {b}", "{a} * {b}", "{a} & {b}", "{a} | {b}", "{a} ^ {b}", "~{a} ^ {b}",
    "{a} << ({b} & 31u)", "{a} >> ({b} & 31u)", "(unsigned)((int){a} >> ({b} & 31u))",
    "{a} / ({b} | 1u)", "{a} % ({b} | 1u)", "(unsigned)((int){a} / (int)(({b} & 0xffffu) | 1u))",
    "(unsigned)((int){a} % (int)(({b} & 0xffu) | 1u))", "__umulhi({a}, {b})", "(unsigned)__mulhi((int){a}, (int){b})",
    "__popc({a}) + {b}", "(unsigned)__clz({a}) ^ {b}", "(unsigned)__ffs({a}) + {b}", "__brev({a}) ^ {b}",
    "__byte_perm({a}, {b}, {c})", "__funnelshift_l({a}, {b}, {c})", "__funnelshift_r({a}, {b}, {c})",
    "__funnelshift_lc({a}, {b}, {c})", "__funnelshift_rc({a}, {b}, {c})", "min({a}, {b})", "max({a}, {b})",
    "(unsigned)min((int){a}, (int){b})", "(unsigned)max((int){a}, (int){b})", "__sad((int){a}, (int){b}, {c})",
    "__usad({a}, {b}, {c})", "__uhadd({a}, {b})", "__urhadd({a}, {b})", "(unsigned)__hadd((int){a}, (int){b})",
    "(unsigned)__rhadd((int){a}, (int){b})", "{a} * {b} + {c}", "__umul24({a}, {b})",
    "(unsigned)__mul24((int){a}, (int){b})", "({a} < {b}) ? {c} : {a}", "(unsigned)((int){a} < (int){b}) + {c}",
    "({a} >> ({b} & 15u)) & ((1u << ({c} & 15u)) - 1u)", "__vadd4({a}, {b})", "__vsub4({a}, {b})",
    "__vmaxu4({a}, {b})", "__vcmpgtu2({a}, {b})", "__vavgu4({a}, {b})",
    "(unsigned)(((unsigned long long){a} * {b}) >> 32)",
    "__fns({a}, {b} & 31u, (int)({c} % 5u) - 2)",
    "(unsigned)__umul64hi(((unsigned long long){a} << 32) | {b}, 0x9e3779b97f4a7c15ull ^ {c})",
    "(unsigned)__popcll(((unsigned long long){a} << 32) | {b})", "(unsigned)__clzll(((unsigned long long){a} << 32) | {b})",
    "(unsigned)(__brevll(((unsigned long long){a} << 32) | {b}) >> 16)",
    "(unsigned)((((unsigned long long){a} << 32) | {b}) / ({c} | 1u))",
    "(unsigned)((((unsigned long long){a} << 32) | {b}) % ({c} | 1u))",
    "(unsigned)(((long long)(int){a} * (int){b}) >> 17)", "(unsigned)((long long)(int){a} / (long long)(int)({b} | 1u))",
]

# The integer SIMD intrinsics and min/max.NaN, in the mix only with --simd (the
# emulator did not run their instructions when the first kernels were recorded
# on a GPU; kernels of a seed without --simd stay the ones recorded then).
SIMD_INT_EXPRS = [
    "__vsub2({a}, {b})", "__vadd2({a}, {b})", "__vminu2({a}, {b})", "__vmaxs2({a}, {b})", "__vmins2({a}, {b})",
    "__vabsdiffu4({a}, {b})", "__vabsdiffs4({a}, {b})", "(unsigned)__dp4a((int){a}, (int){b}, (int){c})",
    "__dp4a({a}, {b}, {c})", "__dp2a_lo({a}, {b}, {c})", "(unsigned)__dp2a_hi((int){a}, (int){b}, (int){c})",
]
SIMD_FLOAT_EXPRS = [
    "__half2float(__hmin_nan(__float2half_rn({x}), __float2half_rn({y})))",
    "__half2float(__hmax_nan(__float2half_rn({x}), __float2half_rn({y})))",
    "__low2float(__hmin2_nan(__floats2half2_rn({x}, {y}), __floats2half2_rn({z}, {x})))",
]

# Float expressions over float operands x, y, z whose results are defined to the bit
# (correctly rounded, or exact, or a fixed sequence of such operations). No bare
# product x * y: its mul.f32 may meet a later add.f32, a pair ptxas may fuse.
FLOAT_EXPRS = (
    [f"__fadd_{r}({{x}}, {{y}})" for r in ROUNDINGS] + [f"__fsub_{r}({{x}}, {{y}})" for r in ROUNDINGS]
    + [f"__fmul_{r}({{x}}, {{y}})" for r in ROUNDINGS] + [f"__fmaf_{r}({{x}}, {{y}}, {{z}})" for r in ROUNDINGS]
    + [f"__fdiv_{r}({{x}}, {{y}})" for r in ROUNDINGS] + [f"__frcp_{r}({{x}})" for r in ROUNDINGS]
    + [f"__fsqrt_{r}({{x}})" for r in ROUNDINGS] + [f"__fmaf_ieee_{r}({{x}}, {{y}}, {{z}})" for r in ROUNDINGS]
    + [
        "{x} + {y}", "{x} - {y}", "{x} * {y} + {z}", "{x} / {y}", "sqrtf({x})", "fmaf({x}, {y}, {z})",
        "fminf({x}, {y})", "fmaxf({x}, {y})", "fabsf({x}) - {y}", "-({x})", "copysignf({x}, {y})", "__saturatef({x})",
        "floorf({x})", "ceilf({x})", "truncf({x})", "rintf({x})", "roundf({x})", "fdimf({x}, {y})", "fmodf({x}, {y})",
        "remainderf({x}, {y})", "nextafterf({x}, {y})", "logbf({x})", "sinf({x})", "cosf({x})", "logf({x})", "log2f({x})",
        "log10f({x})", "log1pf({x})", "atan2f({x}, {y})", "hypotf({x}, {y})", "__frsqrt_rn({x})", "fmaxf({x}, 0.0f)",
        "{x} * 0.5f + {y}", "__half2float(__float2half_rn({x}))",
        "__half2float(__hadd(__float2half_rn({x}), __float2half_rn({y})))",
        "__half2float(__hfma(__float2half_rn({x}), __float2half_rn({y}), __float2half_rn({z})))",
        "__half2float(__hmul(__float2half_rz({x}), __float2half_ru({y})))",
        "__low2float(__hmul2(__floats2half2_rn({x}, {y}), __floats2half2_rn({z}, {x})))",
        "__high2float(__hadd2(__floats2half2_rn({x}, {y}), __floats2half2_rn({z}, {x})))",
        "__half2float(__hmax(__float2half_rn({x}), __float2half_rn({y})))",
        "__bfloat162float(__float2bfloat16_rn({x}))", "__bfloat162float(__float2bfloat16_rz({x}))",
        "__bfloat162float(__hadd(__float2bfloat16({x}), __float2bfloat16({y})))",
        "__bfloat162float(__hfma(__float2bfloat16({x}), __float2bfloat16({y}), __float2bfloat16({z})))",
    ]
)
# Floats from unsigned operands a, b (and the double d).
INT_TO_FLOAT = (
    [f"__int2float_{r}((int){{a}})" for r in ROUNDINGS] + [f"__uint2float_{r}({{a}})" for r in ROUNDINGS]
    + [f"__ll2float_{r}((long long)(int){{a}} * (int){{b}})" for r in ROUNDINGS]
    + [f"__ull2float_{r}(((unsigned long long){{a}} << 32) | {{b}})" for r in ROUNDINGS]
    + [f"__double2float_{r}({{d}})" for r in ROUNDINGS]
    + ["__int_as_float((int){a})", "(float){a}", "(float)(int){a}", "ldexpf({x}, (int)({a} % 61u) - 30)",
       "scalbnf({x}, (int)({a} & 15u) - 8)", "__half2float(__ushort_as_half((unsigned short){a}))",
       "__bfloat162float(__ushort_as_bfloat16((unsigned short){a}))"]
)
# Unsigned results from float operands x, y (and the double d).
FLOAT_TO_INT = (
    [f"(unsigned)__float2int_{r}({{x}})" for r in ROUNDINGS] + [f"__float2uint_{r}({{x}})" for r in ROUNDINGS]
    + [f"(unsigned)__float2ll_{r}({{x}})" for r in ROUNDINGS] + [f"(unsigned)(__float2ull_{r}({{x}}) >> 7)" for r in ROUNDINGS]
    + [f"(unsigned)__double2int_{r}({{d}})" for r in ROUNDINGS] + [f"__double2uint_{r}({{d}})" for r in ROUNDINGS]
    + ["__float_as_uint({x})", "(unsigned)__double2hiint({d})", "(unsigned)__double2loint({d})", "(unsigned)ilogbf({x})",
       "(unsigned)isnan({x}) + 2u * (unsigned)isinf({y})", "(unsigned)signbit({x})", "(unsigned)({x} < {y})",
       "(unsigned)({x} == {y}) + 2u * (unsigned)({x} != {y})", "(unsigned)__half_as_ushort(__float2half_rn({x}))",
       "(unsigned)__half_as_ushort(__float2half_rd({x}))", "(unsigned)__bfloat16_as_ushort(__float2bfloat16_ru({x}))",
       "(unsigned)__half2int_rn(__float2half_rn({x}))", "(unsigned)__half2short_rz(__float2half_rz({x}))"]
)
# Doubles over the double d, float x and unsigned a, b.
DOUBLE_EXPRS = (
    [f"__dadd_{r}({{d}}, (double){{x}})" for r in ROUNDINGS] + [f"__dmul_{r}({{d}}, (double){{x}})" for r in ROUNDINGS]
    + [f"__fma_{r}({{d}}, (double){{x}}, {{d}})" for r in ROUNDINGS] + [f"__ddiv_{r}({{d}}, (double){{x}})" for r in ROUNDINGS]
    + [f"__dsqrt_{r}(fabs({{d}}))" for r in ROUNDINGS] + [f"__drcp_{r}({{d}})" for r in ROUNDINGS]
    + [f"__ll2double_{r}((long long)(((unsigned long long){{a}} << 32) | {{b}}))" for r in ROUNDINGS]
    + [f"__ull2double_{r}(((unsigned long long){{a}} << 32) | {{b}})" for r in ROUNDINGS]
    + ["{d} * (double){x} + 1.0", "{d} - (double){x}", "sqrt(fabs({d}))", "floor({d})", "(double){a}",
       "__int2double_rn((int){a})", "__uint2double_rn({a})", "sin({d})", "exp(fmin({d}, 700.0))", "fmin({d}, (double){x})",
       "__hiloint2double((int){a}, (int){b})", "(double){x}", "log(fabs({d}))"]
)

FLOAT_CONSTANTS = ["0.5f", "-1.25f", "3.0f", "1e-3f", "1e30f", "65504.0f", "0.1f", "-7.75f", "1e-40f", "2.0f",
                   "100.0f"]


class Kernel:
    """One generated kernel: its source, launch shape and output layout."""

    U = ["u0", "u1", "u2", "u3"]
    F = ["f0", "f1", "f2", "f3"]
    WORDS_PER_THREAD = 10  # the input words each thread loads
    EXACT_SLOTS = 10  # u0..u3, f0..f3, d0's low and high words
    # The exact slots that hold float results (a double's at its low word, its high word in the next slot):
    # where PTX leaves a NaN unspecified, any NaN of the width is the right word there (differential.py).
    FLOAT_SLOTS = [[4, 32], [5, 32], [6, 32], [7, 32], [8, 64]]
    ACC_RANDOM = 32  # acc[0, 32): random words from the host (integer atomics)
    ACC_ZERO = 32  # acc[32, 64): zeros from the host (float atomics, counters)

    def __init__(self, seed, index, simd=False):
        self.index = index
        self.int_exprs = INT_EXPRS + SIMD_INT_EXPRS if simd else INT_EXPRS
        self.float_exprs = FLOAT_EXPRS + SIMD_FLOAT_EXPRS if simd else FLOAT_EXPRS
        self.seed = kernel_seed(seed, index)
        self.rng = SplitMix64(self.seed)
        self.name = f"diff_{index}"
        r = self.rng
        if r.chance(0.25):
            bx = r.pick([8, 16, 32, 64])
            by = r.pick([y for y in range(1, 33) if (bx * y) % 32 == 0 and bx * y <= 256])
        else:
            bx, by = 32 * (1 + r.below(8)), 1
        self.block = (bx, by)
        self.threads = bx * by
        self.grid = 1 + r.below(4)
        self.total = self.grid * self.threads
        self.lines = []
        self.depth = 1
        self.serial = 0
        self.approx = []  # (slot, function name)
        self.acc_random_used = 0
        self.acc_zero_used = 0
        self.scratch_regions = 0
        self.dynamic_words = 0  # dynamic shared words a thread
        self.fence_reduction = False
        self.shared_statements = 0
        self.features = set()

    # --- building blocks -------------------------------------------------------------
    def emit(self, line):
        self.lines.append("    " * self.depth + line)

    def fresh(self, stem):
        self.serial += 1
        return f"{stem}{self.serial}"

    def u(self):
        return self.rng.pick(self.U)

    def f(self):
        return self.rng.pick(self.F)

    def uop(self, extra=()):
        """An unsigned operand: a variable, an index, a loop variable or a constant."""
        r = self.rng
        k = r.below(20)
        if k < 13:
            return self.u()
        if k < 15:
            return r.pick(["lane", "tid", "gid", "warp", "blockIdx.x", "threadIdx.y"] + list(extra))
        if k < 17 and extra:
            return r.pick(list(extra))
        return r.pick([f"{r.below(32)}u", f"0x{r.next() & 0xffffffff:08x}u", f"{1 + r.below(1000)}u"])

    def fop(self):
        r = self.rng
        return self.f() if r.below(10) < 8 else r.pick(FLOAT_CONSTANTS)

    def int_expr(self, extra=()):
        return self.rng.pick(self.int_exprs).format(a=self.uop(extra), b=self.uop(extra), c=self.uop(extra))

    def float_expr(self):
        return self.rng.pick(self.float_exprs).format(x=self.fop(), y=self.fop(), z=self.fop())

    def predicate(self):
        r = self.rng
        k = r.below(8)
        if k == 0:
            return f"({self.u()} & {1 << r.below(32)}u) != 0u"
        if k == 1:
            return f"{self.f()} < {self.fop()}"
        if k == 2:
            return f"lane < {1 + r.below(31)}u"
        if k == 3:
            return f"(lane & {1 + r.below(15)}u) == 0u"
        if k == 4:
            return f"{self.u()} > {self.uop()}"
        if k == 5:
            return f"tid % 3u == {r.below(3)}u"
        if k == 6:
            return f"!isnan({self.f()})"
        return f"(int){self.u()} < 0"

    # --- statements ------------------------------------------------------------------
    def s_int(self, extra=()):
        self.emit(f"{self.u()} = {self.int_expr(extra)};")

    def s_float(self, extra=()):
        self.emit(f"{self.f()} = {self.float_expr()};")

    def s_convert(self, extra=()):
        r = self.rng
        if r.chance(0.5):
            expr = r.pick(INT_TO_FLOAT).format(a=self.uop(extra), b=self.uop(extra), x=self.fop(), d="d0")
            self.emit(f"{self.f()} = {expr};")
        else:
            expr = r.pick(FLOAT_TO_INT).format(x=self.fop(), y=self.fop(), d="d0")
            self.emit(f"{self.u()} = {expr};")

    def s_double(self, extra=()):
        expr = self.rng.pick(DOUBLE_EXPRS).format(d="d0", x=self.fop(), a=self.uop(extra), b=self.uop(extra))
        self.emit(f"d0 = {expr};")

    def s_constant(self, extra=()):
        if self.rng.chance(0.5):
            self.emit(f"{self.u()} ^= table[{self.uop(extra)} & 63u];")
        else:
            self.emit(f"{self.f()} = __fadd_rn({self.f()}, __uint_as_float(table[{self.u()} % 64u] & 0xbfffffffu));")
        self.features.add("constant")

    def s_approx(self):
        name = self.rng.pick(sorted(APPROX))
        slot = self.EXACT_SLOTS + len(self.approx)
        self.approx.append((slot, name))
        expr = APPROX[name][0].format(x=self.f(), y=self.fop())
        self.emit(f"out[{slot}u * total + gid] = __float_as_uint({expr});  // approximate: {name}")

    def arith(self, extra=()):
        """One arithmetic statement of any kind (also inside branches and loops)."""
        k = self.rng.below(10)
        if k < 4:
            self.s_int(extra)
        elif k < 7:
            self.s_float(extra)
        elif k < 9:
            self.s_convert(extra)
        else:
            self.s_double(extra)

    def s_branch(self):
        self.emit(f"if ({self.predicate()}) {{")
        self.nested(lambda: self.arith(), 1 + self.rng.below(3))
        if self.rng.chance(0.6):
            self.emit("} else {")
            self.nested(lambda: self.arith(), 1 + self.rng.below(3))
        self.emit("}")
        self.features.add("branch")

    def s_switch(self):
        self.emit(f"switch ({self.u()} & 3u) {{")
        for case in range(3):
            self.emit(f"case {case}u:")
            self.nested(lambda: self.arith(), 1)
            if self.rng.chance(0.7):
                self.nested(lambda: self.emit("break;"), 1)
        self.emit("default:")
        self.nested(lambda: self.arith(), 1)
        self.emit("}")
        self.features.add("branch")

    def s_loop(self):
        r = self.rng
        i = self.fresh("i")
        bound = r.pick([f"({self.u()} & 7u) + (tid & 3u)", f"{self.u()} % 9u", f"lane % 5u + 1u", f"(warp + {r.below(4)}u) % 4u"])
        self.emit(f"for (unsigned {i} = 0u; {i} < {bound}; ++{i}) {{")

        def body():
            for _ in range(1 + r.below(3)):
                self.arith(extra=(i,))
            if r.chance(0.3):
                self.emit(f"if ((({self.u()} >> {i}) & 1u) != 0u) break;")
        self.nested(body, 1)
        self.emit("}")
        self.features.add("loop")

    def s_while(self):
        n, steps = self.fresh("n"), self.fresh("steps")
        u = self.u()
        self.emit(f"unsigned {n} = {u}, {steps} = 0u;")
        self.emit(f"while ({n} > 1u && {steps} < {10 + self.rng.below(40)}u) {{  // Collatz steps: a data-dependent trip count")
        self.nested(lambda: self.emit(f"{n} = ({n} & 1u) ? 3u * {n} + 1u : {n} / 2u;"), 1)
        self.nested(lambda: self.emit(f"++{steps};"), 1)
        self.emit("}")
        self.emit(f"{self.u()} += {steps} ^ {n};")
        self.features.add("loop")

    def s_local(self):
        r = self.rng
        n = 3 + r.below(10)
        loc, i = self.fresh("loc"), self.fresh("i")
        if r.chance(0.6):
            self.emit(f"unsigned {loc}[{n}];")
            self.emit(f"for (unsigned {i} = 0u; {i} < {n}u; ++{i}) {loc}[{i}] = {self.u()} * ({i} + 1u) ^ {self.uop()};")
            self.emit(f"{loc}[{self.u()} % {n}u] += {self.uop()};")
            self.emit(f"{self.u()} = {loc}[({self.u()} >> 3) % {n}u] ^ {loc}[lane % {n}u];")
        else:
            self.emit(f"float {loc}[{n}];")
            self.emit(f"for (unsigned {i} = 0u; {i} < {n}u; ++{i}) {loc}[{i}] = __fmaf_rn({self.f()}, (float){i}, {self.fop()});")
            self.emit(f"{loc}[{self.u()} % {n}u] = {self.float_expr()};")
            self.emit(f"{self.f()} = __fadd_rz({loc}[{self.u()} % {n}u], {loc}[tid % {n}u]);")
        self.features.add("local")

    # warp collectives, every lane present (blocks are whole warps)
    def s_shuffle(self):
        r = self.rng
        width = r.pick([32, 32, 16, 8, 4, 2])
        w = "" if width == 32 and r.chance(0.5) else f", {width}"
        var = r.pick(self.U + self.F + ["d0"])
        kind = r.below(4)
        if kind == 0:
            src = r.pick([f"{self.u()}", f"(int){self.u()}", f"lane ^ {r.below(32)}u", f"{r.below(40)}", f"(lane + {r.below(32)}u) % 32u"])
            self.emit(f"{var} = __shfl_sync({FULL}, {var}, {src}{w});")
        elif kind == 1:
            delta = r.pick([f"{r.below(33)}u", f"{self.u()} & 31u"])
            self.emit(f"{var} = __shfl_up_sync({FULL}, {var}, {delta}{w});")
        elif kind == 2:
            delta = r.pick([f"{r.below(33)}u", f"{self.u()} & 31u"])
            self.emit(f"{var} = __shfl_down_sync({FULL}, {var}, {delta}{w});")
        else:
            mask = r.pick([f"{r.below(32)}", f"(int)({self.u()} & 31u)"])
            self.emit(f"{var} = __shfl_xor_sync({FULL}, {var}, {mask}{w});")
        self.features.add("shuffle")

    def s_warp_reduce(self):
        r = self.rng
        off = self.fresh("offset")
        if r.chance(0.5):
            f = self.f()
            add = r.pick(["__fadd_rn({a}, {b})", "{a} + {b}", "fmaxf({a}, {b})", "__fadd_rz({a}, {b})"])
            shfl = r.pick(["__shfl_down_sync", "__shfl_xor_sync"])
            self.emit(f"for (int {off} = warpSize / 2; {off} > 0; {off} /= 2)")
            self.nested(lambda: self.emit(f"{f} = {add.format(a=f, b=f'{shfl}({FULL}, {f}, {off})')};"), 1)
        else:
            u = self.u()
            self.emit(f"for (unsigned {off} = 1u; {off} < 32u; {off} *= 2u) {{  // inclusive scan")
            self.nested(lambda: self.emit(f"const unsigned up = __shfl_up_sync({FULL}, {u}, {off});"), 1)
            self.nested(lambda: self.emit(f"if (lane >= {off}) {u} += up;"), 1)
            self.emit("}")
        self.features.add("shuffle")

    def s_vote(self):
        r = self.rng
        k = r.below(6)
        u = self.u()
        if k == 0:
            self.emit(f"{u} ^= __ballot_sync({FULL}, {self.predicate()});")
        elif k == 1:
            self.emit(f"{u} += (unsigned)__any_sync({FULL}, {self.predicate()}) + 2u * (unsigned)__all_sync({FULL}, {self.predicate()});")
        elif k == 2:
            self.emit(f"{u} += __popc(__ballot_sync({FULL}, {self.predicate()}));")
        elif k == 3:
            v = r.pick([f"{self.u()} & {r.pick([1, 3, 7, 255])}u", "warp", f"{self.u()}"])
            self.emit(f"{u} ^= __match_any_sync({FULL}, {v});")
        elif k == 4:
            v = r.pick([f"(unsigned long long){self.u()} & 0xf00000003ull", f"((unsigned long long){self.u()} << 32) | ({self.u()} & 1u)"])
            self.emit(f"{u} += __match_any_sync({FULL}, {v});")
        else:
            p = self.fresh("pred")
            v = r.pick([f"{self.u()} & 1u", "warp", "blockIdx.x", f"{self.u()}"])
            self.emit(f"int {p};")
            self.emit(f"{u} += __match_all_sync({FULL}, {v}, &{p});")
            self.emit(f"{u} ^= (unsigned){p};")
        self.features.add("vote")

    def s_redux(self):
        r = self.rng
        u = self.u()
        op = r.pick(["add", "min", "max", "and", "or", "xor"])
        if op in ("add", "min", "max") and r.chance(0.4):
            self.emit(f"{u} ^= (unsigned)__reduce_{op}_sync({FULL}, (int){self.uop()});")
        else:
            self.emit(f"{u} += __reduce_{op}_sync({FULL}, {self.uop()});")
        self.features.add("redux")

    def s_masked(self):
        """Collectives inside a divergent branch, on the branch's mask."""
        r = self.rng
        m, c = self.fresh("mask"), self.fresh("taken")
        self.emit(f"const bool {c} = {self.predicate()};")
        self.emit(f"const unsigned {m} = __ballot_sync({FULL}, {c});")
        self.emit(f"if ({c}) {{")

        def body():
            for _ in range(1 + r.below(3)):
                k = r.below(5)
                if k == 0:
                    self.emit(f"{self.u()} += __reduce_add_sync({m}, {self.uop()});")
                elif k == 1:
                    self.emit(f"{self.u()} ^= __match_any_sync({m}, {self.u()} & 3u);")
                elif k == 2:
                    self.emit(f"{self.u()} += __popc(__ballot_sync({m}, {self.predicate()}));")
                elif k == 3:
                    src = r.pick([f"__ffs({m}) - 1", f"31 - __clz({m})"])  # a lane of the mask
                    var = r.pick(self.U + self.F)
                    self.emit(f"{var} = __shfl_sync({m}, {var}, {src});")
                else:
                    self.emit(f"{self.u()} ^= __reduce_max_sync({m}, {self.uop()}) + (unsigned)__any_sync({m}, {self.predicate()});")
        self.nested(body, 1)
        self.emit("}")
        self.features.add("masked")

    def s_tile(self):
        """A cooperative groups tile: shuffles, a reduction and a scan."""
        r = self.rng
        width = r.pick([4, 8, 16, 32])
        t = self.fresh("tile")
        self.emit(f"const cg::thread_block_tile<{width}> {t} = cg::tiled_partition<{width}>(cg::this_thread_block());")
        k = r.below(4)
        if k == 0:
            self.emit(f"{self.u()} = cg::reduce({t}, {self.uop()}, cg::plus<unsigned>());")
        elif k == 1:
            self.emit(f"{self.f()} = cg::reduce({t}, {self.f()}, cg::greater<float>());")
        elif k == 2:
            self.emit(f"{self.u()} = cg::inclusive_scan({t}, {self.uop()});")
        else:
            self.emit(f"{self.f()} = {t}.shfl_down({self.f()}, {1 + r.below(width - 1)}u);")
            self.emit(f"{self.u()} ^= {t}.ballot({self.predicate()}) + {t}.thread_rank();")
        self.features.add("tile")

    # shared memory with barriers
    def s_shared_exchange(self):
        r = self.rng
        name = self.fresh("sh")
        kind = r.pick(["unsigned", "float", "unsigned short", "unsigned char", "dynamic"])
        if kind == "dynamic":
            self.dynamic_words += 1
            self.emit(f"unsigned* {name} = dynamic + {self.dynamic_words - 1}u * nt;  // dynamic shared memory")
            typ = "unsigned"
        else:
            typ = kind
            self.emit(f"__shared__ {kind} {name}[{self.threads}];")
        if typ == "float":
            self.emit(f"{name}[tid] = {self.f()};")
        else:
            self.emit(f"{name}[tid] = ({typ}){self.u()};")
        self.emit("__syncthreads();")
        index = r.pick(["nt - 1u - tid", f"(tid * {r.pick([3, 5, 7, 33])}u + {r.below(64)}u) % nt", f"{self.u()} % nt", "tid ^ 1u",
                        f"(tid + {r.below(256)}u) % nt"])
        if typ == "float":
            self.emit(f"{self.f()} = __fmaf_rn({name}[{index}], {self.fop()}, {self.f()});")
        else:
            self.emit(f"{self.u()} += {name}[{index}];")
        self.features.add("shared")

    def s_tile2d(self):
        """A padded 2D shared array, a row per warp, read transposed."""
        r = self.rng
        name = self.fresh("rows")
        warps = self.threads // 32
        pad = r.pick([0, 1])
        typ = r.pick(["float", "unsigned"])
        self.emit(f"__shared__ {typ} {name}[{warps}][{32 + pad}];")
        self.emit(f"{name}[warp][lane] = {self.f() if typ == 'float' else self.u()};")
        self.emit("__syncthreads();")
        read = f"{name}[(warp + {r.below(8)}u) % {warps}u][(lane * {r.pick([1, 3, 5, 7])}u + {r.below(32)}u) % 32u]"
        if typ == "float":
            self.emit(f"{self.f()} = __fadd_rz({self.f()}, {read});")
        else:
            self.emit(f"{self.u()} ^= {read};")
        self.features.add("shared")

    def s_block_reduce(self):
        """A tree reduction in shared memory: a fixed order, so floats are exact to the bit too."""
        r = self.rng
        name, s = self.fresh("sum"), self.fresh("stride")
        floats = r.chance(0.5)
        typ = "float" if floats else "unsigned"
        self.emit(f"__shared__ {typ} {name}[{self.threads}];")
        self.emit(f"{name}[tid] = {self.f() if floats else self.u()};")
        self.emit("__syncthreads();")
        self.emit(f"for (unsigned {s} = 1u; {s} < nt; {s} *= 2u) {{")
        add = f"__fadd_rn({name}[tid], {name}[tid + {s}])" if floats else f"{name}[tid] + {name}[tid + {s}]"
        self.nested(lambda: self.emit(f"if (tid % (2u * {s}) == 0u && tid + {s} < nt) {name}[tid] = {add};"), 1)
        self.nested(lambda: self.emit("__syncthreads();"), 1)
        self.emit("}")
        if floats:
            self.emit(f"{self.f()} = __fsub_rn({self.f()}, {name}[0]);")
        else:
            self.emit(f"{self.u()} ^= {name}[0];")
        self.features.add("shared")

    def s_sync_count(self):
        r = self.rng
        k = r.below(3)
        if k == 0:
            self.emit(f"{self.u()} += (unsigned)__syncthreads_count({self.predicate()});")
        elif k == 1:
            self.emit(f"{self.u()} ^= (unsigned)__syncthreads_or({self.predicate()}) + 2u * (unsigned)__syncthreads_and({self.predicate()});")
        else:
            self.emit(f"{self.u()} += (unsigned)__syncthreads_and({self.predicate()});")
        self.features.add("barrier")

    # atomics whose results do not depend on the order
    INT_ATOMICS = [
        ("atomicAdd", "unsigned", "{v}"), ("atomicMin", "unsigned", "{v}"), ("atomicMax", "unsigned", "{v}"),
        ("atomicAnd", "unsigned", "{v} | 0x01010101u"), ("atomicOr", "unsigned", "{v} & 0x11111111u"), ("atomicXor", "unsigned", "{v}"),
        ("atomicMin", "int", "(int){v}"), ("atomicMax", "int", "(int){v}"), ("atomicAdd", "int", "(int){v}"),
        ("atomicInc", "unsigned", "{limit}u"), ("atomicDec", "unsigned", "{limit}u"), ("atomicSub", "unsigned", "{v}"),
        ("atomicAdd", "unsigned long long", "(unsigned long long){v} * {w}"),
        ("atomicMax", "unsigned long long", "((unsigned long long){v} << 32) | {w}"),
        ("atomicOr", "unsigned long long", "((unsigned long long){v} << 29) & 0x5555555555555555ull"),
    ]

    def atomic_call(self, target, extra=()):
        r = self.rng
        fn, typ, arg = r.pick(self.INT_ATOMICS)
        arg = arg.format(v=self.uop(extra), w=self.uop(extra), limit=1 + r.below(300))
        return fn, typ, arg

    def s_shared_atomic(self):
        r = self.rng
        name = self.fresh("counts")
        slots = r.pick([1, 2, 4, 8])
        if r.chance(0.25):  # float adds of quarter-integers below 2^24 / 4: every order sums them exactly
            self.emit(f"__shared__ float {name}[{slots}];")
            self.emit(f"if (tid < {slots}u) {name}[tid] = (float)({self.u()} & 1023u);")
            self.emit("__syncthreads();")
            self.emit(f"atomicAdd(&{name}[{self.uop()} % {slots}u], __uint2float_rn({self.u()} & 255u) * 0.25f);")
            self.emit("__syncthreads();")
            self.emit(f"{self.f()} = __fadd_rn({self.f()}, {name}[lane % {slots}u]);")
        else:
            fn, typ, arg = self.atomic_call(name)
            self.emit(f"__shared__ {typ} {name}[{slots}];")
            self.emit(f"if (tid < {slots}u) {name}[tid] = ({typ}){self.u()};")
            self.emit("__syncthreads();")
            if r.chance(0.3):  # only some threads take part
                self.emit(f"if ({self.predicate()}) {fn}(&{name}[{self.uop()} % {slots}u], {arg});")
            elif typ == "unsigned" and fn in ("atomicAdd", "atomicOr", "atomicXor", "atomicMax") and r.chance(0.4):
                ref = self.fresh("ref")  # libcu++'s spelling of the same atomic
                method = {"atomicAdd": "fetch_add", "atomicOr": "fetch_or", "atomicXor": "fetch_xor", "atomicMax": "fetch_max"}[fn]
                self.emit(f"cuda::atomic_ref<unsigned, cuda::thread_scope_block> {ref}({name}[{self.uop()} % {slots}u]);")
                self.emit(f"{ref}.{method}({arg}, cuda::memory_order_relaxed);")
            else:
                self.emit(f"{fn}(&{name}[{self.uop()} % {slots}u], {arg});")
            self.emit("__syncthreads();")
            self.emit(f"{self.u()} ^= (unsigned){name}[lane % {slots}u];")
        self.emit("__syncthreads();")  # the array is not reused, but a loop around it would
        self.features.add("shared_atomic")

    def s_cas_max(self):
        """A float maximum by an atomicCAS loop, as public code writes atomicMax for floats;
        every word it reads is read atomically (its first guess is -inf), and zeros are
        made +0 first, so the maximum is one value whatever the order."""
        name, v, seen, guess = self.fresh("largest"), self.fresh("value"), self.fresh("seen"), self.fresh("guess")
        self.emit(f"__shared__ unsigned {name};")
        self.emit(f"if (tid == 0u) {name} = 0xff800000u;  // -inf")
        self.emit("__syncthreads();")
        self.emit(f"const float {v} = fmaxf({self.f()}, -1e30f) + 0.0f;  // NaN to -1e30, -0 to +0")
        self.emit(f"unsigned {seen} = 0xff800000u, {guess};")
        self.emit("do {")
        self.nested(lambda: self.emit(f"{guess} = {seen};"), 1)
        self.nested(lambda: self.emit(f"{seen} = atomicCAS(&{name}, {guess}, __float_as_uint(fmaxf({v}, __uint_as_float({guess}))));"), 1)
        self.emit(f"}} while ({seen} != {guess});")
        self.emit("__syncthreads();")
        self.emit(f"{self.f()} = __uint_as_float({name});")
        self.features.add("shared_atomic")

    def s_vector_load(self):
        """Vector and read-only loads, as optimised public kernels write them."""
        r = self.rng
        k = r.below(3)
        if k == 0:
            q = self.fresh("quad")
            self.emit(f"const uint4 {q} = reinterpret_cast<const uint4*>(copied)[gid];")
            self.emit(f"{self.u()} ^= {q}.x + {q}.y * {q}.z - {q}.w;")
        elif k == 1:
            pair = self.fresh("pair")
            self.emit(f"const float2 {pair} = __ldg(reinterpret_cast<const float2*>(copied) + 2u * gid + {r.below(2)}u);")
            self.emit(f"{self.f()} = __fadd_ru({pair}.x, {pair}.y);")
        else:
            self.emit(f"{self.u()} += __ldg(&mine[{r.below(10)}]) ^ __ldcg(&copied[(gid * 4u + {r.below(4)}u)]);")
        self.features.add("vector_load")

    def s_call(self):
        r = self.rng
        k = r.below(4)
        if k == 0:
            self.emit(f"{self.u()} = rotate_mix<unsigned>({self.uop()}, {self.uop()});")
        elif k == 1:
            self.emit(f"{self.f()} = scaled_sum({self.fop()}, {self.fop()}, {self.fop()});")
        elif k == 2:
            a, b = r.pick([("u0", "u1"), ("u1", "u2"), ("u2", "u3"), ("u3", "u0")])
            self.emit(f"order_pair({a}, {b});")
        else:
            self.emit(f"{self.u()} += gcd({self.u()}, {self.uop()});")
        self.features.add("call")

    def s_warp_shared(self):
        """Warp-synchronous exchange through shared memory: __syncwarp orders a warp's lanes."""
        r = self.rng
        name = self.fresh("lanes")
        self.emit(f"__shared__ unsigned {name}[{self.threads}];")
        self.emit(f"{name}[tid] = {self.u()};")
        self.emit("__syncwarp();")
        self.emit(f"{self.u()} += {name}[warp * 32u + (lane ^ {1 + r.below(31)}u)];")
        self.emit("__syncwarp();")
        self.emit(f"{name}[tid] ^= {self.u()};")
        self.emit("__syncwarp();")
        self.emit(f"{self.u()} ^= {name}[warp * 32u + (lane + {r.below(32)}u) % 32u];")
        self.features.add("shared")

    def s_ticket(self):
        """atomicAdd's returned value: the tickets differ by order, their sum does not."""
        name = self.fresh("tickets")
        self.emit(f"__shared__ unsigned {name}[2];")
        self.emit(f"if (tid == 0u) {{ {name}[0] = {self.u()}; {name}[1] = 0u; }}")
        self.emit("__syncthreads();")
        self.emit(f"atomicAdd(&{name}[1], atomicAdd(&{name}[0], 1u) * {self.rng.pick(['1u', '3u', '7u'])});")
        self.emit("__syncthreads();")
        self.emit(f"{self.u()} += {name}[1] ^ {name}[0];")
        self.features.add("shared_atomic")

    def s_global_atomic(self):
        r = self.rng
        if r.chance(0.25) and self.acc_zero_used + 4 <= self.ACC_ZERO:
            at = self.ACC_RANDOM + self.acc_zero_used
            self.acc_zero_used += 4
            k = r.below(3)
            if k == 0:
                self.emit(f"atomicAdd((float*)&acc[{at}u + ({self.uop()} & 3u)], __uint2float_rn({self.u()} & 255u) * 0.5f);")
            elif k == 1:  # doubles of 20 significant bits: every sum of 1024 of them is exact
                self.emit(f"atomicAdd((double*)&acc[{at}u + ({self.uop()} & 1u) * 2u], (double)({self.u()} & 0xfffffu) * 0.125);")
            else:
                self.emit(f"atomicAdd(&acc[{at}u + 1u], atomicAdd(&acc[{at}u], 1u));  // the tickets' sum: the same in every order")
        elif self.acc_random_used + 4 <= self.ACC_RANDOM:
            at = self.acc_random_used
            self.acc_random_used += 4
            fn, typ, arg = self.atomic_call("acc")
            if typ == "unsigned long long":
                self.emit(f"{fn}((unsigned long long*)&acc[{at}u + ({self.uop()} & 1u) * 2u], {arg});")
            else:
                self.emit(f"{fn}(({typ}*)&acc[{at}u + ({self.uop()} & 3u)], {arg});")
        else:
            return
        self.features.add("global_atomic")

    def s_global_exchange(self):
        """One writer per word of global memory, read by another thread of the block after a barrier."""
        at = 64 + self.scratch_regions * self.total
        self.scratch_regions += 1
        r = self.rng
        self.emit(f"acc[{at}u + gid] = {self.u()};")
        self.emit("__syncthreads();")
        self.emit(f"{self.u()} += acc[{at}u + blockIdx.x * nt + (tid * {r.pick([3, 5, 7])}u + {r.below(64)}u) % nt];")
        self.features.add("global")

    def s_fence_reduction(self):
        """The threadfence reduction: each block's sum, then the last block adds them in block order."""
        if self.fence_reduction or self.acc_zero_used + 2 > self.ACC_ZERO:
            return
        self.fence_reduction = True
        counter, result = self.ACC_RANDOM + self.acc_zero_used, self.ACC_RANDOM + self.acc_zero_used + 1
        self.acc_zero_used += 2
        partials = 64 + self.scratch_regions * self.total
        self.scratch_regions += 1
        name = self.fresh("sum")
        self.emit(f"__shared__ unsigned {name}[{self.threads}];")
        self.emit(f"__shared__ bool {name}_last;")
        self.emit(f"{name}[tid] = {self.u()};")
        self.emit("__syncthreads();")
        self.emit("for (unsigned m = nt; m > 1u; m = (m + 1u) / 2u) {  // m sums left; an odd one out waits a round")
        self.nested(lambda: self.emit(f"if (tid < m / 2u) {name}[tid] += {name}[tid + (m + 1u) / 2u];"), 1)
        self.nested(lambda: self.emit("__syncthreads();"), 1)
        self.emit("}")
        self.emit("if (tid == 0u) {")
        self.nested(lambda: [self.emit(f"acc[{partials}u + blockIdx.x] = {name}[0];"), self.emit("__threadfence();"),
                             self.emit(f"{name}_last = atomicAdd(&acc[{counter}u], 1u) == gridDim.x - 1u;")], 1)
        self.emit("}")
        self.emit("__syncthreads();")
        self.emit(f"if ({name}_last && tid == 0u) {{")
        self.nested(lambda: [self.emit("unsigned all = 0u;"),
                             self.emit(f"for (unsigned b = 0u; b < gridDim.x; ++b) all = all * 31u + ((volatile unsigned*)acc)[{partials}u + b];"),
                             self.emit(f"acc[{result}u] = all;")], 1)
        self.emit("}")
        self.features.add("fence")

    def s_cp_async(self):
        r = self.rng
        name = self.fresh("staged")
        k = r.below(4)
        if k <= 1:
            words = r.pick([1, 2, 4])
            self.emit(f"__shared__ alignas(16) unsigned {name}[{self.threads * words}];")
            self.emit(f"__pipeline_memcpy_async(&{name}[tid * {words}u], &copied[gid * 4u], {words * 4}u);")
            self.emit("__pipeline_commit();")
            if k == 1:  # a second stage, waited for after the first is used
                second = self.fresh("staged")
                self.emit(f"__shared__ alignas(16) unsigned {second}[{self.threads}];")
                self.emit(f"__pipeline_memcpy_async(&{second}[tid], &copied[gid * 4u + 3u], 4u);")
                self.emit("__pipeline_commit();")
                self.emit("__pipeline_wait_prior(1);")
                self.emit("__syncthreads();")
                self.emit(f"{self.u()} ^= {name}[((tid + {r.below(64)}u) % nt) * {words}u + {r.below(words)}u];")
                self.emit("__pipeline_wait_prior(0);")
                self.emit("__syncthreads();")
                self.emit(f"{self.u()} += {second}[(tid * 5u + 1u) % nt];")
            else:
                self.emit("__pipeline_wait_prior(0);")
                self.emit("__syncthreads();")
                self.emit(f"{self.u()} ^= {name}[((tid + {r.below(64)}u) % nt) * {words}u + {r.below(words)}u];")
        elif k == 2:
            self.emit(f"__shared__ alignas(16) unsigned {name}[{self.threads}];")
            self.emit("cg::thread_block block = cg::this_thread_block();")
            self.emit(f"cg::memcpy_async(block, {name}, copied + blockIdx.x * nt * 4u + {4 * r.below(3)}u, sizeof(unsigned) * nt);")
            self.emit("cg::wait(block);")
            self.emit(f"{self.u()} += {name}[(tid + {r.below(64)}u) % nt];")
        else:
            bar = self.fresh("arrived")
            self.emit(f"__shared__ alignas(16) unsigned {name}[{self.threads}];")
            self.emit(f"__shared__ cuda::barrier<cuda::thread_scope_block> {bar};")
            self.emit(f"if (tid == 0u) init(&{bar}, nt);")
            self.emit("__syncthreads();")
            self.emit(f"cuda::memcpy_async(cg::this_thread_block(), {name}, copied + blockIdx.x * nt * 4u + {4 * r.below(3)}u, "
                      f"cuda::aligned_size_t<16>(sizeof(unsigned) * nt), {bar});")
            self.emit(f"{bar}.arrive_and_wait();")
            self.emit(f"{self.f()} = __fadd_rd({self.f()}, __uint_as_float({name}[(tid * 3u) % nt]));")
        self.emit("__syncthreads();")
        self.features.add("cp_async")

    def nested(self, body, levels):
        self.depth += levels
        body()
        self.depth -= levels

    STATEMENTS = [
        ("s_int", 10), ("s_float", 10), ("s_convert", 6), ("s_double", 3), ("s_constant", 2), ("s_approx", 1),
        ("s_branch", 4), ("s_switch", 1), ("s_loop", 3), ("s_while", 1), ("s_local", 2), ("s_shuffle", 4),
        ("s_warp_reduce", 2), ("s_vote", 3), ("s_redux", 2), ("s_masked", 2), ("s_tile", 2), ("s_shared_exchange", 3),
        ("s_tile2d", 1), ("s_block_reduce", 1), ("s_sync_count", 1), ("s_shared_atomic", 3), ("s_ticket", 1),
        ("s_global_atomic", 3), ("s_global_exchange", 1), ("s_fence_reduction", 1), ("s_cp_async", 2), ("s_cas_max", 1),
        ("s_vector_load", 1), ("s_call", 2), ("s_warp_shared", 1),
    ]

    # Statements that declare shared memory: at most MAX_SHARED_STATEMENTS of them, each
    # under 5 KB (a 256-thread block's 4 words a thread and one more), keep a kernel
    # well under the 48 KB of static shared memory a block may declare.
    SHARED_STATEMENTS = {"s_shared_exchange", "s_tile2d", "s_warp_shared", "s_block_reduce", "s_shared_atomic", "s_ticket", "s_cas_max",
                         "s_fence_reduction", "s_cp_async"}
    MAX_SHARED_STATEMENTS = 6

    def statement(self):
        total = sum(w for _, w in self.STATEMENTS)
        k = self.rng.below(total)
        for name, weight in self.STATEMENTS:
            if k < weight:
                if name in self.SHARED_STATEMENTS:
                    if self.shared_statements == self.MAX_SHARED_STATEMENTS:
                        name = "s_int"
                    else:
                        self.shared_statements += 1
                self.emit(f"{{  // {name[2:]}")
                self.nested(getattr(self, name), 1)
                self.emit("}")
                return
            k -= weight

    # --- the whole kernel -------------------------------------------------------------
    def source(self):
        for _ in range(8 + self.rng.below(14)):
            self.statement()
        body = self.lines
        words = self.WORDS_PER_THREAD
        head = [
            f"__global__ void __launch_bounds__(256) {self.name}(const unsigned* __restrict__ in, unsigned* __restrict__ out, unsigned* acc)",
            "{",
            "    const unsigned nt = blockDim.x * blockDim.y;  // threads in the block: whole warps",
            "    const unsigned tid = threadIdx.y * blockDim.x + threadIdx.x;",
            "    const unsigned gid = blockIdx.x * nt + tid, total = gridDim.x * nt;",
            "    [[maybe_unused]] const unsigned lane = tid % warpSize, warp = tid / warpSize;",
            f"    const unsigned* mine = in + gid * {words}u;",
            f"    [[maybe_unused]] const unsigned* copied = in + total * {words}u;  // 4 words a thread for the asynchronous copies",
            "    unsigned u0 = mine[0], u1 = mine[1], u2 = mine[2], u3 = mine[3];",
            "    float f0 = __uint_as_float(mine[4]), f1 = __uint_as_float(mine[5]), f2 = __uint_as_float(mine[6]), f3 = __uint_as_float(mine[7]);",
            "    double d0 = __hiloint2double((int)(mine[8] & 0xbfffffffu), (int)mine[9]);",
        ]
        if self.dynamic_words:
            head.append("    extern __shared__ unsigned dynamic[];")
        tail = [
            "    out[0u * total + gid] = u0;",
            "    out[1u * total + gid] = u1;",
            "    out[2u * total + gid] = u2;",
            "    out[3u * total + gid] = u3;",
            "    out[4u * total + gid] = __float_as_uint(f0);",
            "    out[5u * total + gid] = __float_as_uint(f1);",
            "    out[6u * total + gid] = __float_as_uint(f2);",
            "    out[7u * total + gid] = __float_as_uint(f3);",
            "    out[8u * total + gid] = (unsigned)__double2loint(d0);",
            "    out[9u * total + gid] = (unsigned)__double2hiint(d0);",
            "}",
        ]
        return "\n".join(head + body + tail) + "\n"

    def manifest(self):
        return {
            "index": self.index, "name": self.name, "seed": self.seed, "grid": self.grid, "block": list(self.block),
            "in_words": self.total * (self.WORDS_PER_THREAD + 4),
            "out_words": self.total * (self.EXACT_SLOTS + len(self.approx)),
            "acc_words": 64 + self.scratch_regions * self.total, "dynamic_bytes": 4 * self.dynamic_words * self.threads,
            "threads": self.total, "approx": [[slot, name] for slot, name in self.approx], "features": sorted(self.features),
            "float_slots": self.FLOAT_SLOTS,
        }


PRELUDE = r"""// Generated by tests/differential/generate.py (%ORIGIN%): do not edit.
// Run: prog RESULTS [FIRST]: runs kernels FIRST.. in turn, each on its seeded input, appending to RESULTS
// a record per kernel (magic, index, status, word count, then out's and acc's words).
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda/atomic>
#include <cuda/barrier>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;
#pragma nv_diag_suppress static_var_with_dynamic_init  // __shared__ cuda::barrier, as CUDA's own samples declare it

__constant__ unsigned table[64];

// Device functions kept out of line, as calls (parameters, a return value, a
// reference into a caller's local variables, recursion on the stack).
template <typename T>
__device__ __noinline__ T rotate_mix(T a, T b)
{
    return ((a << 5) | (a >> (8 * sizeof(T) - 5))) ^ b;
}

__device__ __noinline__ float scaled_sum(float a, float b, float scale)
{
    return __fmaf_rn(a, scale, b);
}

__device__ __noinline__ void order_pair(unsigned& low, unsigned& high)
{
    if (low > high) {
        const unsigned t = low;
        low = high;
        high = t;
    }
}

__device__ __noinline__ unsigned gcd(unsigned a, unsigned b)
{
    return b == 0u ? a : gcd(b, a % b);
}

"""

HOST = r"""
struct Case {
    void (*kernel)(const unsigned*, unsigned*, unsigned*);
    const char* name;
    unsigned long long seed;
    dim3 grid, block;
    unsigned dynamic_bytes, in_words, out_words, acc_words;
};

static const Case cases[] = {
%CASES%
};

// SplitMix64 (Vigna): the inputs, the same on every machine.
static unsigned long long next(unsigned long long& state)
{
    unsigned long long z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// A word of input: floats of moderate size, small and random integers, and special values.
static unsigned input_word(unsigned long long& state)
{
    static const unsigned special[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f812345u,
                                       0x00000001u, 0x807fffffu, 0x7f7fffffu, 0x3f800000u, 0xbf800000u, 0xffffffffu,
                                       0x7fffffffu, 0x4b000001u, 0x3effffffu, 0x00800000u};
    const unsigned long long r = next(state);
    const unsigned kind = unsigned(r % 100), bits = unsigned(r >> 32);
    if (kind < 40) return (bits & 0x807fffffu) | ((127u - 10u + (bits >> 8) % 21u) << 23);  // +-2^-10 .. 2^10
    if (kind < 55) return (bits & 0x807fffffu) | ((127u - 60u + (bits >> 8) % 121u) << 23);  // +-2^-60 .. 2^60
    if (kind < 70) return bits % 512u - 256u;
    if (kind < 90) return bits;
    if (kind < 95) return bits & 0x807fffffu;  // subnormal
    return special[bits % 16u];
}

#define CHECK(call)                                                                                   \
    do {                                                                                              \
        const cudaError_t e = (call);                                                                 \
        if (e != cudaSuccess) {                                                                       \
            std::fprintf(stderr, "kernel %u (%s): %s: %s\n", index, c.name, #call, cudaGetErrorString(e)); \
            std::exit(3);                                                                             \
        }                                                                                             \
    } while (0)

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s RESULTS [FIRST]\n", argv[0]);
        return 2;
    }
    const unsigned count = sizeof(cases) / sizeof(cases[0]), first = argc > 2 ? unsigned(std::atoi(argv[2])) : 0u;
    FILE* results = std::fopen(argv[1], first == 0u ? "wb" : "ab");
    if (!results) {
        std::fprintf(stderr, "cannot write %s\n", argv[1]);
        return 2;
    }
    for (unsigned index = first; index < count; ++index) {
        const Case& c = cases[index];
        unsigned long long state = c.seed;
        std::vector<unsigned> in(c.in_words), out(c.out_words, 0xa5a5a5a5u), acc(c.acc_words, 0u), consts(64);
        for (unsigned& w : consts) w = input_word(state);
        for (unsigned& w : in) w = input_word(state);
        for (unsigned i = 0; i < 32u; ++i) acc[i] = input_word(state);
        unsigned *d_in, *d_out, *d_acc;
        CHECK(cudaMemcpyToSymbol(table, consts.data(), sizeof(unsigned) * 64));
        CHECK(cudaMalloc(&d_in, sizeof(unsigned) * c.in_words));
        CHECK(cudaMalloc(&d_out, sizeof(unsigned) * c.out_words));
        CHECK(cudaMalloc(&d_acc, sizeof(unsigned) * c.acc_words));
        CHECK(cudaMemcpy(d_in, in.data(), sizeof(unsigned) * c.in_words, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(d_out, out.data(), sizeof(unsigned) * c.out_words, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(d_acc, acc.data(), sizeof(unsigned) * c.acc_words, cudaMemcpyHostToDevice));
        c.kernel<<<c.grid, c.block, c.dynamic_bytes>>>(d_in, d_out, d_acc);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(out.data(), d_out, sizeof(unsigned) * c.out_words, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(acc.data(), d_acc, sizeof(unsigned) * c.acc_words, cudaMemcpyDeviceToHost));
        CHECK(cudaFree(d_in));
        CHECK(cudaFree(d_out));
        CHECK(cudaFree(d_acc));
        const unsigned header[4] = {0x46464944u, index, 0u, c.out_words + c.acc_words};  // "DIFF"
        std::fwrite(header, sizeof(unsigned), 4, results);
        std::fwrite(out.data(), sizeof(unsigned), out.size(), results);
        std::fwrite(acc.data(), sizeof(unsigned), acc.size(), results);
        std::fflush(results);
    }
    std::fclose(results);
    return 0;
}
"""


def batch(seed, first, count, simd=False):
    """The program of kernels first..first+count-1 of the run seeded `seed`, and their manifests."""
    return program([Kernel(seed, first + i, simd) for i in range(count)], f"seed {seed}, kernels {first} to {first + count - 1}")


def program(kernels, origin, definitions=""):
    """One program running `kernels` in turn (their manifests too); `origin` says in its first
    line which they are, `definitions` go before the kernels."""
    sources = [k.source() for k in kernels]
    manifests = [k.manifest() for k in kernels]
    cases = ",\n".join(
        f"    {{{m['name']}, \"{m['name']}\", 0x{m['seed']:016x}ull, dim3({m['grid']}), dim3({m['block'][0]}, {m['block'][1]}), "
        f"{m['dynamic_bytes']}u, {m['in_words']}u, {m['out_words']}u, {m['acc_words']}u}}" for m in manifests)
    text = PRELUDE.replace("%ORIGIN%", origin) + definitions + "\n".join(sources) + HOST.replace("%CASES%", cases)
    return text, manifests


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--out", required=True, help="the program's .cu file")
    p.add_argument("--manifest", help="the kernels' manifests (JSON)")
    p.add_argument("--simd", action="store_true", help="the integer SIMD intrinsics and min/max.NaN in the mix too")
    a = p.parse_args(argv)
    if a.count < 1 or a.first < 0 or a.seed < 0:
        p.error("--count must be at least 1, --first and --seed not negative")
    text, manifests = batch(a.seed, a.first, a.count, a.simd)
    with open(a.out, "w") as f:
        f.write(text)
    if a.manifest:
        with open(a.manifest, "w") as f:
            json.dump(manifests, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
