#!/usr/bin/env python3
"""Narrowing a mismatch down to the generated statement that makes it.

A mismatch report names a kernel's first differing word at its end; this finds
where the two machines part. For the given kernels of a seed it writes a
variant of each generated kernel that, besides its own work, stores every slot
(u0..u3, f0..f3, d0's two words) of every thread before the first statement and
after each generated statement into words of its own past the kernel's `acc`
(NARROW_STEP below); the statements' code is the generator's, unchanged. The
variants make one whole program, built and run as differential.py runs a batch:

    narrow.py native  --seed 1 --kernels 52,840 --out DIR [--sanitize 3104]   (on a GPU: nvcc -arch=sm_90)
    narrow.py emulate --seed 1 --kernels 52,840 --out DIR --warplab build/warplab
    narrow.py compare --gpu DIR [--emulator DIR2 | --warplab build/warplab --work DIR2] [--report MISMATCHES]

Each writes DIR/narrow.cu (the program), narrow.json (its kernels' manifests:
the statements' text and lines, where the steps lie), narrow.bin.gz (the words
each kernel wrote: out, acc and the steps) and narrow.log. `compare` prints,
for each kernel, the first statement after which a slot differs, the first
thread where it does, the slots the statement names as both machines held them
before it, and both results. A float slot's NaN against another NaN is no
difference (PTX leaves a NaN's payload unspecified: README.md). --report (the
GPU run's mismatch list, gzipped or not) checks that the GPU's stepped run
ends in the words that run reported, so the added stores changed nothing.

native also runs the kernels as generated (DIR/plain.bin.gz; compare then says
whether the stepped kernels ended in their words, so that the stores changed
nothing) and writes DIR/narrow.sass.gz, both programs' SASS (cuobjdump -sass).
--sanitize K (native) also runs kernel K as the generator writes it, alone and
built with -lineinfo, under compute-sanitizer's memcheck, which names a faulting
access's line (DIR/memcheck-K.txt; the lines are those of generate.py --first K --count 1).
"""
import argparse
import gzip
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import differential as d  # noqa: E402
import generate  # noqa: E402

SLOTS = d.SLOT_NAMES  # u0..u3, f0..f3, d0.lo, d0.hi: a step's words for a thread, in this order
STEP_WORDS = len(SLOTS)
STEP_MARK = "NARROW_STEP("

# Step S of a kernel: slot k of thread gid at acc[BASE + (S * 10 + k) * total + gid].
DEFINITIONS = r"""
// narrow.py: every slot of every thread at step S (0: as loaded; S: after the S-th generated
// statement), in acc's words from BASE on: slot k of thread gid at BASE + (S * 10 + k) * total + gid.
#define NARROW_STEP(BASE, S)                                         \
    do {                                                             \
        unsigned* const step_ = acc + (BASE) + (S) * 10u * total + gid; \
        step_[0u * total] = u0;                                      \
        step_[1u * total] = u1;                                      \
        step_[2u * total] = u2;                                      \
        step_[3u * total] = u3;                                      \
        step_[4u * total] = __float_as_uint(f0);                     \
        step_[5u * total] = __float_as_uint(f1);                     \
        step_[6u * total] = __float_as_uint(f2);                     \
        step_[7u * total] = __float_as_uint(f3);                     \
        step_[8u * total] = (unsigned)__double2loint(d0);            \
        step_[9u * total] = (unsigned)__double2hiint(d0);            \
    } while (0)

"""


class SteppedKernel(generate.Kernel):
    """A generated kernel that stores its slots at every step. The stores draw nothing from
    the generator's random numbers, so the statements are the ones generate.py writes."""

    BASE = "@STEP_BASE@"  # where the steps start in acc: known once every statement is written

    def __init__(self, seed, index, simd=False):
        super().__init__(seed, index, simd)
        self.statements = []  # each generated statement's text

    def step(self):
        self.emit(f"{STEP_MARK}{self.BASE}, {len(self.statements)}u);")

    def statement(self):
        if not self.statements:
            self.step()  # step 0: the slots as loaded
        start = len(self.lines)
        super().statement()
        self.statements.append("\n".join(self.lines[start:]))
        self.step()

    def step_base(self):
        return 64 + self.scratch_regions * self.total  # past acc's own words (manifest's acc_words)

    def source(self):
        return super().source().replace(self.BASE, f"{self.step_base()}u")

    def manifest(self):
        m = super().manifest()
        m["steps"] = len(self.statements) + 1
        m["step_base"] = self.step_base()
        m["acc_words"] += m["steps"] * STEP_WORDS * self.total
        m["statements"] = self.statements
        return m


