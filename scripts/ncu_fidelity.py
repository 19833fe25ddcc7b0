#!/usr/bin/env python3
"""Fidelity of warplab's memory model against Nsight Compute's counters.

For every traceable version of every lab (reduction, matmul, coalescing at
two settings, transpose, image; transfers' versions are host programs with
no trace), and for a user's kernel of each lab launched as one of its
versions with --file, at the block size `warplab bench` uses: Nsight Compute
measures the first launch (the first pass of a reduction) as nvcc compiled
it, and warplab counts the same launch from its trace of block 0 (the
emulator; the sizes below give every block of these launches the same
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
block or more) without an explanation (EXPLAINED below), 77 when there is no
ncu or GPU. Each explained difference is kept in the record with its reason.

  python3 scripts/ncu_fidelity.py --build build --log results/fidelity --out results/fidelity/h100-80gb-hbm3-ncu.json
  python3 scripts/ncu_fidelity.py --build build --dry-run   # no GPU: ncu's command lines, and warplab's counts

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

# What each run launches: the CLI's size options, shared by `warplab trace`
# and the target program (warplab_ncu_target), and what sets it apart.
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
# Coalescing: 2^18 elements, 1,024 blocks of 256; each warp reads 32
# neighbours i + offset (5 sectors at offset 3, 4 at 0) or i * stride (12
# sectors at stride 3), the same in every block.
COALESCING_N = "262144"
# Transpose: 512 x 512 floats, a whole number of every version's tiles (v5
# picks its 32 x 32 tiles: the matrix fits in L2). Image: 1024 x 512 pixels,
# a whole number of every version's tiles (up to v7's 128 x 64): no group
# reaches past the edge. v7's last group also adds the partials (8 more
# shared stores); over its 64 groups that is 0.125 a block.
TRANSPOSE_SIZE = "512"
IMAGE_SIZE = "1024,512"
SIZES = {
    "reduction": ["--n", REDUCTION_N, "--type", "int"],
    "matmul": ["--size", "256"],
    "coalescing": ["--n", COALESCING_N],
    "transpose": ["--size", TRANSPOSE_SIZE],
    "image": ["--size", IMAGE_SIZE],
}
# A user's kernel of each lab (--file), launched as one of its versions:
# (version, file relative to the repository, kernel).
USER_KERNELS = {
    "reduction": ("v3", "tests/cli/kernels/tree_sum.cu", "tree_sum"),
    "matmul": ("v3", "tests/cli/kernels/tiles_extern.cu", "matmul_dynamic_tiles"),
    "coalescing": ("v1", "tests/cli/kernels/staged_copy.cu", "staged_copy"),
    "transpose": ("v4", "tests/cli/kernels/transpose_extern.cu", "transpose_extern_tile"),
    "image": ("v3", "tests/gpu/fidelity/luma_warp_sums.cu", "luma_warp_sums"),
}
LAB_NAMES = list(SIZES)


def runs_of(labs):
    """The profiled runs of these labs, in order: each lab at its size; the
    reduction again at one wave (its L1 counters, recorded); coalescing also
    at setting 3 (offset 3, stride 3); then each lab's user kernel. A run's
    name names its ncu files in the log folder (ncu_<name>.csv)."""
    out = []
    for lab in labs:
        out.append({"name": lab, "lab": lab, "size": SIZES[lab]})
        if lab == "reduction":
            out.append({"name": "reduction_one_wave", "lab": lab, "size": ["--n", REDUCTION_ONE_WAVE_N, "--type", "int"],
                        "one_wave_of": "reduction"})
        if lab == "coalescing":
            out.append({"name": "coalescing_setting_3", "lab": lab, "size": SIZES[lab], "setting": 3})
    for lab in labs:
        out.append({"name": f"{lab}_file", "lab": lab, "size": SIZES[lab], "file": USER_KERNELS[lab]})
    return out


REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Versions whose blocks do different work by design, so that block 0 is not
# the average block: listed as not compared, with the reason.
UNEVEN_BLOCKS = {
    ("matmul", "v13"): "stream-K: the last block of a split tile also adds the others' sums (its loop over K is "
                       "v9's, which is compared)",
}
# Differences known and explained, by (lab, version) and metric: kept in the
# record with the reason, and not a failure. None today: image v1's tree line,
# one LDS.64 and 14 LDS.32, is counted per machine instruction
# (core/include/warplab/trace/machine_code.h).
EXPLAINED = {}
# A --file kernel has no machine-code listing (kernels/ptx/<lab>.sass is the
# labs'), so warplab counts its shared accesses per PTX instruction.
PER_PTX_METRICS = ("shared_ld_wavefronts", "shared_st_wavefronts", "shared_ld_instructions", "shared_st_instructions")
PER_PTX_REASON = ("a --file kernel has no machine-code listing: warplab counts its shared accesses per PTX "
                  "instruction, Nsight Compute per machine instruction, where ptxas merged neighbouring ones "
                  "into wider LDS/STS")


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


def target_args(r):
    """The target program's options for run `r` (after the lab)."""
    args = list(r["size"])
    if "setting" in r:
        args += ["--setting", str(r["setting"])]
    if "file" in r:
        version, path, kernel = r["file"]
        args += ["--version", version, "--file", os.path.join(REPO, path), "--kernel", kernel]
    return args


