"""Building, running and comparing generated batches (generate.py): the part
gpu_record.py (on a GPU) and check_emulator.py (CI, the emulator alone) share.

A run of N kernels from a seed is cut into batches of BATCH kernels, one program
each. A program writes a record per kernel; a kernel that fails (a launch error,
an emulator fault) stops its program, and the batch is run again from the next
kernel, so one failure costs one kernel.

Results compare word by word: every word of `out` and `acc` bit for bit, except
the approximate slots (generate.APPROX), within their tolerance, and a NaN in a
slot the generator knows holds float results (manifest "float_slots": the
32-bit floats, a double's two words), where any NaN of the width is right: PTX
says single-precision instructions return an unspecified NaN, `neg` and `abs`
of a NaN give an unspecified NaN, and leaves open which of two NaN operands a
double-precision instruction passes on. Where only the expected file's digests
are at hand (CI), a slot is a digest of its words, and a float slot also a
digest with every NaN made one (nan_blind).
"""
import array
import hashlib
import json
import math
import os
import struct
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate  # noqa: E402

BATCH = 100  # kernels a program: nvcc's fixed cost (the host side, the headers) spread over many
MAGIC = 0x46464944
SLOT_NAMES = ["u0", "u1", "u2", "u3", "f0", "f1", "f2", "f3", "d0.lo", "d0.hi"]
FORMAT = "warplab-differential-1"
RUN_TIMEOUT = 600  # seconds a program may run (a build, then 100 kernels of a few milliseconds)
# What stops every kernel of a program, not one: a build error, no usable GPU.
WHOLE_RUN_FAILURES = ("warplab: error:", "no CUDA-capable device", "driver version is insufficient")


def batches(count, batch=BATCH):
    """(first, count) of each batch of a run of `count` kernels."""
    return [(first, min(batch, count - first)) for first in range(0, count, batch)]


def write_batch(seed, first, count, directory, simd=False):
    """Writes batch-<first>.cu; returns its path, the kernels' manifests and the source's digest."""
    text, manifests = generate.batch(seed, first, count, simd)
    path = os.path.join(directory, f"batch-{first:06d}.cu")
    if not os.path.exists(path) or open(path).read() != text:
        with open(path, "w") as f:
            f.write(text)
    return path, manifests, hashlib.sha256(text.encode()).hexdigest()


def read_records(path):
    """{kernel index: words (array of uint32)} of a results file."""
    records = {}
    if not os.path.exists(path):
        return records
    with open(path, "rb") as f:
        data = f.read()
    at = 0
    while at + 16 <= len(data):
        magic, index, status, count = struct.unpack_from("<4I", data, at)
        if magic != MAGIC or at + 16 + 4 * count > len(data):
            break  # a record cut short by a crash
        words = array.array("I")
        words.frombytes(data[at + 16:at + 16 + 4 * count])
        records[index] = words
        at += 16 + 4 * count
    return records


def run_batch(command, results, first, count, log, env=None):
    """Runs `command + [results, FIRST]` until every kernel of the batch has a record
    or has failed; returns ({index: words}, {index: failure text}). `env`: the
    programs' environment, where not this one."""
    failures = {}
    start = first
    if os.path.exists(results):
        os.remove(results)
    while start < first + count:
        try:
            proc = subprocess.run(command + [results, str(start - first)], capture_output=True, text=True,
                                  timeout=RUN_TIMEOUT, env=env)
        except subprocess.TimeoutExpired as e:  # a kernel that never ends: the next without a record
            stderr = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
            proc = subprocess.CompletedProcess(e.cmd, -9, "", stderr + f"\nstopped after {RUN_TIMEOUT} s: a kernel did not end\n")
        with open(log, "a") as f:
            f.write(f"$ {' '.join(command)} {results} {start - first}\nexit {proc.returncode}\n{proc.stderr}")
        records = read_records(results)
        done = [i for i in range(start, first + count) if i - first in records]
        if proc.returncode == 0 and len(done) == first + count - start:
            break
        failed = start + len(done)  # records come in order: the first without one failed
        if failed >= first + count:
            break
        if any(fatal in proc.stderr for fatal in WHOLE_RUN_FAILURES):  # no kernel of the program can run
            failures.update({i: failure_text(proc) for i in range(failed, first + count)})
            break
        failures[failed] = failure_text(proc)
        start = failed + 1
    records = read_records(results)
    return {first + i: w for i, w in records.items()}, failures