def stepped_program(seed, kernels, simd=False):
    """The program of the stepped kernels and their manifests, each with its statements' first lines."""
    listed = ", ".join(str(k) for k in kernels)
    text, manifests = generate.program([SteppedKernel(seed, k, simd) for k in kernels],
                                       f"seed {seed}, kernels {listed}, each slot stored at every step by narrow.py",
                                       DEFINITIONS)
    lines = text.splitlines()
    for m in manifests:
        head = next(i for i, line in enumerate(lines) if f" {m['name']}(" in line and "__global__" in line)
        marks = [i for i in range(head, len(lines)) if STEP_MARK in lines[i]][:m["steps"]]
        m["statement_lines"] = [i + 2 for i in marks[:-1]]  # 1-based: the line after each step's store
    return text, manifests


def parse_kernels(text):
    try:
        kernels = [int(k) for k in text.split(",") if k.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--kernels takes kernel indices separated by commas, not {text!r}")
    if not kernels or min(kernels) < 0 or len(set(kernels)) != len(kernels):
        raise argparse.ArgumentTypeError(f"--kernels takes distinct indices, at least one, none negative: {text!r}")
    return kernels


def write_program(out, seed, kernels, simd, runner):
    os.makedirs(out, exist_ok=True)
    text, manifests = stepped_program(seed, kernels, simd)
    source = os.path.join(out, "narrow.cu")
    with open(source, "w") as f:
        f.write(text)
    info = {"seed": seed, "kernels": kernels, "simd": simd, "runner": runner, "manifests": manifests,
            "source_digest": hashlib.sha256(text.encode()).hexdigest()}
    return source, info


def run_program(command, out, info, name="narrow"):
    """Runs a program of info's kernels; writes DIR/NAME.bin.gz (each kernel's record, as the
    program wrote them) and returns {kernel index: failure}. Its runs' output goes to narrow.log."""
    with tempfile.TemporaryDirectory() as scratch:
        results = os.path.join(scratch, "results.bin")
        _, failures = d.run_batch(command, results, 0, len(info["kernels"]), os.path.join(out, "narrow.log"))
        with gzip.open(os.path.join(out, f"{name}.bin.gz"), "wb") as g:
            if os.path.exists(results):
                with open(results, "rb") as f:
                    g.write(f.read())
    failures = {str(info["kernels"][i]): text for i, text in failures.items()}
    for k, text in failures.items():
        print(f"narrow: {name}: kernel {k} failed: {text}")
    print(f"narrow: {name}: {len(info['kernels']) - len(failures)} of {len(info['kernels'])} kernels ran, in {out}")
    return failures


def write_info(out, info):
    with open(os.path.join(out, "narrow.json"), "w") as f:
        json.dump(info, f, indent=1)


def build(nvcc, flags, source, program):
    """nvcc started on `source` (a Popen): builds run side by side."""
    return subprocess.Popen([nvcc, *flags, "-o", program, source], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def built(proc, source):
    _, err = proc.communicate()
    if proc.returncode != 0:
        print(f"narrow: nvcc failed on {source}:\n{err}")
    return proc.returncode == 0


def native(a):
    """The stepped program, and the kernels as generated (plain.bin.gz: whether the stores changed
    what they compute), built with gpu_record.py's flags and run; their SASS; memcheck for --sanitize."""
    nvcc = a.nvcc or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not os.access(nvcc, os.X_OK):
        print(f"narrow: no nvcc at {nvcc} (--nvcc)")
        return 1
    flags = ["-arch=sm_90"]  # gpu_record.py's build
    source, info = write_program(a.out, a.seed, a.kernels, a.simd, f"{nvcc} {' '.join(flags)}")
    with tempfile.TemporaryDirectory() as scratch:
        plain_text, _ = generate.program([generate.Kernel(a.seed, k, a.simd) for k in a.kernels],
                                         f"seed {a.seed}, kernels {', '.join(map(str, a.kernels))}")
        plain = os.path.join(scratch, "plain.cu")
        with open(plain, "w") as f:
            f.write(plain_text)
        programs = {"narrow": os.path.join(scratch, "narrow"), "plain": os.path.join(scratch, "plain")}
        builds = {"narrow": build(nvcc, flags, source, programs["narrow"]), "plain": build(nvcc, flags, plain, programs["plain"])}
        if not all([built(builds["narrow"], source), built(builds["plain"], plain)]):
            return 1
        info["failures"] = run_program([programs["narrow"]], a.out, info)
        info["plain_failures"] = run_program([programs["plain"]], a.out, info, "plain")
        write_info(a.out, info)
        write_sass(nvcc, programs, a.out)
        for k in a.sanitize:
            sanitize(nvcc, k, a, scratch)
    return 0


def write_sass(nvcc, programs, out):
    """DIR/narrow.sass.gz: the machine code ptxas made of the kernels, stepped and as generated
    (cuobjdump beside nvcc), where a difference may come from the code rather than from PTX's
    semantics (an operand order, a fusion)."""
    tool = shutil.which("cuobjdump") or os.path.join(os.path.dirname(nvcc), "cuobjdump")
    if not os.access(tool, os.X_OK):
        print("narrow: no cuobjdump: no SASS written")
        return
    with gzip.open(os.path.join(out, "narrow.sass.gz"), "wt") as f:
        for name, program in programs.items():
            proc = subprocess.run([tool, "-sass", program], capture_output=True, text=True)
            f.write(f"==== {name}\n" + (proc.stdout if proc.returncode == 0 else f"cuobjdump failed:\n{proc.stderr}"))


def sanitize(nvcc, kernel, a, scratch):
    """Kernel `kernel` as generated, alone, under compute-sanitizer's memcheck (lines from -lineinfo)."""
    text, _ = generate.batch(a.seed, kernel, 1, a.simd)  # its lines: generate.py --first K --count 1
    source = os.path.join(scratch, f"diff_{kernel}.cu")
    with open(source, "w") as f:
        f.write(text)
    program = os.path.join(scratch, f"diff_{kernel}")
    proc = subprocess.run([nvcc, "-arch=sm_90", "-lineinfo", "-o", program, source], capture_output=True, text=True)
    report = os.path.join(a.out, f"memcheck-{kernel}.txt")
    if proc.returncode != 0:
        with open(report, "w") as f:
            f.write(f"nvcc failed:\n{proc.stderr}")
        return
    tool = shutil.which("compute-sanitizer") or os.path.join(os.path.dirname(nvcc), "compute-sanitizer")
    if not os.access(tool, os.X_OK):
        with open(report, "w") as f:
            f.write(f"no compute-sanitizer beside {nvcc} or on PATH\n")
        print(f"narrow: no compute-sanitizer for kernel {kernel}")
        return
    command = [tool, "--tool", "memcheck", "--show-backtrace", "device", program, os.path.join(scratch, "sanitized.bin")]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=d.RUN_TIMEOUT)
    with open(report, "w") as f:
        f.write(f"$ {' '.join(command)}\nexit {proc.returncode}\n{proc.stdout}{proc.stderr}")
    print(f"narrow: kernel {kernel} under memcheck: exit {proc.returncode}, {report}")


def emulate(a, out=None):
    out = out or a.out
    if not os.access(a.warplab, os.X_OK):
        print(f"narrow: no warplab at {a.warplab} (--warplab)")
        return 1
    source, info = write_program(out, a.seed, a.kernels, a.simd, "warplab run")
    info["failures"] = run_program(d.emulator_command(a.warplab, source), out, info)
    write_info(out, info)
    return 0


# --- comparing two runs ---------------------------------------------------------------
def load(directory, name="narrow"):
    """(info, {kernel index: words}) of a run written by native or emulate (name: plain, the
    kernels as generated, where native ran them too; no such file: no words)."""
    path = os.path.join(directory, "narrow.json")
    if not os.path.exists(path):
        raise SystemExit(f"narrow: no run in {directory} (no narrow.json)")
    with open(path) as f:
        info = json.load(f)
    if not os.path.exists(os.path.join(directory, f"{name}.bin.gz")):
        return info, {}
    with gzip.open(os.path.join(directory, f"{name}.bin.gz"), "rb") as f, tempfile.NamedTemporaryFile() as t:
        t.write(f.read())
        t.flush()
        records = d.read_records(t.name)
    return info, {info["kernels"][i]: words for i, words in records.items()}


class Steps:
    """One run's step words of one kernel: word(step, slot, gid)."""

    def __init__(self, manifest, words):
        self.total = manifest["threads"]
        self.base = manifest["out_words"] + manifest["step_base"]
        self.words = words

    def word(self, step, slot, gid):
        return self.words[self.base + (step * STEP_WORDS + slot) * self.total + gid]

    def thread(self, step, gid):
        return [self.word(step, k, gid) for k in range(STEP_WORDS)]


def differing_slots(a, b):
    """The slots where two threads' words differ; a NaN against a NaN of a float slot is equal."""
    slots = []
    for k in range(STEP_WORDS):
        if a[k] == b[k]:
            continue
        if 4 <= k < 8 and d.is_nan32(a[k]) and d.is_nan32(b[k]):
            continue
        if k >= 8 and d.is_nan64(a[8], a[9]) and d.is_nan64(b[8], b[9]):
            continue
        slots.append(k)
    return slots


def shown(slot, words):
    """A slot's value as it reads: hex, and the integer or the float."""
    if slot < 4:
        return f"{SLOTS[slot]} = {words[slot]:#010x} ({words[slot]})"
    if slot < 8:
        return f"{SLOTS[slot]} = {words[slot]:#010x} ({d.float_of(words[slot])!r})"
    value = struct.unpack("<d", struct.pack("<2I", words[8], words[9]))[0]
    return f"d0 = {words[9]:#010x}_{words[8]:08x} ({value!r})"


def named_slots(text):
    """The slots a statement's text names (d0 as its two words)."""
    names = set(re.findall(r"\b([uf][0-3]|d0)\b", text))
    return [k for k in range(STEP_WORDS) if SLOTS[k] in names or (k >= 8 and "d0" in names)]


def thread_name(manifest, gid):
    return d.thread_of(manifest, gid)


def narrow_kernel(manifest, gpu_words, emu_words):
    """Whether one kernel's runs part, and lines saying where."""
    name = f"{manifest['name']} (kernel {manifest['index']})"
    if len(gpu_words) != len(emu_words):
        return True, [f"{name}: {len(gpu_words)} words from the GPU, {len(emu_words)} from the emulator"]
    gpu, emu = Steps(manifest, gpu_words), Steps(manifest, emu_words)
    for step in range(manifest["steps"]):
        threads = [g for g in range(manifest["threads"]) if differing_slots(gpu.thread(step, g), emu.thread(step, g))]
        if threads:
            return True, step_report(name, manifest, gpu, emu, step, threads)
    lines = [f"{name}: every slot equal at every step ({manifest['steps'] - 1} statements)"]
    for part, start, end, fn in d.regions(manifest):  # the approximate slots and acc's own words
        if part in SLOTS:
            continue
        end = min(end, manifest["out_words"] + manifest["step_base"])
        bad = [i for i in range(start, end) if gpu_words[i] != emu_words[i]
               and not (fn and d.approx_equal(fn, gpu_words[i], emu_words[i]))]
        if bad:
            i = bad[0]
            lines.append(f"    {part}: {len(bad)} words differ; first at word {i - start}: gpu {gpu_words[i]:#010x}, "
                         f"emulator {emu_words[i]:#010x}")
    return len(lines) > 1, lines


def step_report(name, manifest, gpu, emu, step, threads):
    gid = threads[0]
    got, want = emu.thread(step, gid), gpu.thread(step, gid)
    slots = differing_slots(want, got)
    if step == 0:
        lines = [f"{name}: the slots differ as loaded, before any statement ({thread_name(manifest, gid)})"]
    else:
        text = manifest["statements"][step - 1]
        line = manifest.get("statement_lines", [None] * step)[step - 1]
        lines = [f"{name}: first differs after statement {step} of {manifest['steps'] - 1} (narrow.cu:{line}), "
                 f"in {len(threads)} of {manifest['threads']} threads; first {thread_name(manifest, gid)} (gid {gid}):"]
        lines += ["    | " + line[4:] for line in text.splitlines()]  # a statement's lines are indented a level
        before = gpu.thread(step - 1, gid)
        operands = named_slots(text)
        if operands:
            lines.append("    before it (both): " + "; ".join(shown(k, before) for k in operands if k != 9 or 8 not in operands))
    for k in slots:
        if k == 9 and 8 in slots:
            continue
        lines.append(f"    gpu:      {shown(k, want)}")
        lines.append(f"    emulator: {shown(k, got)}")
    return lines


REPORT_LINE = re.compile(r"^(diff_\d+) \(kernel (\d+)\): (\S+): .*first at block (\d+), thread \((\d+),(\d+)\): gpu (0x[0-9a-f]+), emulator (0x[0-9a-f]+)")


def check_report(path, manifests, gpu_words):
    """Lines saying whether the GPU's stepped run ends in the words a mismatch report names."""
    opener = gzip.open if path.endswith(".gz") else open
    lines = []
    with opener(path, "rt") as f:
        for line in f:
            m = REPORT_LINE.match(line)
            if not m or int(m.group(2)) not in gpu_words or m.group(3) not in SLOTS:
                continue
            manifest = manifests[int(m.group(2))]
            bx, by = manifest["block"]
            gid = int(m.group(4)) * bx * by + int(m.group(6)) * bx + int(m.group(5))
            word = gpu_words[int(m.group(2))][SLOTS.index(m.group(3)) * manifest["threads"] + gid]
            same = "as reported" if word == int(m.group(7), 16) else f"NOT as reported ({m.group(7)})"
            lines.append(f"narrow: {m.group(1)} {m.group(3)} at gid {gid}: the GPU's stepped run ends in {word:#010x}, {same}")
    return lines


def check_plain(info, stepped, plain):
    """Lines saying, for each kernel, whether the stepped kernel ended in the words the kernel as
    generated wrote (its out and acc words; the steps come after them)."""
    lines = []
    for k in info["kernels"]:
        if k not in plain or k not in stepped:
            continue
        own = plain[k]
        bad = [i for i in range(len(own)) if own[i] != stepped[k][i]]
        lines.append(f"narrow: diff_{k}: the stepped kernel ends in the words of the kernel as generated" if not bad else
                     f"narrow: diff_{k}: the stepped kernel ends in other words than the kernel as generated: {len(bad)} of "
                     f"{len(own)}, first word {bad[0]} ({stepped[k][bad[0]]:#010x} against {own[bad[0]]:#010x})")
    return lines


def compare(a):
    info, gpu = load(a.gpu)
    for line in check_plain(info, gpu, load(a.gpu, "plain")[1]):
        print(line)
    if a.emulator:
        emu_dir = a.emulator
    else:
        if not a.warplab or not a.work:
            print("narrow: compare needs --emulator DIR, or --warplab and --work to run the emulator")
            return 2
        a.seed, a.kernels, a.simd = info["seed"], info["kernels"], info["simd"]
        if emulate(a, a.work) != 0:
            return 1
        emu_dir = a.work
    emu_info, emu = load(emu_dir)
    if emu_info["source_digest"] != info["source_digest"]:
        print(f"narrow: {a.gpu} and {emu_dir} ran different programs (other kernels, or another generator)")
        return 1
    manifests = {m["index"]: m for m in info["manifests"]}
    if a.report:
        for line in check_report(a.report, manifests, gpu):
            print(line)
    differing = 0
    for k in info["kernels"]:
        m = manifests[k]
        if str(k) in info["failures"] or k not in gpu:
            print(f"{m['name']} (kernel {k}): failed on the GPU side: {info['failures'].get(str(k), 'no record')}")
            continue
        if k not in emu:
            print(f"{m['name']} (kernel {k}): failed on the emulator: {emu_info['failures'].get(str(k), 'no record')}")
            continue
        differs, lines = narrow_kernel(m, gpu[k], emu[k])
        differing += differs
        print("\n".join(lines))
    print(f"narrow: {differing} of {len(info['kernels'])} kernels differ")
    return 0


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="verb", required=True)
    for verb in ("native", "emulate"):
        s = sub.add_parser(verb)
        s.add_argument("--seed", type=int, required=True)
        s.add_argument("--kernels", type=parse_kernels, required=True, help="kernel indices, e.g. 52,840")
        s.add_argument("--out", required=True)
        s.add_argument("--simd", action="store_true", help="kernels of a run made with generate.py --simd")
        if verb == "native":
            s.add_argument("--nvcc")
            s.add_argument("--sanitize", type=parse_kernels, default=[], help="kernels to run under compute-sanitizer too")
        else:
            s.add_argument("--warplab", required=True)
    s = sub.add_parser("compare")
    s.add_argument("--gpu", required=True, help="a run written by native (or emulate, to test this tool)")
    s.add_argument("--emulator", help="a run written by emulate")
    s.add_argument("--warplab")
    s.add_argument("--work")
    s.add_argument("--report", help="the GPU run's mismatch list, to check the stepped run against")
    a = p.parse_args(argv)
    return {"native": native, "emulate": emulate, "compare": compare}[a.verb](a)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
