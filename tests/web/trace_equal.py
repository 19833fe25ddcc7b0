#!/usr/bin/env python3
"""The browser build's CLI (warplab.js under node) against this build's warplab:
every version the emulator runs, `trace <lab> <version> --json`, byte for byte
(stdout, stderr and exit code: v5-racy faults the same way in both).

The native side runs its blocks on one host thread, in order, as the browser
build does (WARPLAB_HOST_THREADS=1); the web side may refuse a kernel that calls
device functions, in one line (WebAssembly has no fibers), and the test counts
those. The comparison is shown to see differences: reduction v1 at seed 1
natively against seed 2 in the browser build must differ, and a bad
WARPLAB_HOST_THREADS must be refused. Exit 77 (skipped) where there is no web
build or no node.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import time
import prerequisites

REFUSAL = "calls device functions"


def emulator_versions(native):
    """(lab, version) for every version `warplab list` does not mark [GPU only]."""
    out = subprocess.run([native, "list"], check=True, capture_output=True, text=True).stdout
    lab, found = None, []
    for line in out.splitlines():
        if line and not line.startswith(" "):
            lab = line.split(":")[0]
        elif line.strip() and "[GPU only]" not in line:
            found.append((lab, line.split()[0]))
    return found


# The CLI clears its progress line on a terminal; emscripten's isatty says stderr is one even
# when it is a pipe. The sequence is presentation, not output: left out of stderr on both sides.
CLEAR_LINE = b"\r\x1b[K"

# Blocks that meet through atomics (matmul v13's stream-K tiles) arrive in the order the
# host threads run them; the browser build has one thread, so the native build runs with
# one too (WARPLAB_HOST_THREADS=1: blocks in order), else its trace varies from run to run.
NATIVE_ENV = dict(os.environ, WARPLAB_HOST_THREADS="1")


# Which warplab wrote a document says which build made it, not what ran: two
# builds of different commits (or one with uncommitted changes) name different ones.
WRITER = re.compile(rb'"warplab": "[^"]*"')


def run(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, env=env)
    return p.returncode, WRITER.sub(b'"warplab": ""', p.stdout), p.stderr.replace(CLEAR_LINE, b"")


def differences(native, web):
    why = []
    if native[0] != web[0]:
        why.append(f"exit {native[0]} natively, {web[0]} in the web build")
    if native[1] != web[1]:
        why.append(f"stdout differs ({len(native[1])} against {len(web[1])} bytes)")
    if native[2] != web[2]:
        why.append(f"stderr: {native[2].decode()[:200]!r} against {web[2].decode()[:200]!r}")
    return "; ".join(why)


def compare(args, lab, version):
    """(verdict, problem, note): verdict equal, refused or different; a problem fails the test."""
    web = run([args.node, args.web, "trace", lab, version, "--json"])
    if web[0] != 0 and REFUSAL.encode() in web[2]:
        lines = web[2].decode().strip().splitlines()
        return ("refused", "" if len(lines) == 1 else f"refusal is {len(lines)} lines: {lines}", "")
    native = run([args.native, "trace", lab, version, "--json"], NATIVE_ENV)
    if native == web:
        return ("equal", "", "")
    return ("different", differences(native, web), "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--native", required=True)
    ap.add_argument("--web", required=True, help="warplab.js of the web build")
    ap.add_argument("--node", default="node")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    skipped = prerequisites.skip(prerequisites.no_web_build(args.web), prerequisites.no_program(args.node, "node"))
    if skipped:
        return skipped

    start = time.time()
    # The comparison can fail: other inputs give another document.
    seed1 = run([args.native, "trace", "reduction", "v1", "--json"], NATIVE_ENV)
    seed2 = run([args.node, args.web, "trace", "reduction", "v1", "--json", "--seed", "2"])
    if seed1[0] != 0 or seed2[0] != 0 or seed1[1] == seed2[1]:
        print("FAIL: reduction v1 at seeds 1 and 2 should both run and differ")
        return 1

    bad_env = run([args.native, "trace", "reduction", "v1"], dict(os.environ, WARPLAB_HOST_THREADS="two"))
    if bad_env[0] != 2 or b"WARPLAB_HOST_THREADS=two" not in bad_env[2]:
        print("FAIL: WARPLAB_HOST_THREADS=two should be refused in one line")
        return 1
    versions = emulator_versions(args.native)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda lv: (lv, compare(args, *lv)), versions))
    failed = 0
    counts = {"equal": 0, "refused": 0, "different": 0}
    for (lab, version), (verdict, why, note) in results:
        counts[verdict] += 1
        bad = verdict == "different" or why
        failed += bool(bad)
        print(f"{'FAIL' if bad else 'ok  '} {lab} {version}: {verdict}{note}{': ' + why if why else ''}")
    print(f"{len(versions)} versions: {counts['equal']} byte-identical, {counts['refused']} refused in the browser "
          f"(device-function calls), {counts['different']} different; {time.time() - start:.1f} s")
    if counts["equal"] == 0:
        print("FAIL: no version compared")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
