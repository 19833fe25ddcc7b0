#!/usr/bin/env python3
"""Every command a walkthrough shows runs, as a learner would type it.

The commands are the lines of `sh` fences and the inline code spans that
start with build/warplab, build/warplab-viewer or warplab. Each is written as
it runs from the repository root (build/warplab, not warplab), and a diff of
two traces is refused: it marks every row as changed (line numbers, widths);
`warplab trace LAB A --compare B` sets two traces side by side. Each runs from the repository root on the emulator:
a trace, sweep, occupancy or recorded bench must exit 0 (the racy tail's
trace and v5 without a line's __syncwarp(), shown to make a race appear, exit 3 with the fault). A command
that needs a GPU (bench without --recorded, a GPU-only version) is run too:
on a machine without one it must get past its options and stop only for the
GPU (exit 2, "no GPU to time on" or "runs only on a GPU"), so an unknown or
misused option still fails it, and the text must mark it "(GPU only)" after
the span, or "# GPU only" in a fence. The viewer's
commands render one frame headless (--screenshot). cmake lines are what built
the binaries under test, and are not run.

Then shows the check can fail: a made-up walkthrough with an unknown option,
a misused one, a failing trace, an unmarked GPU command, one without build/
and a diff must give six failures.

Usage: test_walkthrough_commands.py --warplab PATH [--viewer PATH]
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "scripts"))
from fill_results import FENCE  # noqa: E402  (one reading of a fence, shared with the reading time)

LABS = ["reduction", "matmul", "coalescing", "transpose", "image", "transfers", "method"]
# Walkthroughs of no lab, by their path in the repository.
OTHER_WALKTHROUGHS = ["docs/program-walkthrough.md"]
INLINE = re.compile(r"`((?:build/)?warplab(?:-viewer)?\s[^`]+|diff <\([^`]+)`( \(GPU only\))?")
# Where only the GPU is missing: the options were parsed and checked first.
NEEDS_GPU = ("no GPU to time on", "runs only on a GPU")
# Commands shown to make a fault appear (exit 3, the emulator's report): the lesson of the racy tail.
SHOWS_A_FAULT = {"build/warplab trace reduction v5-racy", "build/warplab trace reduction v5 --without-barrier 27",
                 "build/warplab trace image v3-wave64 --schedule lockstep --size 37,23"}
# Commands shown to make a refusal appear, on any machine: versions that are timed but never traced.
SHOWS_A_REFUSAL = {f"build/warplab trace matmul {v}" for v in ("v11", "v12", "v14", "v15")}


def commands_of(text: str) -> list[tuple[int, str, bool]]:
    """(line number, command, marked GPU only) for each command shown."""
    found = []
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if m:
            fence = (m[1][0], line.strip()[len(m[1]):].strip()) if fence is None else (None if m[1][0] == fence[0] else fence)
            fence = fence if fence and fence[0] else None
            continue
        if fence:
            stripped, _, comment = line.partition("  #")
            if fence[1] == "sh" and stripped.strip() and not stripped.strip().startswith("#"):
                found.append((number, stripped.strip(), "GPU only" in comment))
            continue
        # A span of the tool and a subcommand alone (`warplab bench`) names a command, it does not show one.
        found += [(number, c.strip(), bool(mark)) for c, mark in INLINE.findall(line) if len(c.split()) >= 3]
    return found


def as_written(command: str) -> str | None:
    """Why a command is not written as a learner runs it from the repository root; None when it is."""
    if command.startswith("diff <("):
        return "a diff of two traces marks every row as changed; show them with warplab trace LAB A --compare B"
    if not command.startswith(("build/", "cmake ")):
        return "write it as it runs from the repository root: build/" + command
    return None


def run(command: str, warplab: str, viewer: str | None, shots: str) -> str | None:
    """None when the command ran as a learner would need; "gpu" when only the GPU is missing; else why not."""
    if command.startswith("cmake ") or as_written(command):
        return None
    args = shlex.split(command)
    tool = args[0].split("/")[-1]
    if tool == "warplab-viewer":
        if not viewer:
            return None  # no viewer built here (SDL2 missing): the CLI's commands still run
        # Before --run, which takes the rest of the line for the program.
        at = args.index("--run") if "--run" in args else len(args)
        args = [viewer] + args[1:at] + ["--screenshot", os.path.join(shots, re.sub(r"\W+", "_", command) + ".png")] + args[at:]
    elif tool == "warplab":
        args = [warplab] + args[1:]
        if "--record" in args[:-1]:  # a GPU's recording goes to a scratch file, never over results/
            args[args.index("--record") + 1] = os.path.join(shots, "recorded.json")
    else:
        return f"not a warplab command: {command}"
    try:
        r = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "did not finish in 120 s"
    if r.returncode == 0:
        return None
    if r.returncode == 2 and command in SHOWS_A_REFUSAL:
        return None
    if r.returncode == 2 and any(phrase in r.stderr for phrase in NEEDS_GPU):
        return "gpu"  # options parsed and checked; only the GPU is missing
    if r.returncode == 3 and "kernel fault" in r.stderr and command in SHOWS_A_FAULT:
        return None
    return f"exit {r.returncode}: {(r.stderr or r.stdout).strip().splitlines()[-1] if (r.stderr or r.stdout).strip() else ''}"


def check(text: str, where: str, warplab: str, viewer: str | None, shots: str, seen: dict) -> list[str]:
    """Runs each command not yet in `seen` (two at a time: the machine's two cores), then reports by line."""
    shown = commands_of(text)
    fresh = sorted({c for _, c, _ in shown} - seen.keys())
    with ThreadPoolExecutor(max_workers=2) as pool:
        seen.update(zip(fresh, pool.map(lambda c: run(c, warplab, viewer, shots), fresh)))
    failures = []
    for number, command, gpu_marked in shown:
        why = as_written(command) or seen[command]
        if why == "gpu":
            why = None if gpu_marked else "needs a GPU: mark it (GPU only) after the span, or # GPU only in a fence"
        if why:
            failures.append(f"{where}:{number}: `{command}`: {why}")
    return failures


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--warplab", required=True)
    ap.add_argument("--viewer")
    a = ap.parse_args()
    viewer = a.viewer if a.viewer and os.path.exists(a.viewer) else None
    failures, seen = [], {}
    with tempfile.TemporaryDirectory() as shots:
        for path in [os.path.join(REPO, "labs", lab, "walkthrough.md") for lab in LABS] + [os.path.join(REPO, p) for p in OTHER_WALKTHROUGHS]:
            failures += check(open(path, encoding="utf-8").read(), os.path.relpath(path, REPO), a.warplab, viewer, shots, seen)
        count = len(seen)
        # The check fails where it should: an unknown option, --versions without --markdown, an unknown version,
        # a GPU's command not marked so (the same one marked passes), one without build/, a diff of traces.
        made_up = ("```sh\nbuild/warplab trace reduction v1 --no-such-option\n"
                   "build/warplab bench reduction --n 4096  # GPU only\n```\n"
                   "Then `build/warplab bench reduction --recorded --versions v9,ref` and\n"
                   "`build/warplab trace reduction v99`, `build/warplab bench reduction --n 4096` (on a GPU),\n"
                   "`warplab trace reduction v1`, `diff <(build/warplab trace reduction v1) <(build/warplab trace reduction v2)`.\n")
        caught = check(made_up, "made-up", a.warplab, viewer, shots, {})
    gpu = subprocess.run([a.warplab, "list"], capture_output=True, text=True).stdout
    expected = 6 if "GPU: none" in gpu else 5  # with a GPU the unmarked bench runs
    if len(caught) != expected:
        failures.append(f"the made-up walkthrough should fail {expected} commands, failed {len(caught)}: {caught}")
    for f in failures:
        print("FAIL:", f)
    print(f"{count} distinct walkthrough commands run{'' if viewer else ' (viewer commands skipped: no viewer built)'}; "
          f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
