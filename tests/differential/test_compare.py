#!/usr/bin/env python3
"""The differential comparison on words made by hand: what it must catch (a
flipped bit, a float result one ulp off, a NaN's payload in an integer word, a
NaN for a number, an approximation past its tolerance), what it must let pass
(another NaN in a float slot, an approximation within its tolerance), and the
generator's determinism."""
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

# A kernel of 2 blocks of 32 threads (64 threads): 10 exact slots (f0..f3 floats,
# d0 a double in slots 8 and 9, as the generator writes them), then slot 10
# approximating __sinf, slot 11 expf; 8 words of acc.
MANIFEST = {"index": 7, "name": "diff_7", "grid": 2, "block": [32, 1], "threads": 64, "out_words": 12 * 64,
            "acc_words": 8, "approx": [[10, "__sinf"], [11, "expf"]], "float_slots": generate.Kernel.FLOAT_SLOTS}
F1, F2, D0_LO, D0_HI, ACC = 5 * 64, 6 * 64, 8 * 64, 9 * 64, 12 * 64  # the first word of each
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

    def differences(self, gpu, emu, summary=None):
        """The mismatches with the GPU's words in full, and with its digests alone (as in CI);
        both ways must agree on which regions differ."""
        summary = summary or d.summary(MANIFEST, gpu)
        full, digests = d.compare(MANIFEST, summary, emu, gpu), d.compare(MANIFEST, summary, emu)
        self.assertEqual([l.split(":")[1] for l in full], [l.split(":")[1].split(" differs")[0] for l in digests])
        return full

    def test_a_nan_payload_in_an_integer_word_is_a_difference(self):
        gpu, emu = words(), words()
        gpu[1 * 64], emu[1 * 64] = 0x7FFFFFFF, 0x7FC00000  # u1 of thread 0: NaN bits, but an integer slot
        got = self.differences(gpu, emu)
        self.assertEqual(len(got), 1)
        self.assertIn("u1: 1 of 64 words differ", got[0])
        gpu[ACC + 2], emu[ACC + 2] = 0xFFFFFFFF, 0x7FFFFFFF  # acc[2]: integer words, whatever their bits
        self.assertIn("acc: 1 of 8 words differ; first at word 2", self.differences(gpu, emu)[1])

    def test_another_nan_in_a_float_slot_passes(self):
        # PTX: single-precision instructions return an unspecified NaN; which of two NaN operands a
        # double instruction keeps is open. f1 of thread 0 and f2 of thread 9: the canonical NaN
        # against a quiet NaN of either sign; d0 of thread 3: kernel 52's words (the GPU kept a NaN
        # with a payload, 0xffffffee40000000, the emulator the default 0x7ff8000000000000).
        gpu, emu = words(), words()
        gpu[F1], emu[F1] = 0x7FFFFFFF, 0xFFC00000
        gpu[F2 + 9], emu[F2 + 9] = 0xFFFFFFFF, 0x7FC00001
        gpu[D0_LO + 3], gpu[D0_HI + 3] = 0x40000000, 0xFFFFFFEE
        emu[D0_LO + 3], emu[D0_HI + 3] = 0x00000000, 0x7FF80000
        self.assertEqual(self.differences(gpu, emu), [])
        named = []
        d.compare(MANIFEST, d.summary(MANIFEST, gpu), emu, nan_only=named)
        self.assertEqual([l.split(": ")[1] for l in named], ["f1", "f2", "d0.lo", "d0.hi"])
        self.assertIn("diff_7 (kernel 7): f1: another NaN than the GPU's, which PTX leaves unspecified", named[0])

    def test_a_float_result_one_ulp_off_fails(self):
        gpu, emu = words(), words()
        gpu[F1 + 40], emu[F1 + 40] = ONE, ONE + 1  # f1 of gid 40: block 1, thread 8; 1.0f against the next float
        got = self.differences(gpu, emu)
        self.assertEqual(len(got), 1)
        self.assertIn("f1: 1 of 64 words differ; first at block 1, thread (8,0): gpu 0x3f800000, emulator 0x3f800001", got[0])
        # beside another NaN in the same slot, it is still named
        gpu[F1], emu[F1] = 0x7FFFFFFF, 0x7FC00000
        self.assertIn("f1: 1 of 64 words differ; first at block 1, thread (8,0)", self.differences(gpu, emu)[0])

    def test_a_nan_for_a_number_fails(self):
        gpu, emu = words(), words()
        gpu[F2 + 4], emu[F2 + 4] = 0x7FFFFFFF, 0x00000000  # f2: NaN against 0.0
        self.assertIn("f2: 1 of 64 words differ", self.differences(gpu, emu)[0])
        gpu[F2 + 4], emu[F2 + 4] = 0x7F800000, 0x7F800001  # infinity against a NaN
        self.assertIn("f2: 1 of 64 words differ", self.differences(gpu, emu)[0])

    def test_a_double_compares_as_one_value(self):
        gpu, emu = words(), words()
        gpu[D0_LO + 6], gpu[D0_HI + 6] = 0x40000000, 0x3FF00000  # 1.0 plus 2^-22: a number
        emu[D0_LO + 6], emu[D0_HI + 6] = 0x00000000, 0x3FF00000  # 1.0
        got = self.differences(gpu, emu)
        self.assertEqual(len(got), 1)
        self.assertIn("d0.lo: 1 of 64 words differ; first at block 0, thread (6,0)", got[0])
        # the high words of a NaN and of an infinity are the same, the low ones tell them apart
        gpu[D0_LO + 6], gpu[D0_HI + 6] = 0x00000001, 0x7FF00000  # a signalling NaN
        emu[D0_LO + 6], emu[D0_HI + 6] = 0x00000000, 0x7FF00000  # infinity
        self.assertIn("d0.lo: 1 of 64 words differ", self.differences(gpu, emu)[0])

    def test_a_recording_without_nan_blind_digests_compares_bit_for_bit(self):
        # an expected file recorded before the digests existed cannot tell a NaN from another
        gpu, emu = words(), words()
        gpu[F1], emu[F1] = 0x7FFFFFFF, 0xFFC00000
        old = d.summary(MANIFEST, gpu)
        del old["nan_blind"]
        self.assertIn("f1 differs from the GPU's", d.compare(MANIFEST, old, emu)[0])

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
