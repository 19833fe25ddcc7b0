#!/usr/bin/env python3
"""The page's trace module (warplab-trace.js, which its Worker runs) under
node against this build's warplab: for a few versions, the document the Worker
sends back equals `warplab trace <lab> <version> --json` (the same run, parsed:
the Worker's is compact, the CLI's indented), and a faulting kernel comes back
as the same fault. The request is the one the viewer sends, its n, block, type
and schedule taken from the native document. The comparison can fail: a
request for another n must give another document; a malformed request must
come back as an error, not a trace. A request for the totals alone (the
metrics panel's rows of the versions not shown) comes back as the native
document's totals and nothing else, a few hundred bytes, or as the fault. Exit 77 (skipped) where there is no web
build or no node.
"""
import argparse
import json
import os
import subprocess
import sys
import time
import prerequisites

# A 1D block with shared snapshots; a 2D launch with a problem line and a check;
# the image lab's partial sums; a 64-lane warp; a kernel that faults (a race).
VERSIONS = [("reduction", "v2", []), ("matmul", "v5", []), ("image", "v2", []), ("reduction", "v3", ["--warp-size", "64"]),
            ("reduction", "v5-racy", [])]
MAX_TOTALS_BYTES = 2000  # five counters' JSON; the whole trace's is 0.3 to 18 MB
NATIVE_ENV = dict(os.environ, WARPLAB_HOST_THREADS="1")  # blocks in order, as the browser build runs them


def native(args, lab, version, extra):
    p = subprocess.run([args.native, "trace", lab, version, "--json", *extra], capture_output=True, text=True, env=NATIVE_ENV)
    return p.returncode, (json.loads(p.stdout) if p.returncode == 0 else p.stderr.strip())


def request(lab, doc, warp_width=32, n=None):
    # shape and block_dim empty: the lab's defaults, as the native run took them (viewer/app/trace_runner.cpp's request)
    return {"lab": lab, "version": doc["version"], "n": n if n is not None else doc["n"], "shape": [], "block": doc["block"],
            "block_dim": [], "type": doc["type"], "backend": 0, "schedule": doc["schedule"], "setting": -1,
            "warp_width": warp_width, "max_instructions": 0}


def worker(args, requests):
    """[(progress line, reply)] for each request, from one node process."""
    p = subprocess.run([args.node, args.script, args.module, *[json.dumps(r) for r in requests]], capture_output=True,
                       text=True)
    lines = p.stdout.splitlines()
    if p.returncode != 0 or len(lines) != 2 * len(requests):
        raise RuntimeError(f"node exited {p.returncode}: {p.stderr[-500:]}")
    return [(lines[i], json.loads(lines[i + 1])) for i in range(0, len(lines), 2)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--native", required=True)
    ap.add_argument("--module", required=True, help="warplab-trace.js of the web build")
    ap.add_argument("--script", required=True, help="tests/web/worker_trace.js")
    ap.add_argument("--node", default="node")
    args = ap.parse_args()
    skipped = prerequisites.skip(prerequisites.no_web_build(args.module), prerequisites.no_program(args.node, "node"))
    if skipped:
        return skipped
    start = time.time()
    failed = 0
    # The faulting version has no document: its request takes reduction v5's, which it shares.
    natives = {(lab, v): native(args, lab, v, extra) for lab, v, extra in VERSIONS}
    v5 = native(args, "reduction", "v5", [])[1]
    requests = []
    for lab, version, extra in VERSIONS:
        doc = natives[(lab, version)][1] if natives[(lab, version)][0] == 0 else dict(v5, version=version)
        requests.append(request(lab, doc, 64 if "64" in extra else 32))
    first = natives[VERSIONS[0][:2]][1]
    totals_of = [0, len(VERSIONS) - 1]  # reduction v2, and v5-racy's fault
    requests += [dict(requests[i], reply="totals") for i in totals_of]
    requests.append(request(VERSIONS[0][0], first, n=first["n"] + 1))  # another run: must differ
    requests.append({"lab": "reduction", "version": "v2"})             # malformed: no n, no block ...
    replies = worker(args, requests)

    for (lab, version, extra), (progress, reply) in zip(VERSIONS, replies):
        code, expected = natives[(lab, version)]
        if code == 0:
            document = dict(reply.get("document") or {})
            document.pop("warplab", None)  # which build wrote it, not what ran (trace_equal.py's WRITER)
            ok = document == {k: v for k, v in expected.items() if k != "warplab"}
            why = "" if ok else f"document differs: {json.dumps(reply)[:300]}"
        else:  # the native CLI's one line names the fault the Worker's reply carries
            ok = reply.get("fault") is True and reply["error"].removeprefix("kernel fault: ") in expected
            why = "" if ok else f"native {expected!r}, Worker {reply.get('error')!r}"
        ok = ok and progress.startswith("progress ") and int(progress.split()[1]) >= 1  # at least "started"
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {lab} {version} {' '.join(extra)}: {'as native' if ok else why} ({progress})")

    for i, (progress, reply) in zip(totals_of, replies[len(VERSIONS):]):
        (lab, version, _), (code, expected) = VERSIONS[i], natives[VERSIONS[i][:2]]
        size = len(json.dumps(reply, separators=(",", ":")))
        if code == 0:
            ok = reply == {"totals": expected["totals"]} and size < MAX_TOTALS_BYTES
        else:
            ok = reply.get("fault") is True and reply["error"].removeprefix("kernel fault: ") in expected and "totals" not in reply
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {lab} {version}, totals alone: {'as native' if ok else json.dumps(reply)[:300]}, {size} bytes")

    other, malformed = replies[-2][1], replies[-1][1]
    differs = "document" in other and other["document"] != natives[VERSIONS[0][:2]][1]
    refused = "document" not in malformed and malformed.get("error", "").startswith("malformed trace request")
    print(f"{'ok  ' if differs else 'FAIL'} reduction v2 at n + 1 gives another document")
    print(f"{'ok  ' if refused else 'FAIL'} a request without n is refused: {malformed.get('error', '')[:120]!r}")
    failed += (not differs) + (not refused)
    print(f"{len(requests)} requests, {time.time() - start:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
