#!/usr/bin/env python3
"""The source decks' tables (results/published/*.json) are as their authors printed them.

1. Each file's internal arithmetic holds where the source prints both sides:
   a step speed-up is the time before over the time after, a cumulative one
   the first time over this one, a rate is n x element bytes / time, an
   elements rate is the rate / element bytes. By hand, Harris's G80 table:
   shader 2 is 8.054 / 3.456 = 2.330x (printed 2.33x) and 2^22 x 4 B /
   3.456 ms = 4.855 GB/s (printed 4.854); shader 7's cumulative is 8.054 /
   0.268 = 30.05x (printed 30.04x, from unrounded times). Printed figures
   are rounded, so within 1 %; a copy with one figure changed must fail.
2. Every file names what a reader needs to find the table: citation, GPU
   (or that none is printed), what was measured, units, n, type, block size,
   where it is; each row maps to a version the lab has, or to none.
3. `warplab bench LAB --recorded --published` prints them beside the
   recorded rows: the G80's printed 2.33x for v2 and the H100's v1 / v2
   median times from results/ at the same n; without --recorded it is an
   error (exit 2) naming the missing option.

Usage: test_published.py --warplab PATH
"""

from __future__ import annotations

import argparse
import copy
import glob
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PUBLISHED = os.path.join(REPO, "results", "published")
TOLERANCE = 0.01
REQUIRED = ["lab", "gpu", "gpu_printed", "measured", "where", "n", "n_printed", "type", "element_bytes", "block",
            "block_printed", "units", "rows"]


def arithmetic(name: str, table: dict) -> list[str]:
    """A line per figure that disagrees with the figures it comes from."""
    wrong = []
    rows, n, size = table["rows"], table["n"], table["element_bytes"]

    def check(row, what, printed, derived):
        if printed is not None and abs(derived - printed) > TOLERANCE * abs(printed):
            wrong.append(f"{name}, {row['label']}: {what} printed {printed}, derived {derived:.4g}")

    for i, row in enumerate(rows):
        t = row.get("time")
        if t is not None and i > 0 and rows[i - 1].get("time") is not None:
            check(row, "step speed-up", row.get("speedup_vs_previous"), rows[i - 1]["time"] / t)
        if t is not None and rows[0].get("time") is not None:
            check(row, "cumulative speed-up", row.get("cumulative"), rows[0]["time"] / t)
        if t is not None and n is not None and table["units"].get("time") == "ms":
            check(row, "rate", row.get("rate"), n * size / (t * 1e-3) / 1e9)
        if row.get("rate") is not None:
            check(row, "elements rate", row.get("elements_rate"), row["rate"] / size)
    return wrong


def lab_versions(warplab: str) -> dict[str, set[str]]:
    out = subprocess.run([warplab, "list"], capture_output=True, text=True, check=True).stdout
    labs: dict[str, set[str]] = {}
    lab = None
    for line in out.splitlines():
        if line and not line.startswith(" ") and ":" in line and not line.startswith("GPU"):
            lab = line.split(":")[0]
            labs[lab] = set()
        elif line.startswith("  ") and lab:
            labs[lab].add(line.split()[0])
    return labs


def median(results: list[dict], lab: str, n: int, version: str) -> float:
    for t in results:
        if t["lab"] == lab and t["n"] == n and t["type"] == "int":
            for r in t["rows"]:
                if r["version"] == version:
                    return r["median_ms"]
    raise KeyError(f"no recorded {lab} {version} at n = {n}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--warplab", required=True)
    warplab = ap.parse_args().warplab
    problems = []
    versions = lab_versions(warplab)
    docs = {os.path.basename(f): json.load(open(f, encoding="utf-8")) for f in sorted(glob.glob(f"{PUBLISHED}/*.json"))}
    if len(docs) < 5:
        problems.append(f"{len(docs)} published files, expected the 5 sources")
    for name, doc in docs.items():
        if not doc.get("citation") or not doc.get("source"):
            problems.append(f"{name}: no citation or source")
        for table in doc.get("tables", []):
            problems += [f"{name}: no '{k}'" for k in REQUIRED if k not in table]
            problems += arithmetic(name, table)
            for row in table["rows"]:
                if row.get("version") and row["version"] not in versions.get(table["lab"], set()):
                    problems.append(f"{name}: row '{row['label']}' maps to {row['version']}, no version of {table['lab']}")
        for s in doc.get("statements", []):
            if not s.get("gpus") or not s.get("text"):
                problems.append(f"{name}: a statement without its GPUs or text")

    # The check can fail: Harris's shader 3 step changed from 2.01x to 2.10x, and its GB/s from 9.741 to 9.0.
    harris = copy.deepcopy(docs["harris-g80-reduction.json"]["tables"][0])
    harris["rows"][2]["speedup_vs_previous"] = 2.10
    harris["rows"][2]["rate"] = 9.0
    caught = arithmetic("mutated", harris)
    if len(caught) != 2:
        problems.append(f"a changed step speed-up and rate should give 2 reports, gave {caught}")

    # The CLI: the published step beside the recorded one at the same n.
    run = subprocess.run([warplab, "bench", "reduction", "--recorded", "--published"], capture_output=True, text=True)
    if run.returncode != 0:
        problems.append(f"bench --recorded --published: exit {run.returncode}: {run.stderr.strip()}")
    results = json.load(open(os.path.join(REPO, "results", "h100-80gb-hbm3.json"), encoding="utf-8"))["tables"]
    now_step = median(results, "reduction", 1 << 22, "v1") / median(results, "reduction", 1 << 22, "v2")
    harris_v2 = [line for line in run.stdout.splitlines() if "Shader 2: interleaved addressing with bank conflicts" in line]
    want = f"2.33x"
    if len(harris_v2) != 1 or want not in harris_v2[0] or f"{now_step:.2f}x" not in harris_v2[0]:
        problems.append(f"Harris's v2 row should show {want} and the H100's {now_step:.2f}x: {harris_v2}")
    for phrase in ["no published row for: v5-racy, v8, v9, v10", "In words only: reduction, AMD Radeon HD 6770"]:
        if phrase not in run.stdout:
            problems.append(f"bench --recorded --published lacks '{phrase}'")
    bad = subprocess.run([warplab, "bench", "reduction", "--published"], capture_output=True, text=True)
    if bad.returncode != 2 or "--published needs --recorded" not in bad.stderr:
        problems.append(f"--published alone: exit {bad.returncode}, '{bad.stderr.strip()}'")

    for p in problems:
        print("FAIL:", p)
    print(f"{len(docs)} published files checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
