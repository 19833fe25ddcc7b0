#!/usr/bin/env python3
"""scripts/ncu_mix.py without a GPU: its reading of ncu's per-opcode counts
(an instanced metric) and its verdict per group: equal or within 3 % passes,
over it fails, and the groups that differ by design are recorded, not compared."""
import glob
import os
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(REPO, "scripts"))
sys.dont_write_bytecode = True  # no __pycache__ in scripts/
import ncu_mix as m  # noqa: E402

HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
          '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n')


class OpcodeCounts(unittest.TestCase):
    def test_instances_sum_by_first_word(self):
        # MUFU.SIN and MUFU.EX2 are both the special-function unit's: 32 + 64 = 96.
        self.assertEqual(m.opcode_counts("FFMA: 1,024; MUFU.SIN: 32; MUFU.EX2: 64; IMAD: 7"),
                         {"FFMA": 1024.0, "MUFU": 96.0, "IMAD": 7.0})

    def test_csv_launches(self):
        text = HEADER + ('"0","1","t","h","void k(float *)","1","7","(256, 1, 1)","(4, 1, 1)","0","9.0","s",'
                         f'"{m.OPCODE_METRIC}","","FFMA: 4,096; LDG: 128"\n')
        launch = m.parse_ncu_csv(text)[0]
        self.assertEqual(launch["blocks"], 4)
        self.assertEqual(launch["opcodes"], {"FFMA": 4096.0, "LDG": 128.0})


class Verdicts(unittest.TestCase):
    def test_within_and_over_the_tolerance(self):
        # FP32: warplab 100 against FFMA 98 + FADD 0: 2 % -> within; loads 32 against 30: 6.25 % -> over.
        rows = m.group_rows({"fp32": 100, "ld.global": 32, "integer": 9}, m.ncu_groups({"FFMA": 98.0, "LDG": 30.0, "IMAD": 40.0}), 0.03)
        self.assertTrue(rows["fp32"]["within"])
        self.assertFalse(rows["ld.global"]["within"])
        self.assertFalse(rows["integer"]["compared"])  # recorded, whatever its difference
        self.assertNotIn("fp64", rows)                 # neither side has any

    def test_texture_fetches_are_compared(self):
        # A 1D fetch's TLD and a 2D fetch's TEX, 32 each, against warplab's 64 tex: equal. A TXQ (a
        # texture query, not a fetch) is no tex: 64 against 64 + 0 still.
        rows = m.group_rows({"tex": 64}, m.ncu_groups({"TLD": 32.0, "TEX": 32.0, "TXQ": 5.0}), 0.03)
        self.assertTrue(rows["tex"]["compared"])
        self.assertTrue(rows["tex"]["within"])
        # A gather's TLD4 counts too: 64 against 32 + 40 = 72 is 11 % over.
        self.assertFalse(m.group_rows({"tex": 64}, m.ncu_groups({"TLD": 32.0, "TLD4": 40.0}), 0.03)["tex"]["within"])

    def test_under_half_an_instruction_passes(self):
        # 3 against 3.4 per block: 12 % but under half an instruction (a grid's last partial block).
        self.assertTrue(m.group_rows({"special": 3}, m.ncu_groups({"MUFU": 3.4}), 0.03)["special"]["within"])


class NcuLog(unittest.TestCase):
    # ncu's --log-file begins with "==PROF==" lines naming the target's folder on
    # the machine it ran on: the scripts keep the CSV alone, and so do the records.
    def test_the_log_is_kept_to_its_csv(self):
        row = '"0","1","t","h","void k(float *)","1","7","(256, 1, 1)","(4, 1, 1)","0","9.0","s","m","","1"\n'
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "ncu_mix_k.csv")
            with open(path, "w") as f:
                f.write("==PROF== Connected to process 7 (/somewhere/build/warplab_ncu_target)\n"
                        "==PROF== Disconnected from process 7\n" + HEADER + row)
            self.assertEqual(m.fidelity.csv_alone(path), HEADER + row)
            with open(path) as f:
                self.assertEqual(f.read(), HEADER + row)

    def test_the_records_name_no_folder(self):
        records = glob.glob(os.path.join(REPO, "results", "**", "ncu_*.csv"), recursive=True)
        self.assertTrue(records)
        for path in records:
            with open(path) as f:
                self.assertTrue(f.read().startswith('"ID"'), os.path.relpath(path, REPO))


if __name__ == "__main__":
    unittest.main()
