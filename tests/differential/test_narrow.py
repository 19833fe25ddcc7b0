#!/usr/bin/env python3
"""narrow.py finds the statement where two runs part: the emulator against itself,
with words altered by hand in one copy of its steps.

    test_narrow.py --warplab build/warplab --work DIR

Prints "needs nvcc" and succeeds (CTest: skipped) without the CUDA toolkit.
"""
import argparse
import gzip
import json
import os
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate  # noqa: E402
import narrow  # noqa: E402

SEED, KERNEL = 1, 3104  # 64 threads, 21 statements: floats, shared memory, tiles, votes
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAILED: ") + what)
    if not ok:
        failures.append(what)


def stepped_sources_keep_the_statements():
    """The stepped kernels, their step stores left out, are the generator's kernels to the byte."""
    for index in range(40):
        plain, stepped = generate.Kernel(SEED, index), narrow.SteppedKernel(SEED, index)
        stepped_text = stepped.source()
        kept = "\n".join(l for l in stepped_text.split("\n") if narrow.STEP_MARK not in l)
        m = stepped.manifest()
        if kept != plain.source() or m["steps"] != len(m["statements"]) + 1 or stepped_text.count(narrow.STEP_MARK) != m["steps"]:
            check(False, f"kernel {index}: the stepped source is the generator's with a store after each statement")
            return
    check(True, "40 stepped kernels less their step stores are the generator's kernels")


def run(*args):
    proc = subprocess.run([sys.executable, os.path.join(HERE, "narrow.py"), *args], capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


def altered(source, target, changes):
    """A copy of run `source` in `target` with step words set: changes is [(step, slot, gid, word)]."""
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target)
    with open(os.path.join(target, "narrow.json")) as f:
        m = json.load(f)["manifests"][0]
    with gzip.open(os.path.join(target, "narrow.bin.gz")) as f:
        data = bytearray(f.read())
    for step, slot, gid, word in changes:
        at = 16 + 4 * (m["out_words"] + m["step_base"] + (step * narrow.STEP_WORDS + slot) * m["threads"] + gid)
        struct.pack_into("<I", data, at, word)
    with gzip.open(os.path.join(target, "narrow.bin.gz"), "wb") as f:
        f.write(bytes(data))
    return m


def word(directory, step, slot, gid):
    info, words = narrow.load(directory)
    return narrow.Steps(info["manifests"][0], words[KERNEL]).word(step, slot, gid)


