#!/usr/bin/env python3
"""On a machine with a GPU: run generated kernels natively, record what they
compute, and (with --warplab) compare warplab's emulator with it.

    python3 tests/differential/gpu_record.py --seed 1 --count 10000 --out OUT [--warplab build/warplab]

1. Writes the batches (generate.py; 100 kernels a program) under --work and
   builds each with nvcc -arch=sm_90, in parallel.
2. Runs each natively; expected.json (under --work) keeps every kernel's result
   (a digest a slot, approximate slots in full), OUT/h100.json the first
   --ci-count kernels: the file CI compares the emulator with
   (tests/differential/expected/h100.json).
3. With --warplab, runs every batch on the emulator (`warplab run`) and compares
   word by word with the GPU's words: prints the count and every mismatch (also
   in OUT/mismatches.txt), and the float slots that held another NaN than the
   GPU's (accepted: differential.py); exit status 1 where there is a mismatch.
   Each kernel with a mismatch or a GPU failure whose SASS has an orphaned
   WARPSYNC (sass_outline.py: ptxas dropped a tile collective and kept its warp
   split) gets a `ptxas:` line saying so after the list.

Each step keeps what it made under --work: run the same command again after an
interruption and it goes on where it stopped.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import differential as d  # noqa: E402
import sass_outline  # noqa: E402


def log(text):
    print(text, flush=True)


def tool_line(command):
    try:
        out = subprocess.run(command, capture_output=True, text=True).stdout.strip().splitlines()
        return out[-1] if out else "unknown"
    except OSError:
        return "unknown"


def build_native(nvcc, source):
    """nvcc -arch=sm_90 on a batch, unless its program is newer than its source."""
    program = source[:-3] + ".native"
    if os.path.exists(program) and os.path.getmtime(program) >= os.path.getmtime(source):
        return program, None
    proc = subprocess.run([nvcc, "-arch=sm_90", "-o", program, source], capture_output=True, text=True)
    if proc.returncode != 0:
        return None, proc.stderr.strip()[-2000:]
    return program, None


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--count", type=int, required=True, help="kernels to generate")
    p.add_argument("--out", required=True, help="where h100.json and mismatches.txt go")
    p.add_argument("--work", default="/tmp/warplab-differential", help="batches, programs, results and expected.json")
    p.add_argument("--warplab", help="a warplab build: also run every kernel on its emulator and compare")
    p.add_argument("--ci-count", type=int, default=300, help="kernels in h100.json (the CI's expected file)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 4)
    p.add_argument("--simd", action="store_true", help="the integer SIMD intrinsics and min/max.NaN in the mix too (generate.py)")
    p.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    a = p.parse_args(argv)
    if a.count < 1 or a.seed < 0:
        p.error("--count must be at least 1 and --seed not negative")
    ci_count = min(a.ci_count, a.count)
    if ci_count < 1 or (ci_count % d.BATCH and ci_count != a.count):
        p.error(f"--ci-count must be a multiple of {d.BATCH} (whole programs) or the whole --count")
    if a.warplab and not os.access(a.warplab, os.X_OK):
        p.error(f"--warplab {a.warplab} is not an executable")
    if not os.access(a.nvcc, os.X_OK):
        p.error(f"no nvcc at {a.nvcc} (--nvcc)")
    work = os.path.join(a.work, f"seed-{a.seed}" + ("-simd" if a.simd else ""))
    os.makedirs(work, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)

    plan = [d.write_batch(a.seed, first, n, work, a.simd) + (first, n) for first, n in d.batches(a.count)]
    log(f"{a.count} kernels from seed {a.seed} in {len(plan)} programs under {work}")

    def build(item):
        program, error = build_native(a.nvcc, item[0])
        log(f"nvcc: {os.path.basename(item[0])} {'built' if program else 'FAILED'}")
        return program, error

    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        built = list(pool.map(build, plan))

    gpu_words, gpu_failures = {}, {}
    for (source, manifests, _, first, n), (program, error) in zip(plan, built):
        if not program:
            gpu_failures.update({first + i: f"nvcc: {error}" for i in range(n)})
            continue
        results = source[:-3] + ".gpu.bin"
        records = d.read_records(results)
        if len(records) == n and os.path.getmtime(results) >= os.path.getmtime(program):
            words, failures = {first + i: w for i, w in records.items()}, {}
        else:
            words, failures = d.run_batch([program], results, first, n, source[:-3] + ".gpu.log")
        gpu_words.update(words)
        gpu_failures.update(failures)
        log(f"gpu: kernels {first} to {first + n - 1}: {len(words)} ran, {len(failures)} failed")
    manifests = {m["index"]: m for item in plan for m in item[1]}

    recorded = {
        "format": d.FORMAT, "seed": a.seed, "batch": d.BATCH,
        "gpu": tool_line(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"]),
        "nvcc": tool_line([a.nvcc, "--version"]), "recorded": datetime.date.today().isoformat(),
    }
    if a.simd:
        recorded["simd"] = True

    def expected_file(count):
        return dict(recorded, count=count,
                    sources={str(item[3]): item[2] for item in plan if item[3] < count},
                    failures={str(i): t for i, t in sorted(gpu_failures.items()) if i < count},
                    kernels=[d.summary(manifests[i], gpu_words[i]) for i in sorted(gpu_words) if i < count])

    with open(os.path.join(work, "expected.json"), "w") as f:
        json.dump(expected_file(a.count), f, separators=(",", ":"))
    with open(os.path.join(a.out, "h100.json"), "w") as f:
        json.dump(expected_file(ci_count), f, indent=0, separators=(",", ":"))
    log(f"gpu: {len(gpu_words)} kernels recorded in {work}/expected.json (and the first {ci_count} in {a.out}/h100.json); "
        f"{len(gpu_failures)} failed on the GPU")
    for i, text in sorted(gpu_failures.items()):
        log(f"gpu failure: kernel {i}: {text}")
    if not a.warplab:
        return 0 if not gpu_failures else 1

    os.environ.setdefault("XDG_CACHE_HOME", os.path.join(a.work, "cache"))
    emu_words, emu_failures, _, _ = d.run_emulator(os.path.abspath(a.warplab), a.seed, a.count, work, a.jobs, log, a.simd)
    mismatches, nan_only = [], []
    for i in sorted(manifests):
        if i in gpu_failures:
            continue
        if i in emu_failures:
            mismatches.append(f"{manifests[i]['name']} (kernel {i}): the emulator failed: {emu_failures[i]}")
        elif i not in emu_words:
            mismatches.append(f"{manifests[i]['name']} (kernel {i}): no result from the emulator")
        else:
            mismatches += d.compare(manifests[i], d.summary(manifests[i], gpu_words[i]), emu_words[i], gpu_words[i],
                                    nan_only=nan_only)
    compared = len([i for i in manifests if i not in gpu_failures])
    kernels_off = len({line.split(" ")[0] for line in mismatches})
    parted = sorted({int(m.group(1)) for line in mismatches if (m := re.search(r"\(kernel (\d+)\)", line))} | set(gpu_failures))
    report = [f"differential: {compared} kernels (seed {a.seed}) compared, emulator against {recorded['gpu']}: "
              f"{compared - kernels_off} equal, {kernels_off} with a mismatch ({len(mismatches)} mismatches); "
              f"{len(nan_only)} float slots held another NaN than the GPU's, as PTX allows"] + mismatches + \
             [f"accepted: {line}" for line in nan_only] + \
             sass_outline.ptxas_notes(a.nvcc, a.seed, parted, os.path.join(work, "ptxas"), a.simd)
    with open(os.path.join(a.out, "mismatches.txt"), "w") as f:
        f.write("\n".join(report) + "\n")
    for line in report:
        log(line)
    return 1 if mismatches or gpu_failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
