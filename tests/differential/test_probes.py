#!/usr/bin/env python3
"""The probes (probes/*.cu: standalone programs that show where an H100's words part
from PTX's rules) run under `warplab run`: each prints "as PTX says" for every case
and its last line "NAME: 0 of K cases differ from PTX", and exits 0; built with
-DPROBE_CHECK_FLIP=1u (its check expecting one word a case a bit off) every case
differs and it exits 1, so the check can fail. Each probe's words are derived by
hand in its comment.

    test_probes.py --warplab build/warplab

Prints "needs nvcc" and succeeds (CTest: skipped) without the CUDA toolkit.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROBES = sorted(glob.glob(os.path.join(HERE, "probes", "*.cu")))
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAILED: ") + what)
    if not ok:
        failures.append(what)


def program_output(text):
    """The program's own lines: warplab's launch report starts at "warplab: N kernel launches"."""
    lines = []
    for line in text.splitlines():
        if re.match(r"warplab: \d+ kernel launch", line):
            break
        if line.strip() and not line.startswith("warplab: "):
            lines.append(line)
    return lines


def run_probe(warplab, probe, defines=()):
    proc = subprocess.run([warplab, "run", probe, *defines], capture_output=True, text=True, timeout=240)
    return proc.returncode, program_output(proc.stdout + proc.stderr)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--warplab", required=True)
    a = p.parse_args(argv)
    if not shutil.which("nvcc") and not os.path.exists("/usr/local/cuda/bin/nvcc"):
        print("needs nvcc: the probes are built by warplab run with nvcc")
        return 0
    check(len(PROBES) >= 2, f"{len(PROBES)} probes in probes/")
    for probe in PROBES:
        name = os.path.basename(probe)[:-3]
        status, lines = run_probe(a.warplab, probe)
        verdicts = [l for l in lines if l.endswith("as PTX says") or "DIFFERS from PTX" in l]
        summary = re.match(rf"{name}: (\d+) of (\d+) cases differ from PTX$", lines[-1]) if lines else None
        cases = int(summary.group(2)) if summary else -1
        check(status == 0 and summary is not None and summary.group(1) == "0" and len(verdicts) == cases
              and all(l.endswith("as PTX says") for l in verdicts),
              f"{name}: every one of its {cases} cases as PTX says under warplab run (exit {status})")
        if status != 0 or not summary:
            print("\n".join(lines))
        status, lines = run_probe(a.warplab, probe, ["-D", "PROBE_CHECK_FLIP=1u"])
        flipped = [l for l in lines if "DIFFERS from PTX" in l]
        check(status == 1 and len(flipped) == cases and bool(lines) and lines[-1] == f"{name}: {cases} of {cases} cases differ from PTX",
              f"{name}: with its expected words a bit off, all {cases} cases differ (exit {status})")
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
