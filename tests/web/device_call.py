#!/usr/bin/env python3
"""Kernels that call device functions in the browser build: refused in one line.

device_call.cu's two kernels compute out[i] = i*i + i % 32 for i < n, one
through a __noinline__ device function (a `.func` and a `call` in its PTX: the
emulator runs such a kernel's lanes on fibers, which WebAssembly lacks), one
inline. run_ptx launches either from the PTX on 64 threads (two blocks of 32)
with n = 37: expected, by hand, out[i] = i*i + i % 32 for i < 37 (out[0] = 0,
out[33] = 1089 + 1 = 1090, out[36] = 1296 + 4 = 1300) and -1 (unwritten) from
37 on, the second block partly filled.

  native run_ptx, with_call:         the expected values (the fixture is right; fibers run it)
  web run_ptx under node, inline:    the expected values (the browser build runs kernels from PTX)
  web run_ptx under node, with_call: exit 1 and one line naming device functions

Exit 77 (skipped) where there is no web build, no node, or no PTX (no nvcc).
"""
import argparse
import os
import subprocess
import sys
import prerequisites

N = 37
THREADS = 64
EXPECTED = [i * i + i % 32 if i < N else -1 for i in range(THREADS)]
REFUSAL = "calls device functions"


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def values(out):
    return [int(v) for v in out.split()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--native", required=True, help="run_ptx of this build")
    ap.add_argument("--web", required=True, help="run_ptx.js of the web build")
    ap.add_argument("--ptx", required=True, help="device_call.cu compiled by nvcc -ptx")
    ap.add_argument("--node", default="node")
    args = ap.parse_args()
    skipped = prerequisites.skip(prerequisites.no_web_build(args.web), None if os.path.exists(args.ptx) else f"no PTX (needs nvcc) ({args.ptx})")
    if skipped:
        return skipped
    with open(args.ptx) as f:
        ptx = f.read()
    if ".func" not in ptx or "call" not in ptx:
        print("FAIL: the fixture's PTX has no .func and call: nvcc inlined the device function, the test proves nothing")
        return 1
    failed = 0
    code, out, err = run([args.native, args.ptx, "with_call", str(N)])
    ok = code == 0 and values(out) == EXPECTED
    print(f"{'ok  ' if ok else 'FAIL'} native, with_call: {'the expected values' if ok else (out + err).strip()[:300]}")
    failed += not ok
    code, out, err = run([args.node, args.web, args.ptx, "inline_only", str(N)])
    ok = code == 0 and values(out) == EXPECTED
    print(f"{'ok  ' if ok else 'FAIL'} browser build, inline_only: {'the expected values' if ok else (out + err).strip()[:300]}")
    failed += not ok
    code, out, err = run([args.node, args.web, args.ptx, "with_call", str(N)])
    lines = err.strip().splitlines()
    ok = code != 0 and len(lines) == 1 and REFUSAL in lines[0] and not out.strip()
    print(f"{'ok  ' if ok else 'FAIL'} browser build, with_call: exit {code}, {len(lines)} line(s): {err.strip()[:300]!r}")
    failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