def ncu_command(ncu, target, r, csv_path):
    metrics = list(METRICS.values()) + list(COPY_METRICS.values()) + list(HARDWARE_COUNTERS.values())
    return [ncu, "--csv", "--print-units", "base", "--log-file", csv_path, "--metrics", ",".join(metrics),
            target, r["lab"]] + target_args(r)


def parse_ncu_csv(text):
    """Every profiled launch of ncu's --csv text, in order: {kernel, blocks, block, metrics}."""
    rows = [r for r in csv.DictReader(io.StringIO(text[text.find('"ID"'):]))]
    launches = {}
    for r in rows:
        entry = launches.setdefault(int(r["ID"]), {"kernel": r["Kernel Name"], "blocks": blocks_of(r["Grid Size"]),
                                                   "block": r["Block Size"], "metrics": {}})
        entry["metrics"][r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return [launches[k] for k in sorted(launches)]


def csv_alone(csv_path):
    """ncu's --log-file at `csv_path` kept to its CSV, rewritten so and
    returned: ncu's "==PROF== Connected to process N (path)" lines before it
    name this machine's folders."""
    with open(csv_path) as f:
        text = f.read()
    text = text[max(text.find('"ID"'), 0):]
    with open(csv_path, "w") as f:
        f.write(text)
    return text


def ncu_launches(ncu, target, r, log, reuse):
    """Every profiled launch of run `r` in order, and the target's "version
    kernel block" lines. With `reuse`, what an earlier run left in the log
    folder is read instead of profiling again."""
    csv_path = os.path.join(log, f"ncu_{r['name']}.csv")
    order_path = os.path.join(log, f"ncu_{r['name']}_order.txt")
    if not reuse:
        with open(order_path, "w") as f:
            f.write(run(ncu_command(ncu, target, r, csv_path)).stdout)
        csv_alone(csv_path)
    with open(order_path) as f:
        order = [l.split() for l in f.read().splitlines() if l.strip()]
    with open(csv_path) as f:
        return parse_ncu_csv(f.read()), order


def setting_options(warplab):
    """{(lab, version): (option, default)} from `warplab trace --help`'s
    "--offset UINT  coalescing v1: read in[i + offset], 0 to 32 (default 0)"."""
    text = subprocess.run([warplab, "trace", "--help"], capture_output=True, text=True).stdout
    return parse_setting_options(text)


def parse_setting_options(text):
    out = {}
    for m in re.finditer(r"(--[a-z-]+) UINT\s+(\w+) (v\d+):.*\(default (\d+)\)", text):
        out[(m.group(2), m.group(3))] = (m.group(1), int(m.group(4)))
    return out


def case_of(r, version, settings):
    """What sets the row apart beyond lab and version: "offset 3", "--file tree_sum.cu"; "" for none."""
    if "file" in r:
        return f"--file {os.path.basename(r['file'][1])}"
    option = settings.get((r["lab"], version))
    if option:
        return f"{option[0][2:]} {r.get('setting', option[1])}"
    return ""


def trace_args(r, version, block, settings):
    """The `warplab trace` options that warplab counts with (kept in each row:
    warplab's CLI and viewer compare a run with the row only when its launch
    is this one)."""
    args = list(r["size"]) + (["--block", str(block)] if r["lab"] == "reduction" and block else [])
    option = settings.get((r["lab"], version))
    if option and "setting" in r:
        args += [option[0], str(r["setting"])]
    if "file" in r:
        args += ["--file", r["file"][1], "--kernel", r["file"][2]]
    return args


def totals_of(doc):
    """warplab's counts from a `warplab trace --json` document."""
    t = doc["totals"]
    return {
        "shared_ld_wavefronts": t["shared_load"]["wavefronts"],
        "shared_st_wavefronts": t["shared_store"]["wavefronts"],
        "shared_ld_instructions": t["shared_load"]["requests"],
        "shared_st_instructions": t["shared_store"]["requests"],
        "global_ld_requests": t["global_load"]["requests"],
        "global_ld_sectors": t["global_load"]["sectors"],
    }


def warplab_totals(warplab, lab, version, args):
    cmd = [warplab, "trace", lab, version, "--backend", "cpu", "--json"] + args
    return totals_of(json.loads(run(cmd, cwd=REPO).stdout))


def traceable_versions(list_text, lab):
    """The versions `warplab list` shows for `lab` that have an emulator trace:
    not "[GPU only]", not a "[variant]"."""
    out, current = [], None
    for line in list_text.splitlines():
        if line and not line[0].isspace():
            current = line.split(":", 1)[0]
        elif current == lab and line.split():
            if "[GPU only]" not in line and "[variant]" not in line:
                out.append(line.split()[0])
    return out


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


def note_of(m, tolerance):
    """How a compared count stands: "" (within tolerance), or a note."""
    if m.get("compared", True) is False:
        return "not compared"
    if m["relative_difference"] <= tolerance:
        return ""
    if within(m, tolerance):
        return "under half an access per block"
    if "explained" in m:
        return "explained: " + m["explained"]
    return "over tolerance"


def row_name(r):
    return f"{r['version']} {r['case']}".strip() if r.get("case") else r["version"]


def compare_row(row, launch, ours, tolerance, explanations):
    """Fills row["metrics"] from ncu's launch and warplab's counts; returns
    (worst relative difference of the compared counts not explained, how many
    are over the tolerance without an explanation, notes on the counts not
    compared)."""
    worst, over, skipped = 0.0, 0, []
    copies = launch["metrics"].get(COPY_METRICS["shared_st_instructions"], 0.0) > 0
    for key in METRICS:
        hw = compared_per_block(launch, key)
        m = {"ncu_per_block": hw, "warplab": ours[key], "relative_difference": relative(hw, ours[key])}
        row["metrics"][key] = m
        if copies and key in UNMODELLED_WITH_COPIES:
            m["compared"] = False
            skipped.append(f"{row['lab']} {row_name(row)} {key} (ncu {hw:.0f}, warplab {ours[key]} per block): "
                           f"{UNMODELLED_WITH_COPIES[key]}")
            continue
        if not within(m, tolerance) and key in explanations:
            m["explained"] = explanations[key]
            continue
        worst = max(worst, m["relative_difference"])
        over += not within(m, tolerance)
    return worst, over, skipped


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
            note = note_of(m, doc["tolerance"])
            lines.append(f"| {r['lab']} | {row_name(r)} | {key} | {m['ncu_per_block']:.2f} | {m['warplab']} | "
                         f"{100 * m['relative_difference']:.2f} %{f' ({note})' if note else ''} |")
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
            lines.append(f"| {r['lab']} | {row_name(r)} | {key.split('_')[1]} | {r['blocks']} | "
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


def dry_run(args, warplab, target, runs):
    """No GPU: ncu's command line for each run, and warplab's counts for what
    it would compare (each traceable version, or the run's --file kernel, at
    the version's own block). Exits 1 when a trace fails."""
    listing = run([warplab, "list"]).stdout
    settings = setting_options(warplab)
    failures = 0
    for r in runs:
        print("$ " + shlex.join(ncu_command(args.ncu, target, r, os.path.join(args.log, f"ncu_{r['name']}.csv"))))
        if "one_wave_of" in r:
            continue  # its L1 counters are recorded, not compared with warplab's
        versions = [r["file"][0]] if "file" in r else traceable_versions(listing, r["lab"])
        for version in versions:
            t_args = trace_args(r, version, None, settings)
            try:
                ours = warplab_totals(warplab, r["lab"], version, t_args)
            except subprocess.CalledProcessError as e:
                print(f"  {r['lab']} {version}: warplab trace failed: {e.stderr.strip()}", file=sys.stderr)
                failures += 1
                continue
            name = f"{version} {case_of(r, version, settings)}".strip()
            print(f"  {r['lab']:10} {name:28} " + " ".join(f"{k}={v}" for k, v in ours.items()))
    return 1 if failures else 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default="build", help="build folder with warplab and warplab_ncu_target")
    p.add_argument("--ncu", default=shutil.which("ncu") or "/usr/local/cuda/bin/ncu")
    p.add_argument("--out", help="write the comparison (JSON, with provenance) here")
    p.add_argument("--log", default=".", help="folder for ncu's raw CSV")
    p.add_argument("--commit", help="warplab's commit for the record (default: what `warplab --version` says)")
    p.add_argument("--tolerance", type=float, default=0.03)
    p.add_argument("--labs", default=",".join(LAB_NAMES), help="comma-separated (default: every lab with a trace)")
    p.add_argument("--reuse", action="store_true",
                   help="compare with the ncu CSVs an earlier run left in --log (no GPU needed)")
    p.add_argument("--dry-run", action="store_true",
                   help="no GPU: print ncu's command lines and warplab's counts for each version they would compare")
    args = p.parse_args()
    labs = args.labs.split(",")
    unknown = [lab for lab in labs if lab not in SIZES]
    if unknown:
        print(f"--labs: no trace to compare in {', '.join(unknown)} (labs: {', '.join(LAB_NAMES)})", file=sys.stderr)
        return 2
    warplab = os.path.abspath(os.path.join(args.build, "warplab"))
    target = os.path.abspath(os.path.join(args.build, "warplab_ncu_target"))
    runs = runs_of(labs)
    if args.dry_run:
        return dry_run(args, warplab, target, runs)
    if not args.reuse:
        if not os.path.exists(args.ncu):
            print(f"no GPU profiler: {args.ncu} not found", file=sys.stderr)
            return 77
        if not shutil.which("nvidia-smi") or subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode:
            print("no GPU: nvidia-smi finds none", file=sys.stderr)
            return 77
    if not args.commit:
        args.commit = built_commit(warplab)
    settings = setting_options(warplab)
    rows, worst, over, failures, skipped = [], 0.0, 0, [], []
    measured = {}
    for r in runs:
        if args.reuse and not os.path.exists(os.path.join(args.log, f"ncu_{r['name']}.csv")):
            skipped.append(f"{r['name']}: not measured in {args.log} (no ncu_{r['name']}.csv)")
            continue
        try:
            measured[r["name"]] = ncu_launches(args.ncu, target, r, args.log, args.reuse)
        except (subprocess.CalledProcessError, OSError) as e:
            print(f"{r['name']}: no measurement ({e}; {getattr(e, 'stderr', '')})", file=sys.stderr)
            failures.append(f"{r['name']}: ncu")
    for r in runs:
        if "one_wave_of" in r or r["name"] not in measured:
            continue
        launches, order = measured[r["name"]]
        one_wave = next((measured[w["name"]][0] for w in runs
                         if w.get("one_wave_of") == r["name"] and w["name"] in measured), [])
        for version, kernel, block, *status in order:
            case = case_of(r, version, settings)
            label = f"{r['lab']} {version} {case}".strip()
            if (r["lab"], version) in UNEVEN_BLOCKS and "file" not in r:
                skipped.append(f"{label}: {UNEVEN_BLOCKS[(r['lab'], version)]}")
                continue
            first = first_launch(launches, kernel)
            if first is None:
                print(f"{label}: ncu profiled no launch of {kernel}", file=sys.stderr)
                failures.append(f"{label}: not profiled")
                continue
            t_args = trace_args(r, version, block, settings)
            try:
                ours = warplab_totals(warplab, r["lab"], version, t_args)
            except subprocess.CalledProcessError as e:
                if "runs only on a GPU" in e.stderr:  # no emulator trace to count from: listed, not a failure
                    skipped.append(f"{label}: GPU-only, no emulator trace to count")
                    continue
                print(f"{label}: warplab trace failed: {e.stderr.strip()}", file=sys.stderr)
                failures.append(f"{label}: warplab trace failed")
                continue
            row = {"lab": r["lab"], "version": version, "case": case, "kernel": kernel, "block": first["block"],
                   "blocks": first["blocks"], "trace_args": t_args, "result_ok": not status, "metrics": {}}
            explanations = dict(EXPLAINED.get((r["lab"], version), {})) if "file" not in r else \
                {key: PER_PTX_REASON for key in PER_PTX_METRICS}
            row_worst, row_over, row_skipped = compare_row(row, first, ours, args.tolerance, explanations)
            worst, over = max(worst, row_worst), over + row_over
            skipped += row_skipped
            row["hardware_counters"] = hardware_counters(first, first_launch(one_wave, kernel))
            rows.append(row)
    print(f"{'lab':10} {'version':24} {'metric':24} {'ncu/block':>12} {'warplab':>10} {'diff':>7}")
    for r in rows:
        for key, m in r["metrics"].items():
            note = note_of(m, args.tolerance)
            print(f"{r['lab']:10} {row_name(r):24} {key:24} {m['ncu_per_block']:12.2f} {m['warplab']:10d} "
                  f"{100 * m['relative_difference']:6.2f}%{'  (' + note + ')' if note else ''}")
    doc = {"provenance": provenance(args), "tolerance": args.tolerance, "rows": rows, "not_compared": failures + skipped}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)
        with open(os.path.splitext(args.out)[0] + ".md", "w") as f:
            f.write(markdown(doc))
    explained = sum("explained" in m for r in rows for m in r["metrics"].values())
    print(f"worst relative difference: {100 * worst:.2f}% (tolerance {100 * args.tolerance:.0f}%, or under "
          f"{ABSOLUTE_FLOOR} of an access per block); over both: {over}; explained differences: {explained}")
    for f in failures + skipped:
        print(f"not compared: {f}")
    return 0 if over == 0 and not failures else 1


if __name__ == "__main__":
    sys.exit(main())