def main(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--warplab", required=True)
    p.add_argument("--work", required=True)
    a = p.parse_args(argv)
    stepped_sources_keep_the_statements()
    if failures:
        return 1
    if not (shutil.which("nvcc") or os.path.exists("/usr/local/cuda/bin/nvcc")):
        print("test_narrow: needs nvcc to build the kernels")
        return 0
    emulator = os.path.join(a.work, "emulator")
    code, out = run("emulate", "--seed", str(SEED), "--kernels", str(KERNEL), "--out", emulator, "--warplab", a.warplab)
    check(code == 0 and "1 of 1 kernels ran" in out, "the stepped kernel runs on the emulator: " + out.strip())
    if code != 0:
        return 1

    code, out = run("compare", "--gpu", emulator, "--emulator", emulator)
    check(code == 0 and "0 of 1 kernels differ" in out and "every slot equal at every step (21 statements)" in out,
          "a run against itself: no difference")

    # u0 of thread 17 after statement 5 (its line in narrow.cu from the manifest), and a later word too:
    # the first is named, with the statement's text, the operands before it, and both words.
    before = word(emulator, 5, 0, 17)
    m = altered(emulator, os.path.join(a.work, "one_word"), [(5, 0, 17, before ^ 0x100), (9, 2, 3, 0x12345678)])
    code, out = run("compare", "--gpu", os.path.join(a.work, "one_word"), "--emulator", emulator)
    first_code_line = m["statements"][4].splitlines()[1].strip()
    check(f"first differs after statement 5 of 21 (narrow.cu:{m['statement_lines'][4]}), in 1 of 64 threads; "
          f"first block 0, thread (17,0) (gid 17)" in out and first_code_line in out
          and f"gpu:      u0 = {before ^ 0x100:#010x}" in out and f"emulator: u0 = {before:#010x}" in out
          and "1 of 1 kernels differ" in out, "an altered u0 found after statement 5 in thread 17:\n" + out)
    with open(os.path.join(emulator, "narrow.cu")) as f:
        lines = f.read().splitlines()
    check(lines[m["statement_lines"][4] - 1].strip() == "{  // float" and "NARROW_STEP(64u, 4u)" in lines[m["statement_lines"][4] - 2],
          "the statement's line in narrow.cu is its opening brace, after step 4's store")

    # The same thread's f1 at step 2 as two NaNs: no difference; a float one ulp apart: a difference.
    nan_gpu = altered(emulator, os.path.join(a.work, "nan_gpu"), [(2, 5, 17, 0x7fc00000)])
    altered(emulator, os.path.join(a.work, "nan_emulator"), [(2, 5, 17, 0xffc01234)])
    code, out = run("compare", "--gpu", os.path.join(a.work, "nan_gpu"), "--emulator", os.path.join(a.work, "nan_emulator"))
    check("0 of 1 kernels differ" in out, "a float slot's NaN against another NaN is no difference")
    altered(emulator, os.path.join(a.work, "one"), [(2, 5, 17, 0x3f800000)])  # 1.0
    altered(emulator, os.path.join(a.work, "ulp"), [(2, 5, 17, 0x3f800001)])  # 1.0 + 2^-23
    code, out = run("compare", "--gpu", os.path.join(a.work, "one"), "--emulator", os.path.join(a.work, "ulp"))
    check(f"first differs after statement 2 of 21 (narrow.cu:{nan_gpu['statement_lines'][1]})" in out
          and "gpu:      f1 = 0x3f800000 (1.0)" in out and "emulator: f1 = 0x3f800001 (1.0000001192092896)" in out,
          "a float one ulp apart is a difference:\n" + out)
    # An integer slot holding a NaN's bits is compared bit for bit.
    altered(emulator, os.path.join(a.work, "int_nan"), [(2, 1, 17, 0x7fc00000)])
    altered(emulator, os.path.join(a.work, "int_nan2"), [(2, 1, 17, 0x7fc00001)])
    code, out = run("compare", "--gpu", os.path.join(a.work, "int_nan"), "--emulator", os.path.join(a.work, "int_nan2"))
    check("first differs after statement 2 of 21" in out, "an integer slot's NaN bits compare bit for bit")

    # The kernel as generated (plain.bin.gz, which native writes) against the stepped one's words.
    for name, change in (("plain_same", 0), ("plain_other", 1)):
        m = altered(emulator, os.path.join(a.work, name), [])
        info, words = narrow.load(emulator)
        own = words[KERNEL][:m["out_words"] + m["step_base"]]
        own[7] ^= change
        with gzip.open(os.path.join(a.work, name, "plain.bin.gz"), "wb") as f:
            f.write(struct.pack("<4I", 0x46464944, 0, 0, len(own)) + own.tobytes())
    code, out = run("compare", "--gpu", os.path.join(a.work, "plain_same"), "--emulator", emulator)
    check("diff_3104: the stepped kernel ends in the words of the kernel as generated" in out, "the stores changed nothing")
    code, out = run("compare", "--gpu", os.path.join(a.work, "plain_other"), "--emulator", emulator)
    check("other words than the kernel as generated: 1 of 704, first word 7" in out, "a word the stores changed is named:\n" + out)

    code, out = run("compare", "--gpu", os.path.join(a.work, "nothing_here"), "--emulator", emulator)
    check(code != 0 and len(out.strip().splitlines()) == 1 and "no run in" in out, "a missing run: one line, non-zero exit")
    code, out = run("emulate", "--seed", "1", "--kernels", "5,x", "--out", a.work, "--warplab", a.warplab)
    check(code != 0 and "--kernels" in out, "bad --kernels: a usage error")
    print(f"test_narrow: {len(failures)} failed" if failures else "test_narrow: all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
