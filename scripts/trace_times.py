#!/usr/bin/env python3
"""CPU time (user + system) of `warplab trace <lab> <version> [ARGS]` for every
version the emulator runs, with two builds side by side (the least of REPEATS
runs each), and their ratio: how much a change to the emulator costs the labs'
traces. CPU time, not wall time, so that other work on the machine weighs less.

    scripts/trace_times.py BEFORE_WARPLAB AFTER_WARPLAB [--repeats N] [-- ARGS...]
"""
import argparse
import os
import re
import resource
import subprocess
import sys


def versions(warplab):
    """(lab, version) of every version `warplab list` shows that runs on the emulator."""
    listing = subprocess.run([warplab, "list"], capture_output=True, text=True).stdout
    lab = None
    for line in listing.splitlines():
        if re.match(r"^[a-z]+:", line):
            lab = line.split(":")[0]
        elif line.startswith("  v") and "GPU only" not in line:
            yield lab, line.split()[0]


def cpu_seconds(command):
    """The CPU seconds one run of `command` took (its output is dropped)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("args", nargs="*", help="more arguments of each trace (after --)")
    opt = parser.parse_args()
    for warplab in (opt.before, opt.after):
        if not os.access(warplab, os.X_OK):
            sys.exit(f"{sys.argv[0]}: {warplab} is not an executable")
    print("| lab | version | before (ms) | after (ms) | after / before |\n| --- | --- | --- | --- | --- |")
    for lab, version in versions(opt.after):
        best = [min(cpu_seconds([w, "trace", lab, version, *opt.args]) for _ in range(opt.repeats))
                for w in (opt.before, opt.after)]
        print(f"| {lab} | {version} | {best[0] * 1000:.0f} | {best[1] * 1000:.0f} | {best[1] / best[0]:.2f} |")


if __name__ == "__main__":
    main()
