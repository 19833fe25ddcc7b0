#!/usr/bin/env python3
"""CI: the generated kernels of an expected file (recorded on a GPU by
gpu_record.py) run on warplab's emulator, and every result must be the GPU's.

    python3 check_emulator.py --warplab build/warplab --expected expected/h100.json --work DIR [--jobs 2]

Fails, saying what to do, where the expected file is missing or was recorded
from other kernels than the generator writes now.

--known names the mismatches the emulator still has against the GPU (one line
each, as this script prints them; gpu_record.py's mismatches.txt names each
word): each is an emulator bug to fix, kept in the open. A mismatch not in the
list fails (the emulator got worse, or a new kernel found one), and so does a
listed one that is gone (the emulator got better: take it off the list). Prints "needs nvcc" and
succeeds (CTest marks the test skipped) where there is no CUDA toolkit.
"""
import argparse
import array
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import differential as d  # noqa: E402

RECORD = "python3 tests/differential/gpu_record.py --seed 1 --count 300 --out OUT (on a machine with an sm_90 GPU), then copy OUT/h100.json"


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--warplab", required=True)
    p.add_argument("--expected", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--known", help="the mismatches known and not fixed yet, one line each")
    p.add_argument("--engine", default="interpret", help="what runs the blocks: interpret or fast (warplab run --engine)")
    a = p.parse_args(argv)
    if not os.path.exists(a.expected):
        print(f"differential: no expected file {a.expected}: record it with {RECORD} there")
        return 1
    expected = d.load_expected(a.expected)
    seed, count, simd = expected["seed"], expected["count"], expected.get("simd", False)
    if expected.get("batch") != d.BATCH:
        print(f"differential: {a.expected} was recorded in batches of {expected.get('batch')}, not {d.BATCH}: record it again with {RECORD}")
        return 1
    os.makedirs(a.work, exist_ok=True)
    changed = [first for first, n in d.batches(count)
               if d.write_batch(seed, first, n, a.work, simd)[2] != expected["sources"].get(str(first))]
    if changed:
        print(f"differential: the generator now writes other kernels than {a.expected} was recorded from "
              f"(batches from {changed}): record it again with {RECORD}")
        return 1

    os.environ["XDG_CACHE_HOME"] = os.path.join(a.work, "cache")
    words, failures, _, manifests = d.run_emulator(a.warplab, seed, count, a.work, a.jobs, simd=simd, engine=a.engine)
    if failures and all("needs the CUDA toolkit" in t for t in failures.values()):
        print("differential: needs nvcc to build the kernels: " + next(iter(failures.values())))
        return 0
    mismatches, nan_only = [], []
    recorded_failures = {int(i) for i in expected["failures"]}
    for summary in expected["kernels"]:
        i = summary["index"]
        if i in failures:
            mismatches.append(f"{manifests[i]['name']} (kernel {i}): the emulator failed: {failures[i]}")
            continue
        lines = d.compare(manifests[i], summary, words[i], nan_only=nan_only)
        if lines and other_nan_operand(a, seed, simd, manifests[i], summary):
            nan_only.append(f"{manifests[i]['name']} (kernel {i}): its words are those of the other NaN operand a double "
                            "instruction may pass on, which PTX leaves open")
            lines = []
        mismatches += lines
    for i in sorted(recorded_failures):
        print(f"differential: kernel {i} failed on the GPU when recorded ({expected['failures'][str(i)]}): not compared")
    for line in nan_only:
        print(f"differential: accepted: {line}")
    compared = len(expected["kernels"])
    if compared == 0:
        print(f"differential: {a.expected} holds no kernel")
        return 1
    if not catches_wrong_words(expected["kernels"][0], manifests, words):
        return 1
    known = read_known(a.known)
    if known is not None:
        return known_verdict(mismatches, known, a.known, compared, expected, nan_only)
    if mismatches:
        print(f"differential: {len(mismatches)} mismatches in {compared} kernels against {expected['gpu']} "
              f"(recorded {expected['recorded']}); the batches and logs are in {a.work}:")
        print("\n".join(mismatches))
        return 1
    print(f"differential: {compared} generated kernels (seed {seed}) give on the emulator the words "
          f"{expected['gpu']} gave (recorded {expected['recorded']}){other_nans(nan_only, [])}")
    return 0


def other_nan_operand(a, seed, simd, manifest, summary):
    """Whether the kernel's words are the GPU's where the emulator keeps the other of several NaN
    operands of a double instruction (differential.OTHER_NAN_CHOICE), and a flipped bit of them is not."""
    other = d.other_nan_choice(a.warplab, seed, manifest["index"], os.path.join(a.work, "other_nan"), simd)
    if other is None or d.compare(manifest, summary, other, nan_only=[]):
        return False
    flipped = array.array("I", other)
    flipped[0] ^= 1
    return bool(d.compare(manifest, summary, flipped))


def catches_wrong_words(first, manifests, words):
    """Whether the comparison, on the first kernel's own words, fails a flipped bit of an
    integer word and a float result one ulp off (the first finite word of its first float slot)."""
    manifest, own = manifests[first["index"]], words[first["index"]]
    flipped = array.array("I", own)
    flipped[0] ^= 1
    if not d.compare(manifest, first, flipped):
        print("differential: the comparison let a flipped bit pass")
        return False
    total = manifest["threads"]
    slot = manifest["float_slots"][0][0]
    at = next((i for i in range(slot * total, (slot + 1) * total) if own[i] & 0x7F800000 != 0x7F800000), None)
    if at is None:
        return True  # every word of the slot is a NaN or an infinity: none to make one ulp off
    off = array.array("I", own)
    off[at] ^= 1
    if not d.compare(manifest, first, off):
        print(f"differential: the comparison let a float result one ulp off pass ({manifest['name']}, word {at})")
        return False
    return True


def read_known(path):
    if not path:
        return None
    with open(path) as f:
        return [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")]


def other_nans(nan_only, mismatches):
    """' (N of them with another NaN than the GPU's in a float slot, as PTX allows)', or '':
    N counts the kernels of `nan_only` without a mismatch."""
    kernels = len({line.split(" ")[0] for line in nan_only} - {line.split(" ")[0] for line in mismatches})
    return f" ({kernels} of them with another NaN than the GPU's in a float slot, as PTX allows)" if kernels else ""


def known_verdict(mismatches, known, path, compared, expected, nan_only):
    """Pass where the mismatches are exactly the known ones."""
    new = [m for m in mismatches if m not in set(known)]
    gone = [m for m in known if m not in set(mismatches)]
    for m in new:
        print(f"differential: new mismatch (not in {os.path.basename(path)}): {m}")
    for m in gone:
        print(f"differential: now equal to the GPU, take it off {os.path.basename(path)}: {m}")
    if new or gone:
        return 1
    kernels = len({m.split(" ")[0] for m in mismatches})
    print(f"differential: {compared} generated kernels (seed {expected['seed']}) against {expected['gpu']} "
          f"(recorded {expected['recorded']}): {compared - kernels} equal{other_nans(nan_only, mismatches)}; {kernels} with the {len(mismatches)} "
          f"mismatches known in {os.path.basename(path)}, none new")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
