#!/usr/bin/env python3
"""Fidelity of warplab's memory model against Nsight Compute's counters.

For every version of both labs, at the block size `warplab bench` uses:
Nsight Compute measures the first launch (the first pass of a reduction) as
nvcc compiled it, and warplab counts the same launch from its trace of block
0 (the emulator; the sizes below give every block of these launches the same
accesses, so one block is the per-block average). Compared per block:

  shared load / store wavefronts   smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum / _st.sum
  shared load / store instructions smsp__sass_inst_executed_op_shared_ld.sum / _st.sum
  global load requests / sectors   l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,
                                   l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
cp.async (LDGSTS) counts are added to the shared stores (COPY_METRICS below).

The wavefronts compared are the ones ncu derives from each executed shared
instruction's addresses (its SASS-patched "smsp__sass_" metrics). The L1
unit's own wavefront counters (l1tex__data_pipe_lsu_wavefronts_mem_shared_*)
are recorded beside them, not compared: when blocks of a many-wave grid come
and go on an SM they count a little more than the addresses cause, and it
varies from run to run. To show that, the reduction is profiled once more
with a grid of one wave (every block resident at once), where the two agree.

Writes a JSON record with provenance and prints a table; exits 1 when a
count differs by more than the tolerance (3 %, and by half an access per
block or more), 77 when there is no ncu or GPU.

  python3 scripts/ncu_fidelity.py --build build --out results/fidelity/h100-80gb-hbm3-ncu.json

(results/fidelity/, not results/: every .json directly in results/ is read as
recorded benchmark tables.) Beside the JSON it writes the same table as Markdown.
"""
import argparse
import csv
import datetime
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

METRICS = {
    "shared_ld_wavefronts": "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "shared_st_wavefronts": "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "shared_ld_instructions": "smsp__sass_inst_executed_op_shared_ld.sum",
    "shared_st_instructions": "smsp__sass_inst_executed_op_shared_st.sum",
    "global_ld_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "global_ld_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
}
# cp.async (SASS LDGSTS, matmul v9) reads global memory and writes shared
# memory in one instruction; warplab records it as a global load and a shared
# store. ncu's global load counts include it; its shared-store instructions
# and wavefronts are counted apart, and are added here.
COPY_METRICS = {
    "shared_st_wavefronts": "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
    "shared_st_instructions": "smsp__sass_inst_executed_op_ldgsts.sum",
}
# The shared writes of a copy are not modelled: the hardware writes them in
# wavefronts of its own (ncu counts 3 for a 4-byte copy whose addresses a
# store serves in 2), so a launch with copies has its shared-store wavefronts
# recorded, not compared.
UNMODELLED_WITH_COPIES = {"shared_st_wavefronts": "cp.async writes shared memory in wavefronts of its own, which "
                                                  "warplab does not model"}
# The L1 unit's wavefront counters, recorded beside the compared ones.
HARDWARE_COUNTERS = {
    "shared_ld_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "shared_st_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
}

