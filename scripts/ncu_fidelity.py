#!/usr/bin/env python3
"""Fidelity of warplab's memory model against Nsight Compute's counters.

For every version of both labs, at the block size `warplab bench` uses:
Nsight Compute measures the first launch (the first pass of a reduction) as
nvcc compiled it, and warplab counts the same launch from its trace of block
0 (the emulator; every block of these launches does the same accesses, so one
block is the per-block average). Compared per block:

  shared load / store wavefronts   l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum / _st.sum
  shared load / store instructions smsp__sass_inst_executed_op_shared_ld.sum / _st.sum
  global load requests / sectors   l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,
                                   l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum

Writes a JSON record with provenance and prints a table; exits 1 when a
count differs by more than the tolerance (3 %), 77 when there is no ncu or GPU.

  python3 scripts/ncu_fidelity.py --build build --out results/ncu_fidelity_h100.json
"""
import argparse
import csv
import datetime
import io
import json
import os
import shutil
import subprocess
import sys

METRICS = {
    "shared_ld_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "shared_st_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "shared_ld_instructions": "smsp__sass_inst_executed_op_shared_ld.sum",
    "shared_st_instructions": "smsp__sass_inst_executed_op_shared_st.sum",
    "global_ld_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "global_ld_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
}

# What each lab runs: the CLI's size options and those of the target program.
LABS = {
    "reduction": {"target": ["--n", "4194304", "--type", "int"], "trace": ["--n", "4194304", "--type", "int"]},
    "matmul": {"target": ["--size", "256"], "trace": ["--size", "256"]},
}


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def base_name(kernel):
    """'void ns::reduce_v1<256u, int>(const int *, ...)' -> 'reduce_v1'."""
    name = kernel.replace("void ", "", 1).strip()
    for stop in "<(":
        name = name.split(stop, 1)[0]
    return name.split("::")[-1].strip()


def blocks_of(grid):
    """'(16384, 1, 1)' -> 16384."""
    dims = [int(x) for x in grid.strip("() ").split(",")]
    total = 1
    for d in dims:
        total *= d
    return total


def ncu_launches(ncu, target, lab, log):
    """Every profiled launch in order: {kernel, blocks, metrics}."""
    csv_path = os.path.join(log, f"ncu_{lab}.csv")
    cmd = [ncu, "--csv", "--print-units", "base", "--log-file", csv_path,
           "--metrics", ",".join(METRICS.values()), target, lab] + LABS[lab]["target"]
    out = run(cmd)
    with open(csv_path) as f:
        text = f.read()
    rows = [r for r in csv.DictReader(io.StringIO(text[text.find('"ID"'):]))]
    launches = {}
    for r in rows:
        entry = launches.setdefault(int(r["ID"]), {"kernel": r["Kernel Name"], "blocks": blocks_of(r["Grid Size"]),
                                                   "block": r["Block Size"], "metrics": {}})
        entry["metrics"][r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    order = [l.split() for l in out.stdout.splitlines() if l.strip()]
    return [launches[k] for k in sorted(launches)], order


def warplab_totals(warplab, lab, version, block):
    cmd = [warplab, "trace", lab, version, "--backend", "cpu", "--json"] + LABS[lab]["trace"]
    if lab == "reduction":
        cmd += ["--block", str(block)]
    doc = json.loads(run(cmd).stdout)
    t = doc["totals"]
    return {
        "shared_ld_wavefronts": t["shared_load"]["wavefronts"],
        "shared_st_wavefronts": t["shared_store"]["wavefronts"],
        "shared_ld_instructions": t["shared_load"]["requests"],
        "shared_st_instructions": t["shared_store"]["requests"],
        "global_ld_requests": t["global_load"]["requests"],
        "global_ld_sectors": t["global_load"]["sectors"],
    }


def relative(a, b):
    if a == b:
        return 0.0
    return abs(a - b) / max(abs(a), abs(b))


def provenance(args):
    def first_line(cmd):
        try:
            return run(cmd).stdout.strip().splitlines()[-1]
        except Exception as e:  # noqa: BLE001 - provenance is best effort
            return f"unknown ({e})"
    return {
        "gpu": first_line(["nvidia-smi", "--query-gpu=name,driver_version,clocks.max.sm", "--format=csv,noheader"]),
        "ncu": first_line([args.ncu, "--version"]),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "commit": args.commit,
        "command": " ".join(sys.argv),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default="build", help="build folder with warplab and warplab_ncu_target")
    p.add_argument("--ncu", default=shutil.which("ncu") or "/usr/local/cuda/bin/ncu")
    p.add_argument("--out", help="write the comparison (JSON, with provenance) here")
    p.add_argument("--log", default=".", help="folder for ncu's raw CSV")
    p.add_argument("--commit", default=os.environ.get("WARPLAB_COMMIT", "unknown"))
    p.add_argument("--tolerance", type=float, default=0.03)
    p.add_argument("--labs", default="reduction,matmul")
    args = p.parse_args()
    if not os.path.exists(args.ncu):
        print(f"no GPU profiler: {args.ncu} not found", file=sys.stderr)
        return 77
    warplab = os.path.join(args.build, "warplab")
    target = os.path.join(args.build, "warplab_ncu_target")
    rows, worst = [], 0.0
    for lab in args.labs.split(","):
        launches, order = ncu_launches(args.ncu, target, lab, args.log)
        for version, kernel, block, *status in order:
            first = next((l for l in launches if base_name(l["kernel"]) == kernel), None)
            if first is None:
                print(f"{lab} {version}: ncu profiled no launch of {kernel}", file=sys.stderr)
                continue
            ours = warplab_totals(warplab, lab, version, block)
            row = {"lab": lab, "version": version, "kernel": kernel, "block": first["block"],
                   "blocks": first["blocks"], "result_ok": not status, "metrics": {}}
            for key, metric in METRICS.items():
                hw = first["metrics"].get(metric, float("nan")) / first["blocks"]
                diff = relative(hw, ours[key])
                worst = max(worst, diff)
                row["metrics"][key] = {"ncu_per_block": hw, "warplab": ours[key], "relative_difference": diff}
            rows.append(row)
    print(f"{'lab':9} {'ver':4} {'metric':24} {'ncu/block':>12} {'warplab':>10} {'diff':>7}")
    for r in rows:
        for key, m in r["metrics"].items():
            flag = "" if m["relative_difference"] <= args.tolerance else "  <-- over tolerance"
            print(f"{r['lab']:9} {r['version']:4} {key:24} {m['ncu_per_block']:12.2f} {m['warplab']:10d} "
                  f"{100 * m['relative_difference']:6.2f}%{flag}")
    doc = {"provenance": provenance(args), "tolerance": args.tolerance, "rows": rows}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)
    print(f"worst relative difference: {100 * worst:.2f}% (tolerance {100 * args.tolerance:.0f}%)")
    return 0 if worst <= args.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
