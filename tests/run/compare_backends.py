#!/usr/bin/env python3
"""`warplab run --backend gpu` against the emulator: the programs of
tests/run/programs/ run on both, and each watched launch's trace on the GPU
must equal the emulator's event for event (every step, access, lane address,
value, bank and sector count), with the same program output and exit code.

    compare_backends.py WARPLAB PROGRAMS WORK

Prints "no GPU: ..." and exits 0 (CTest marks the test skipped) where
`--backend gpu` is refused for want of a GPU.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

# (name, warplab's arguments before the file, the file, the program's arguments).
# The grid-synchronised ones (GRID_BARRIER) are compared without their accesses
# to memory outside the kernel's arguments (array 255): there the grid barrier
# polls its arrival word as often as the blocks' timing makes it, on the GPU as
# on the emulator, so the number of those loads is no property of the kernel;
# nor are the step metrics and totals that count them.
GRID_BARRIER = {"grid_sync", "grid_sync_phases"}
# The cases whose kernels read __constant__ variables through ld.const: their traces must hold
# constant loads on both backends (so that the comparison covers them), in the same events.
CONSTANT_LOADS = {"histogram", "texture_2d"}
CASES = [
    ("vector_add", [], "vector_add.cu", []),
    # n = 1000 in blocks of 256: block 3 holds threads 768..1023, of which 232 add (a partial last warp)
    ("vector_add_last_block", ["--watch", "vector_add@3"], "vector_add.cu", []),
    # a host loop of two launches; 1024 bytes of dynamic shared memory each
    ("reduction", ["--watch", "reduce_pass:1,reduce_pass:2"], "reduction.cu", []),
    # a __constant__ table written by cudaMemcpyToSymbol: the instrumented module must see the program's copy
    ("histogram", [], "histogram.cu", []),
    # a struct of device pointers by value; <<< >>> then cudaLaunchKernel; a __device__ counter read back
    ("struct_args", ["--watch", "saxpy:1,saxpy:2@2"], "struct_args.cu", []),
    # three launches of a scan, a 2D grid over pitched rows, managed memory
    ("host_correct", ["--watch", "scan_sections:1,scan_sections:2,add_sums:1@5,scale_rows:1@1,count_up:1"], "host_correct.cu", []),
    # cooperative launches: cudaLaunchCooperativeKernel, then cudaLaunchKernelEx with the cooperative attribute
    ("grid_sync", [], "grid_sync.cu", []),
    ("grid_sync_phases", ["--watch", "scan_grid@4"], "grid_sync.cu", ["phases"]),
    # texture objects: tex1Dfetch over linear memory beside a plain and an __ldg read; a CUDA array's addressing modes
    ("texture_shift", ["--watch", "shift_copy:1,shift_copy_ldg:1,shift_copy_tex:1"], "texture_shift.cu", []),
    ("texture_2d", [], "texture_2d.cu", []),
]


def warplab(binary, cache, programs, args):
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    return subprocess.run([binary, "run", *args], cwd=programs, env=env, capture_output=True, text=True, timeout=600)


def first_difference(a, b, path="$"):
    """The JSON path of the first place where a and b differ, with both values; None when equal."""
    if type(a) is not type(b):
        return f"{path}: {json.dumps(a)[:200]} against {json.dumps(b)[:200]}"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{path}.{key}: only in the {'emulator' if key in a else 'GPU'}'s"
            d = first_difference(a[key], b[key], f"{path}.{key}")
            if d:
                return d
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        if len(a) != len(b):
            return f"{path}: {len(a)} items against {len(b)}"
        return None
    return None if a == b else f"{path}: {json.dumps(a)[:200]} against {json.dumps(b)[:200]}"


# What a trace document must agree on; the rest (the warplab that wrote it, the backend) may differ.
TRACE_FIELDS = ("kernel", "source", "grid", "block", "watched_block", "blocks", "totals")
# host_line: the program's line of the launch, found past nvcc's host wrapper on either backend.
LAUNCH_FIELDS = ("index", "kernel", "grid", "block", "shared_bytes", "trace", "watched_block", "host_line")


def comparable(trace, case):
    """The trace's fields that must agree. An atomic's value is what it leaves in
    memory, which depends on the order in which lanes and warps reach it (the
    hardware's on the GPU, the seeded schedule's on the emulator): atomics are
    compared by lane, address and size, not value, and the shared memory the
    trace rebuilds from the values (each step's shared_after) only up to the
    first step with an atomic on shared memory. Only the emulator counts the
    instruction mix: it is left out. __constant__ loads (ld.const) are traced
    on both, each as the variable's place among the module's variables and the
    offset in it, and compared with their values and the constant_load counts."""
    doc = {k: trace.get(k) for k in TRACE_FIELDS}
    for block in doc["blocks"] or []:
        block.pop("mix", None)
        events = block["events"]
        if case in GRID_BARRIER:
            events = [e for e in events if not (e["space"] == "global" and e["array"] == 255)]
            block.pop("steps", None)
            block.pop("totals", None)
            doc["totals"] = None
        shared_atomics = [e["step"] for e in events if e["kind"] == "atomic" and e["space"] == "shared"]
        for step in block.get("steps", [])[min(shared_atomics, default=len(block.get("steps", []))):]:
            step.pop("shared_after", None)
        for e in events:
            if e["kind"] == "atomic":
                e["lanes"] = [lane[:2] for lane in e["lanes"]]
        block["events"] = events
    return doc


def program_output(stdout):
    return stdout.split("\nwarplab: ")[0]


def compare_case(binary, programs, work, case):
    name, options, source, program_args = case
    runs = {}
    for backend in ("cpu", "gpu"):
        out = work / name / backend
        r = warplab(binary, work / "cache", programs, [*options, "--backend", backend, "--json", str(out), source, "--", *program_args])
        manifest = json.loads((out / "manifest.json").read_text()) if (out / "manifest.json").exists() else None
        runs[backend] = (r, out, manifest)
    (emu, emu_dir, emu_manifest), (gpu, gpu_dir, gpu_manifest) = runs["cpu"], runs["gpu"]
    failures = []
    if emu.returncode != gpu.returncode:
        failures.append(f"exit {emu.returncode} on the emulator, {gpu.returncode} on the GPU; GPU stderr: {gpu.stderr.strip()}")
    if program_output(emu.stdout) != program_output(gpu.stdout):
        failures.append(f"the program's output differs:\n  emulator: {program_output(emu.stdout)!r}\n  GPU:      {program_output(gpu.stdout)!r}")
    if not emu_manifest or not gpu_manifest:
        return failures + [f"no manifest (emulator stderr: {emu.stderr.strip()}; GPU stderr: {gpu.stderr.strip()})"]
    if gpu_manifest.get("backend") != "gpu":
        failures.append("the GPU run's manifest does not say backend gpu")
    traces = constant_loads = 0
    for e, g in zip(emu_manifest["launches"], gpu_manifest["launches"]):
        d = first_difference({k: e.get(k) for k in LAUNCH_FIELDS}, {k: g.get(k) for k in LAUNCH_FIELDS})
        if d:
            failures.append(f"launch {e['index']}: the records differ at {d}")
            continue
        if "error" in g:
            failures.append(f"launch {g['index']} failed on the GPU: {g['error']}")
        if not e.get("trace"):
            continue
        emu_trace = json.loads((emu_dir / e["trace"]).read_text())
        gpu_trace = json.loads((gpu_dir / g["trace"]).read_text())
        d = first_difference(comparable(emu_trace, name), comparable(gpu_trace, name))
        if d:
            failures.append(f"launch {e['index']} ({e['kernel']}, block {e['watched_block']}): the traces differ at {d}")
        constant_loads += sum(ev["space"] == "constant" for b in gpu_trace["blocks"] for ev in b["events"])
        traces += 1
    if name in CONSTANT_LOADS and constant_loads == 0:
        failures.append("no __constant__ load in the GPU's traces: the comparison did not cover them")
    if len(emu_manifest["launches"]) != len(gpu_manifest["launches"]):
        failures.append(f"{len(emu_manifest['launches'])} launches on the emulator, {len(gpu_manifest['launches'])} on the GPU")
    if traces == 0:
        failures.append("no launch was traced")
    print(f"{name}: {traces} watched launch{'es' if traces != 1 else ''} compared"
          + (f", {constant_loads} constant loads among their events" if constant_loads else "")
          + (": DIFFER" if failures else ": equal"))
    return failures


def main():
    binary, programs, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    work.mkdir(parents=True, exist_ok=True)
    probe = warplab(binary, work / "cache", programs, ["--backend", "gpu", "--watch", "vector_add@0", "vector_add.cu", "--", "1"])
    if probe.returncode == 2 and "no GPU" in probe.stderr:
        print(probe.stderr.strip().replace("warplab: error: --backend gpu: ", ""))
        return 0
    # The comparison itself tells traces apart: block 0 of the emulator's vector add against its block 1.
    a = warplab(binary, work / "cache", programs, ["--watch", "vector_add@0", "--json", str(work / "self0"), "vector_add.cu"])
    b = warplab(binary, work / "cache", programs, ["--watch", "vector_add@1", "--json", str(work / "self1"), "vector_add.cu"])
    t0 = json.loads((work / "self0" / "launch-1.json").read_text())
    t1 = json.loads((work / "self1" / "launch-1.json").read_text())
    if a.returncode or b.returncode or not first_difference(t0["blocks"], t1["blocks"]):
        print("the comparison does not tell block 0's trace from block 1's")
        return 1
    failures = []
    for case in CASES:
        failures += [f"{case[0]}: {f}" for f in compare_case(binary, programs, work, case)]
    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