# What each lab runs: the CLI's size options and those of the target program.
# n = 4,325,376 = 2^22 * 1.03 gives every block of the first pass the same
# work on a 132-SM GPU (the H100; the emulator sizes one-wave grids for it
# too): 16,896 blocks of 256 elements; one wave of 1,056 blocks x 256 threads
# x 2 elements, 8 rounds (v7, v8); one wave of 264 blocks x 1024 threads x 16
# elements (v9). Block 0 is then the average block (v9's last block also adds
# the partial sums).
REDUCTION_N = "4325376"
# One wave: n = 67,584 = 132 * 512 gives v1-v3 264 blocks of 256 (two per SM),
# v4-v8 132 blocks, v9 and v10 fewer: every block is resident from the start.
REDUCTION_ONE_WAVE_N = "67584"
# Versions whose blocks do different work by design, so that block 0 is not
# the average block: listed as not compared, with the reason.
UNEVEN_BLOCKS = {
    ("matmul", "v13"): "stream-K: the last block of a split tile also adds the others' sums (its loop over K is "
                       "v9's, which is compared)",
}
LABS = {
    "reduction": {"target": ["--n", REDUCTION_N, "--type", "int"], "trace": ["--n", REDUCTION_N, "--type", "int"],
                  "one_wave": ["--n", REDUCTION_ONE_WAVE_N, "--type", "int"]},
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


def ncu_launches(ncu, target, lab, log, reuse, run_name=None, target_args=None):
    """Every profiled launch in order ({kernel, blocks, block, metrics}), and
    the target's "version kernel block" lines. With `reuse`, what an earlier
    run left in the log folder is read instead of profiling again."""
    run_name = run_name or lab
    csv_path = os.path.join(log, f"ncu_{run_name}.csv")
    order_path = os.path.join(log, f"ncu_{run_name}_order.txt")
    if not reuse:
        metrics = list(METRICS.values()) + list(COPY_METRICS.values()) + list(HARDWARE_COUNTERS.values())
        cmd = [ncu, "--csv", "--print-units", "base", "--log-file", csv_path,
               "--metrics", ",".join(metrics), target, lab] + (target_args or LABS[lab]["target"])
        with open(order_path, "w") as f:
            f.write(run(cmd).stdout)
        # Keep the CSV alone: ncu's "==PROF== Connected to process N (path)"
        # lines name this machine's folders.
        with open(csv_path) as f:
            text = f.read()
        with open(csv_path, "w") as f:
            f.write(text[text.find('"ID"'):])
    with open(order_path) as f:
        order = [l.split() for l in f.read().splitlines() if l.strip()]
    with open(csv_path) as f:
        text = f.read()
    rows = [r for r in csv.DictReader(io.StringIO(text[text.find('"ID"'):]))]
    launches = {}
    for r in rows:
        entry = launches.setdefault(int(r["ID"]), {"kernel": r["Kernel Name"], "blocks": blocks_of(r["Grid Size"]),
                                                   "block": r["Block Size"], "metrics": {}})
        entry["metrics"][r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return [launches[k] for k in sorted(launches)], order


def trace_args(lab, block):
    """The `warplab trace` size, type and block options that warplab counts with
    (kept in each row: warplab's CLI and viewer compare a run with the row only
    when its launch is this one)."""
    return LABS[lab]["trace"] + (["--block", str(block)] if lab == "reduction" else [])


def warplab_totals(warplab, lab, version, block):
    cmd = [warplab, "trace", lab, version, "--backend", "cpu", "--json"] + trace_args(lab, block)
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


def first_launch(launches, kernel):
    return next((l for l in launches if base_name(l["kernel"]) == kernel), None)


def per_block(launch, metric):
    return launch["metrics"].get(metric, float("nan")) / launch["blocks"]


def compared_per_block(launch, key):
    """A compared count per block: its metric, plus cp.async's where it has one."""
    total = per_block(launch, METRICS[key])
    if key in COPY_METRICS:
        total += launch["metrics"].get(COPY_METRICS[key], 0.0) / launch["blocks"]
    return total


def hardware_counters(launch, one_wave_launch):
    """The L1 unit's wavefront counters beside the SASS-derived ones, per block:
    at the compared launch and, where profiled, at one wave."""
    out = {}
    for key, counter in HARDWARE_COUNTERS.items():
        entry = {"counter_per_block": per_block(launch, counter), "sass_per_block": per_block(launch, METRICS[key])}
        if one_wave_launch is not None:
            entry["one_wave"] = {"blocks": one_wave_launch["blocks"],
                                 "counter_per_block": per_block(one_wave_launch, counter),
                                 "sass_per_block": per_block(one_wave_launch, METRICS[key])}
        out[key] = entry
    return out


# Under half an access per block, a difference is no miscount of block 0
# (warplab's counts are whole numbers): it is the few accesses one block
# makes beside the others (v10's last block reads the 132 partials: 5 load
# requests, 0.04 a block), averaged over the grid.
ABSOLUTE_FLOOR = 0.5


def within(m, tolerance):
    return m["relative_difference"] <= tolerance or abs(m["ncu_per_block"] - m["warplab"]) < ABSOLUTE_FLOOR


def relative(a, b):
    if a != a or b != b:  # a metric ncu did not report fails the check
        return float("inf")
    if a == b:
        return 0.0
    return abs(a - b) / max(abs(a), abs(b))


def markdown(doc):
    p = doc["provenance"]
    lines = [f"# warplab against Nsight Compute, per block", "",
             f"{p['gpu']}; {p['ncu']}; {p['date']}; warplab {p['commit']}", "",
             f"`{p['command']}`", ""]
    if "counted_by" in p:
        c = p["counted_by"]
        lines += [f"warplab's counts again, from the recorded ncu CSVs: warplab {c['commit']}, {c['date']}", "",
                  f"`{c['command']}`", ""]
    lines += ["| lab | version | metric | ncu per block | warplab | difference |",
              "| --- | --- | --- | ---: | ---: | ---: |"]
    for r in doc["rows"]:
        for key, m in r["metrics"].items():
            note = (" (not compared)" if m.get("compared", True) is False else
                    " (under half an access per block)" if m["relative_difference"] > doc["tolerance"] and
                    within(m, doc["tolerance"]) else "")
            lines.append(f"| {r['lab']} | {r['version']} | {key} | {m['ncu_per_block']:.2f} | {m['warplab']} | "
                         f"{100 * m['relative_difference']:.2f} %{note} |")
    for f in doc["not_compared"]:
        lines.append(f"\nNot compared: {f}")
    return "\n".join(lines + hardware_counter_table(doc["rows"])) + "\n"


def excess(entry):
    return f"{100 * (entry['counter_per_block'] / entry['sass_per_block'] - 1):+.2f} %" if entry["sass_per_block"] else "-"


def hardware_counter_table(rows):
    """Recorded, not compared: the L1 unit's own wavefront counters against the
    SASS-derived ones, at the compared launch and at one wave."""
    lines = ["", "## The L1 unit's wavefront counters (recorded, not compared)", "",
             "| lab | version | wavefronts | blocks | counter per block | from addresses | above | "
             "one wave: blocks | counter | from addresses | above |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        for key, e in r.get("hardware_counters", {}).items():
            w = e.get("one_wave")
            tail = (f"{w['blocks']} | {w['counter_per_block']:.2f} | {w['sass_per_block']:.2f} | {excess(w)}"
                    if w else "| | |")
            lines.append(f"| {r['lab']} | {r['version']} | {key.split('_')[1]} | {r['blocks']} | "
                         f"{e['counter_per_block']:.2f} | {e['sass_per_block']:.2f} | {excess(e)} | {tail} |")
    return lines


def provenance(args):
    """Where the counts come from. With --reuse the GPU, ncu and date are the
    measurement's, kept from the earlier --out file; warplab's commit and the
    command are this comparison's (`counted_by`)."""
    command = shlex.join(["python3", "scripts/ncu_fidelity.py"] + sys.argv[1:])
    if args.reuse:
        try:
            with open(args.out) as f:
                measured = json.load(f)["provenance"]
        except (OSError, KeyError, ValueError, TypeError) as e:
            print(f"--reuse: no earlier provenance in {args.out} ({e})", file=sys.stderr)
            measured = {"gpu": "unknown", "ncu": "unknown", "date": "unknown", "commit": "unknown", "command": ""}
        measured = {k: measured[k] for k in ("gpu", "ncu", "date", "commit", "command")}
        measured["counted_by"] = {"commit": args.commit, "command": command,
                                  "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
        return measured

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
        "command": command,
    }


def built_commit(warplab):
    """The commit in `warplab --version`'s "warplab 0.4.0 (c4c75e8a1b2c)", or "unknown"."""
    out = subprocess.run([warplab, "--version"], capture_output=True, text=True).stdout
    match = re.search(r"\(([0-9a-f]+(?:-dirty)?)\)", out)
    return match.group(1) if match else "unknown"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default="build", help="build folder with warplab and warplab_ncu_target")
    p.add_argument("--ncu", default=shutil.which("ncu") or "/usr/local/cuda/bin/ncu")
    p.add_argument("--out", help="write the comparison (JSON, with provenance) here")
    p.add_argument("--log", default=".", help="folder for ncu's raw CSV")
    p.add_argument("--commit", help="warplab's commit for the record (default: what `warplab --version` says)")
    p.add_argument("--tolerance", type=float, default=0.03)
    p.add_argument("--labs", default="reduction,matmul")
    p.add_argument("--reuse", action="store_true",
                   help="compare with the ncu CSVs an earlier run left in --log (no GPU needed)")
    args = p.parse_args()
    if not args.reuse:
        if not os.path.exists(args.ncu):
            print(f"no GPU profiler: {args.ncu} not found", file=sys.stderr)
            return 77
        if not shutil.which("nvidia-smi") or subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode:
            print("no GPU: nvidia-smi finds none", file=sys.stderr)
            return 77
    warplab = os.path.join(args.build, "warplab")
    if not args.commit:
        args.commit = built_commit(warplab)
    target = os.path.join(args.build, "warplab_ncu_target")
    rows, worst, over, failures, skipped = [], 0.0, 0, [], []
    for lab in args.labs.split(","):
        try:
            launches, order = ncu_launches(args.ncu, target, lab, args.log, args.reuse)
            one_wave = []
            if "one_wave" in LABS[lab]:
                one_wave, _ = ncu_launches(args.ncu, target, lab, args.log, args.reuse, f"{lab}_one_wave",
                                           LABS[lab]["one_wave"])
        except (subprocess.CalledProcessError, OSError) as e:
            print(f"{lab}: no measurement ({e}; {getattr(e, 'stderr', '')})", file=sys.stderr)
            failures.append(f"{lab}: ncu")
            continue
        for version, kernel, block, *status in order:
            if (lab, version) in UNEVEN_BLOCKS:
                skipped.append(f"{lab} {version}: {UNEVEN_BLOCKS[(lab, version)]}")
                continue
            first = first_launch(launches, kernel)
            if first is None:
                print(f"{lab} {version}: ncu profiled no launch of {kernel}", file=sys.stderr)
                failures.append(f"{lab} {version}: not profiled")
                continue
            try:
                ours = warplab_totals(warplab, lab, version, block)
            except subprocess.CalledProcessError as e:
                if "runs only on a GPU" in e.stderr:  # no emulator trace to count from: listed, not a failure
                    skipped.append(f"{lab} {version}: GPU-only, no emulator trace to count")
                    continue
                print(f"{lab} {version}: warplab trace failed: {e.stderr.strip()}", file=sys.stderr)
                failures.append(f"{lab} {version}: warplab trace failed")
                continue
            row = {"lab": lab, "version": version, "kernel": kernel, "block": first["block"],
                   "blocks": first["blocks"], "trace_args": trace_args(lab, block), "result_ok": not status,
                   "metrics": {}}
            copies = first["metrics"].get(COPY_METRICS["shared_st_instructions"], 0.0) > 0
            for key in METRICS:
                hw = compared_per_block(first, key)
                diff = relative(hw, ours[key])
                row["metrics"][key] = {"ncu_per_block": hw, "warplab": ours[key], "relative_difference": diff}
                if copies and key in UNMODELLED_WITH_COPIES:
                    row["metrics"][key]["compared"] = False
                    skipped.append(f"{lab} {version} {key} (ncu {hw:.0f}, warplab {ours[key]} per block): "
                                   f"{UNMODELLED_WITH_COPIES[key]}")
                    continue
                worst = max(worst, diff)
                over += not within(row["metrics"][key], args.tolerance)
            row["hardware_counters"] = hardware_counters(first, first_launch(one_wave, kernel))
            rows.append(row)
    print(f"{'lab':9} {'ver':4} {'metric':24} {'ncu/block':>12} {'warplab':>10} {'diff':>7}")
    for r in rows:
        for key, m in r["metrics"].items():
            flag = ("  (recorded, not compared)" if m.get("compared", True) is False else
                    "" if m["relative_difference"] <= args.tolerance else
                    "  (under half an access per block)" if within(m, args.tolerance) else "  <-- over tolerance")
            print(f"{r['lab']:9} {r['version']:4} {key:24} {m['ncu_per_block']:12.2f} {m['warplab']:10d} "
                  f"{100 * m['relative_difference']:6.2f}%{flag}")
    doc = {"provenance": provenance(args), "tolerance": args.tolerance, "rows": rows, "not_compared": failures + skipped}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)
        with open(os.path.splitext(args.out)[0] + ".md", "w") as f:
            f.write(markdown(doc))
    print(f"worst relative difference: {100 * worst:.2f}% (tolerance {100 * args.tolerance:.0f}%, or under "
          f"{ABSOLUTE_FLOOR} of an access per block); over both: {over}")
    for f in failures + skipped:
        print(f"not compared: {f}")
    return 0 if over == 0 and not failures else 1


if __name__ == "__main__":
    sys.exit(main())
