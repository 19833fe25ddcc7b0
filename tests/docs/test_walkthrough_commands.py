#!/usr/bin/env python3
"""Every command a walkthrough shows runs, as a learner would type it.

The commands are the lines of `sh` fences and the inline code spans that
start with build/warplab, build/warplab-viewer, warplab or diff <(...) (whose
two halves are run). Each runs from the repository root on the emulator:
a trace, sweep, occupancy or recorded bench must exit 0 (the racy tail's
trace, shown to make its race appear, exits 3 with the fault). A command
that needs a GPU (bench without --recorded, a GPU-only version) is run too:
on a machine without one it must get past its options and stop only for the
GPU (exit 2, "no GPU to time on" or "runs only on a GPU"), so an unknown or
misused option still fails it. The viewer's
commands render one frame headless (--screenshot). cmake lines are what built
the binaries under test, and are not run.

Then shows the check can fail: a made-up walkthrough with an unknown option,
a misused one and a failing trace must give three failures.

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

LABS = ["reduction", "matmul", "coalescing", "transpose", "image"]
INLINE = re.compile(r"`((?:build/)?warplab(?:-viewer)?\s[^`]+|diff <\([^`]+)`")
# Where only the GPU is missing: the options were parsed and checked first.
NEEDS_GPU = ("no GPU to time on", "runs only on a GPU")
# Commands shown to make a fault appear (exit 3, the emulator's report): the lesson of the racy tail.
SHOWS_A_FAULT = {"build/warplab trace reduction v5-racy",
                 "build/warplab trace image v3-wave64 --schedule lockstep --size 37,23"}


def commands_of(text: str) -> list[tuple[int, str]]:
    """(line number, command) for each command shown, halves of a diff apart."""
    found = []
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if m:
            fence = (m[1][0], line.strip()[len(m[1]):].strip()) if fence is None else (None if m[1][0] == fence[0] else fence)
            fence = fence if fence and fence[0] else None
            continue
        if fence:
            stripped = line.split("  #")[0].strip()
            if fence[1] == "sh" and stripped and not stripped.startswith("#"):
                found.append((number, stripped))
            continue
        # A span of the tool and a subcommand alone (`warplab bench`) names a command, it does not show one.
        found += [(number, c.strip()) for c in INLINE.findall(line) if len(c.split()) >= 3]
    out = []
    for number, command in found:
        if command.startswith("diff <("):
            out += [(number, half) for half in re.findall(r"<\(([^)]*)\)", command)]
        else:
            out.append((number, command))
    return out


def run(command: str, warplab: str, viewer: str | None, shots: str) -> str | None:
    """None when the command ran as a learner would need; else why not."""
    command = command if command.startswith(("build/", "cmake ", "diff ")) else "build/" + command
    if command.startswith("cmake "):
        return None
    args = shlex.split(command)
    tool = args[0].split("/")[-1]
    if tool == "warplab-viewer":
        if not viewer:
            return None  # no viewer built here (SDL2 missing): the CLI's commands still run
        args = [viewer] + args[1:] + ["--screenshot", os.path.join(shots, re.sub(r"\W+", "_", command) + ".png")]
    elif tool == "warplab":
        args = [warplab] + args[1:]
    else:
        return f"not a warplab command: {command}"
    try:
        r = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "did not finish in 120 s"
    if r.returncode == 0:
        return None
    if r.returncode == 2 and any(phrase in r.stderr for phrase in NEEDS_GPU):
        return None  # options parsed and checked; only the GPU is missing
    if r.returncode == 3 and "kernel fault" in r.stderr and command in SHOWS_A_FAULT:
        return None
    return f"exit {r.returncode}: {(r.stderr or r.stdout).strip().splitlines()[-1] if (r.stderr or r.stdout).strip() else ''}"


def check(text: str, where: str, warplab: str, viewer: str | None, shots: str, seen: dict) -> list[str]:
    """Runs each command not yet in `seen` (two at a time: the machine's two cores), then reports by line."""
    shown = commands_of(text)
    fresh = sorted({c for _, c in shown} - seen.keys())
    with ThreadPoolExecutor(max_workers=2) as pool:
        seen.update(zip(fresh, pool.map(lambda c: run(c, warplab, viewer, shots), fresh)))
    return [f"{where}:{number}: `{command}`: {seen[command]}" for number, command in shown if seen[command]]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--warplab", required=True)
    ap.add_argument("--viewer")
    a = ap.parse_args()
    viewer = a.viewer if a.viewer and os.path.exists(a.viewer) else None
    failures, seen = [], {}
    with tempfile.TemporaryDirectory() as shots:
        for lab in LABS:
            path = os.path.join(REPO, "labs", lab, "walkthrough.md")
            failures += check(open(path, encoding="utf-8").read(), os.path.relpath(path, REPO), a.warplab, viewer, shots, seen)
        count = len(seen)
        # The check fails where it should: an unknown option, --versions without --markdown, an unknown version.
        made_up = ("```sh\nbuild/warplab trace reduction v1 --no-such-option\n```\n"
                   "Then `build/warplab bench reduction --recorded --versions v9,ref` and\n"
                   "`diff <(build/warplab trace reduction v1) <(build/warplab trace reduction v99)`.\n")
        caught = check(made_up, "made-up", a.warplab, viewer, shots, {})
    if len(caught) != 3:
        failures.append(f"the made-up walkthrough should fail 3 commands, failed {len(caught)}: {caught}")
    for f in failures:
        print("FAIL:", f)
    print(f"{count} distinct walkthrough commands run{'' if viewer else ' (viewer commands skipped: no viewer built)'}; "
          f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