def failure_text(proc):
    """The lines of a failed run that say why (a fault's paragraph, the program's error)."""
    lines = [l for l in proc.stderr.splitlines() if l.strip() and "nvcc built" not in l]
    keep = [l for l in lines if "fault" in l or "kernel " in l or "error" in l.lower()] or lines[-3:]
    if not keep:
        keep = [f"exit status {proc.returncode}"]
    return " | ".join(keep[:4])


def digest(words):
    return hashlib.sha256(words.tobytes()).hexdigest()[:16]


def slot_name(manifest, slot):
    for s, name in manifest["approx"]:
        if s == slot:
            return f"approximate {name} (slot {slot})"
    return SLOT_NAMES[slot] if slot < len(SLOT_NAMES) else f"slot {slot}"


def regions(manifest):
    """(name, start, end, approx function or None) of each part of a kernel's words."""
    total = manifest["threads"]
    approx = dict((s, n) for s, n in manifest["approx"])
    parts = []
    for slot in range(manifest["out_words"] // total):
        parts.append((slot_name(manifest, slot), slot * total, (slot + 1) * total, approx.get(slot)))
    parts.append(("acc", manifest["out_words"], manifest["out_words"] + manifest["acc_words"], None))
    return parts


# What a NaN of a float slot becomes in nan_blind: the GPU's canonical NaNs.
NAN32 = 0x7FFFFFFF
NAN64 = (0xFFFFFFFF, 0x7FFFFFFF)  # low word, high word


def is_nan32(word):
    return word & 0x7F800000 == 0x7F800000 and word & 0x007FFFFF != 0


def is_nan64(lo, hi):
    return hi & 0x7FF00000 == 0x7FF00000 and (hi & 0x000FFFFF or lo) != 0


def float_regions(manifest):
    """The names of the regions that hold float results (a double's two regions both)."""
    names = set()
    for slot, width in manifest.get("float_slots", []):
        names.add(SLOT_NAMES[slot])
        if width == 64:
            names.add(SLOT_NAMES[slot + 1])
    return names


def nan_blind(manifest, words):
    """The words with every NaN of a float slot made the canonical NaN of its width (NAN32, NAN64)."""
    out = array.array("I", words)
    total = manifest["threads"]
    for slot, width in manifest.get("float_slots", []):
        lo = slot * total
        for i in range(lo, lo + total):
            if width == 32 and is_nan32(out[i]):
                out[i] = NAN32
            elif width == 64 and is_nan64(out[i], out[i + total]):
                out[i], out[i + total] = NAN64
    return out


def summary(manifest, words):
    """What the expected file keeps of a kernel: a digest a region, approximate slots in full,
    and a float region's digest with its NaNs made one (nan_blind)."""
    s = {"index": manifest["index"], "words": len(words), "digests": {}, "approx": {}, "nan_blind": {}}
    blind = nan_blind(manifest, words)
    floats = float_regions(manifest)
    for name, start, end, fn in regions(manifest):
        part = words[start:end]
        if fn:
            s["approx"][name] = part.tobytes().hex()
        else:
            s["digests"][name] = digest(part)
        if name in floats:
            s["nan_blind"][name] = digest(blind[start:end])
    return s


def float_of(word):
    return struct.unpack("<f", struct.pack("<I", word))[0]


def ordered(word):
    """A float's bits as an integer that orders like the float (for ulp distances)."""
    return word if word < 0x80000000 else 0x80000000 - word


def approx_equal(fn, gpu, emu):
    """Whether two approximate results agree within the function's tolerance (generate.APPROX)."""
    if gpu == emu:
        return True
    a, b = float_of(gpu), float_of(emu)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    _, kind, tolerance = generate.APPROX[fn]
    if kind == "abs":
        return abs(a - b) <= tolerance
    return abs(ordered(gpu) - ordered(emu)) <= tolerance


def thread_of(manifest, word):
    """'block B, thread (x,y)' of a word of a slot."""
    bx, by = manifest["block"]
    gid = word % manifest["threads"]
    block, tid = divmod(gid, bx * by)
    return f"block {block}, thread ({tid % bx},{tid // bx})"


def compare(manifest, expected, emu, expected_words=None, nan_only=None):
    """Mismatch lines of one kernel: expected is its summary; expected_words, where
    there, the GPU's words in full (each differing word is then named). A float
    region whose words differ only in which NaN they hold is no mismatch: it is
    named in `nan_only`, where given. An expected file without nan_blind digests
    (recorded before them) compares every region bit for bit."""
    name = f"{manifest['name']} (kernel {manifest['index']})"
    if len(emu) != expected["words"]:
        return [f"{name}: {len(emu)} words from the emulator, {expected['words']} from the GPU"]
    lines = []
    floats = float_regions(manifest) & set(expected.get("nan_blind", {}))
    blind_emu = nan_blind(manifest, emu) if floats else emu
    blind_gpu = nan_blind(manifest, expected_words) if floats and expected_words is not None else expected_words
    for part, start, end, fn in regions(manifest):
        got = emu[start:end]
        if fn:
            want = array.array("I")
            want.frombytes(bytes.fromhex(expected["approx"][part]))
            bad = [i for i in range(len(got)) if not approx_equal(fn, want[i], got[i])]
            if bad:
                i = bad[0]
                lines.append(f"{name}: {part}: {len(bad)} of {len(got)} words beyond the tolerance; first at "
                             f"{thread_of(manifest, i)}: gpu {float_of(want[i])!r} ({want[i]:#010x}), "
                             f"emulator {float_of(got[i])!r} ({got[i]:#010x})")
            continue
        if digest(got) == expected["digests"][part]:
            continue
        if part in floats and digest(blind_emu[start:end]) == expected["nan_blind"][part]:
            if nan_only is not None:
                nan_only.append(f"{name}: {part}: another NaN than the GPU's, which PTX leaves unspecified")
            continue
        if expected_words is None:
            lines.append(f"{name}: {part} differs from the GPU's (digest {digest(got)}, recorded {expected['digests'][part]})")
            continue
        want = expected_words[start:end]
        if part in floats:  # the first word that differs in more than its NaN
            bad = [i for i in range(len(got)) if blind_emu[start + i] != blind_gpu[start + i]]
        else:
            bad = [i for i in range(len(got)) if got[i] != want[i]]
        i = bad[0]
        where = f"word {i}" if part == "acc" else thread_of(manifest, i)
        lines.append(f"{name}: {part}: {len(bad)} of {len(got)} words differ; first at {where}: "
                     f"gpu {want[i]:#010x}, emulator {got[i]:#010x}"
                     + ("" if part in SLOT_NAMES[:4] or part == "acc" else f" ({float_of(want[i])!r} against {float_of(got[i])!r})"))
    return lines


def emulator_command(warplab, source, engine="interpret"):
    """`warplab run` on a batch (the trace of a launch nobody asked for is left out), every block on `engine`."""
    return [warplab, "run", source, "--watch", "no_such_kernel", "--engine", engine, "--"]


def run_emulator(warplab, seed, count, work, jobs, progress=None, simd=False, engine="interpret"):
    """Every batch on the emulator: ({index: words}, {index: failure}, {batch first: digest}, manifests)."""
    os.makedirs(work, exist_ok=True)
    plan = [write_batch(seed, first, n, work, simd) + (first, n) for first, n in batches(count)]

    def one(item):
        path, manifests, _, first, n = item
        results = path[:-3] + ".emulator.bin"
        got = run_batch(emulator_command(warplab, path, engine), results, first, n, path[:-3] + ".emulator.log")
        if progress:
            progress(f"emulator: kernels {first} to {first + n - 1} done")
        return got

    words, failures = {}, {}
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for w, f in pool.map(one, plan):
            words.update(w)
            failures.update(f)
    manifests = {m["index"]: m for item in plan for m in item[1]}
    return words, failures, {item[3]: item[2] for item in plan}, manifests


# Which NaN a double instruction passes on where several operands are NaN: PTX
# leaves it open, and the GPU's choice follows the order ptxas gave the
# operands. The emulator keeps the first of its order (values.h); with this
# variable set, the last: a kernel whose words are the GPU's that way differs
# only by that choice.
OTHER_NAN_CHOICE = {"WARPLAB_NAN_OPERAND": "last"}


def other_nan_choice(warplab, seed, index, work, simd=False):
    """Kernel `index` alone on the emulator keeping the other NaN operand: its words, or None if it failed."""
    os.makedirs(work, exist_ok=True)
    path, _, _ = write_batch(seed, index, 1, work, simd)
    words, _ = run_batch(emulator_command(warplab, path), path[:-3] + ".bin", index, 1, path[:-3] + ".log",
                         dict(os.environ, **OTHER_NAN_CHOICE))
    return words.get(index)


def load_expected(path):
    with open(path) as f:
        expected = json.load(f)
    if expected.get("format") != FORMAT:
        raise ValueError(f"{path} is not a {FORMAT} file")
    return expected
