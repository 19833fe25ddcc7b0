#!/usr/bin/env python3
"""The differential comparison on words made by hand: what it must catch (a
flipped bit, another NaN payload, an approximation past its tolerance), what it
must let pass (an approximation within it), and the generator's determinism."""
import array
import json
import os
import struct
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import differential as d  # noqa: E402
import generate  # noqa: E402

# A kernel of 2 blocks of 32 threads (64 threads): 10 exact slots, then slot 10
# approximating __sinf, slot 11 expf; 8 words of acc.
MANIFEST = {"index": 7, "name": "diff_7", "grid": 2, "block": [32, 1], "threads": 64, "out_words": 12 * 64,
            "acc_words": 8, "approx": [[10, "__sinf"], [11, "expf"]]}
HALF, ONE = 0x3F000000, 0x3F800000  # 0.5f and 1.0f


def words():
    rng = generate.SplitMix64(42)
    w = array.array("I", (rng.next() & 0xFFFFFFFF for _ in range(12 * 64 + 8)))
    w[10 * 64 + 5] = HALF  # __sinf's result at thread 5
    w[11 * 64 + 9] = ONE  # expf's at thread 9
    return w


def float_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


class Compare(unittest.TestCase):
    def mismatches(self, emu, full=True):
        gpu = words()
        return d.compare(MANIFEST, d.summary(MANIFEST, gpu), emu, gpu if full else None)

    def test_equal_words_pass(self):
        self.assertEqual(self.mismatches(words()), [])
        self.assertEqual(self.mismatches(words(), full=False), [])

    def test_a_flipped_bit_is_named_with_its_thread(self):
        emu = words()
        emu[2 * 64 + 37] ^= 1 << 17  # u2 (slot 2) of gid 37: block 1 (32 threads a block), thread 37 - 32 = 5
        got = self.mismatches(emu)
        self.assertEqual(len(got), 1)
        self.assertIn("diff_7 (kernel 7): u2: 1 of 64 words differ; first at block 1, thread (5,0)", got[0])
        self.assertEqual(self.mismatches(emu, full=False)[0].split(" (digest")[0], "diff_7 (kernel 7): u2 differs from the GPU's")

    def test_a_nan_payload_is_a_difference(self):
        gpu, emu = words(), words()
        gpu[5 * 64], emu[5 * 64] = 0x7FFFFFFF, 0x7FC00000  # f1 of thread 0: the GPU's canonical NaN, another NaN
        got = d.compare(MANIFEST, d.summary(MANIFEST, gpu), emu, gpu)
        self.assertEqual(len(got), 1)
        self.assertIn("f1: 1 of 64 words differ", got[0])

    def test_acc_is_compared(self):
        emu = words()
        emu[12 * 64 + 3] += 1  # acc[3]
        self.assertIn("acc: 1 of 8 words differ; first at word 3", self.mismatches(emu)[0])

    def test_absolute_tolerance(self):
        # __sinf: 2^-20.41 (twice the guide's 2^-21.41); 0.5 + 2^-22 is within, 0.5 + 2^-19 is not
        emu = words()
        emu[10 * 64 + 5] = float_bits(0.5 + 2.0 ** -22)
        self.assertEqual(self.mismatches(emu), [])
        emu[10 * 64 + 5] = float_bits(0.5 + 2.0 ** -19)
        got = self.mismatches(emu)
        self.assertEqual(len(got), 1)
        self.assertIn("approximate __sinf (slot 10): 1 of 64 words beyond the tolerance; first at block 0, thread (5,0)", got[0])

    def test_ulp_tolerance(self):
        # expf: 4 ulp; 1.0f's bits + 4 are 4 floats above it, + 5 are 5
        emu = words()
        emu[11 * 64 + 9] = ONE + 4
        self.assertEqual(self.mismatches(emu), [])
        emu[11 * 64 + 9] = ONE + 5
        self.assertEqual(len(self.mismatches(emu)), 1)

    def test_ulp_distance_crosses_zero(self):
        self.assertEqual(d.ordered(0x80000000), d.ordered(0))  # -0 and +0
        self.assertEqual(d.ordered(0x00000001) - d.ordered(0x80000001), 2)  # -denorm_min to +denorm_min
        self.assertTrue(d.approx_equal("expf", 0x7FC00000, 0x7FFFFFFF))  # NaN for NaN
        self.assertFalse(d.approx_equal("expf", 0x7FC00000, ONE))

    def test_records_cut_short_are_left_out(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "r.bin")
            with open(path, "wb") as f:
                f.write(struct.pack("<4I2I", d.MAGIC, 0, 0, 2, 11, 12))
                f.write(struct.pack("<4I1I", d.MAGIC, 1, 0, 1, 13))
                f.write(struct.pack("<4I1I", d.MAGIC, 2, 0, 3, 14))  # 3 words promised, 1 written: a crash
            self.assertEqual({i: list(w) for i, w in d.read_records(path).items()}, {0: [11, 12], 1: [13]})


class Generator(unittest.TestCase):
    def test_splitmix64(self):
        # SplitMix64 from state 0: the first output, as Vigna's reference code gives it
        self.assertEqual(generate.SplitMix64(0).next(), 0xE220A8397B1DCDAF)

    def test_a_kernel_does_not_depend_on_its_batch(self):
        # kernel 2 of seed 5 is the same alone as in a batch of 0..3: CI's first kernels are the GPU run's
        alone, in_batch = generate.Kernel(5, 2), generate.Kernel(5, 2)
        self.assertEqual(alone.source(), in_batch.source())
        text_a, manifests_a = generate.batch(5, 2, 1)
        text_b, manifests_b = generate.batch(5, 0, 4)
        self.assertEqual(manifests_a[0], manifests_b[2])
        self.assertNotEqual(generate.Kernel(5, 3).source(), generate.Kernel(6, 3).source())

    def test_simd_is_opt_in(self):
        # Without --simd a seed gives the kernels the GPU recorded (expected/h100.json's first batch
        # digest); with it the same seed mixes in the SIMD intrinsics and min/max.NaN.
        with open(os.path.join(HERE, "expected", "h100.json")) as f:
            recorded = json.load(f)["sources"]["0"]
        with tempfile.TemporaryDirectory() as work:
            self.assertEqual(d.write_batch(1, 0, 100, work)[2], recorded)
        plain, simd = generate.batch(1, 0, 100)[0], generate.batch(1, 0, 100, simd=True)[0]
        names = ["__dp4a", "__dp2a", "__vabsdiff", "__vsub2", "__vadd2", "__vminu2", "__vmaxs2", "__vmins2", "_nan("]
        self.assertFalse(any(n in plain for n in names))
        self.assertTrue(any(n in simd for n in names))

    def test_batches_cover_the_run(self):
        self.assertEqual(d.batches(250), [(0, 100), (100, 100), (200, 50)])


if __name__ == "__main__":
    unittest.main()
