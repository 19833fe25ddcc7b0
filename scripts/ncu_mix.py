#!/usr/bin/env python3
"""warplab's instruction mix (warplab trace --mix) against Nsight Compute's counts.

For each traceable version of a lab (or one version), Nsight Compute counts
the warp instructions the first launch executed per SASS opcode
(sass__inst_executed_per_opcode, an instanced metric), and warplab counts the
same launch's block 0 on the emulator (`warplab trace --json`, the block's
"mix"). Both are per block: ncu's grid total over its blocks (the sizes of
scripts/ncu_fidelity.py give every block the same work).

warplab counts PTX instructions and ncu machine instructions; they are
compared only in the groups where one PTX instruction is one machine
instruction (COMPARED below): FP32 add/multiply/fma, FP64, the special
function unit, loads and stores by space, texture fetches, shuffles and
votes, barriers, atomics. Integer, branch and move counts differ by design (ptxas computes
addresses its own way, folds moves, adds branch-sync instructions) and are
recorded beside, not compared. The method lab's throughput variants keep
their arithmetic in PTX forms that ptxas maps one to one (fma.rn.f32 to FFMA,
sin.approx.f32 to MUFU.SIN), which is what this compares.

Exits 1 when a compared group differs by more than the tolerance (3 %, and by
half an instruction per block or more), 77 when there is no ncu or GPU.

  python3 scripts/ncu_mix.py --build build --lab method --out results/fidelity/h100-mix.json
  python3 scripts/ncu_mix.py --build build --lab reduction --version v3
  python3 scripts/ncu_mix.py --build build --lab method --dry-run   # no GPU: ncu's command lines, and warplab's mix
  python3 scripts/ncu_mix.py --build build --lab method --replay results/mix/h100-80gb-hbm3-mix-method.json  # no GPU
"""
import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no __pycache__ in scripts/
import ncu_fidelity as fidelity  # noqa: E402  (the target program, sizes, CSV reading and run naming)

OPCODE_METRIC = "sass__inst_executed_per_opcode"
# warplab class(es) -> the SASS opcodes (their first word) that execute them one to one.
COMPARED = {
    "fp32": (["fp32"], ["FFMA", "FADD", "FMUL", "FMNMX", "FSETP", "FSET", "FSEL"]),
    "fp64": (["fp64"], ["DFMA", "DADD", "DMUL", "DMNMX", "DSETP"]),
    "special": (["special"], ["MUFU"]),
    "ld.global": (["ld.global"], ["LDG"]),
    "st.global": (["st.global"], ["STG"]),
    "ld.shared": (["ld.shared"], ["LDS", "LDSM"]),
    "st.shared": (["st.shared"], ["STS"]),
    "ld.local": (["ld.local"], ["LDL"]),
    "st.local": (["st.local"], ["STL"]),
    "cp.async": (["cp.async"], ["LDGSTS"]),
    # One PTX tex (tex1Dfetch from linear memory, a point-sampled tex2D, a tld4
    # gather) is one TEX, TLD or TLD4 while the texture object is the same in
    # every lane (a kernel parameter): ptxas loops over the distinct objects only
    # when lanes hold different ones.
    "tex": (["tex"], ["TEX", "TLD", "TLD4"]),
    "atomic": (["atomic"], ["ATOM", "ATOMG", "ATOMS", "RED", "REDG"]),
    "collective": (["collective"], ["SHFL", "VOTE", "MATCH", "REDUX", "HMMA"]),
    "barrier": (["barrier"], ["BAR", "MEMBAR", "WARPSYNC"]),
}
# Recorded beside, not compared: the reason.
RECORDED = {
    "integer": (["integer", "move", "conversion"], ["IMAD", "IADD3", "LOP3", "SHF", "ISETP", "LEA", "MOV", "SEL",
                                                    "IABS", "IMNMX", "POPC", "FLO", "BREV", "PRMT", "I2F", "F2I", "F2F",
                                                    "S2R", "CS2R", "ULDC", "S2UR", "UMOV", "UIADD3", "ULOP3"],
                "ptxas computes addresses and moves values its own way (uniform registers, folded moves)"),
    "branch": (["branch"], ["BRA", "EXIT", "RET", "CALL", "BSSY", "BSYNC", "JMP", "BRX"],
               "ptxas adds reconvergence instructions (BSSY, BSYNC) and may turn branches into predication"),
    "ld.const": (["ld.const", "ld.param"], ["LDC"],
                 "a uniform constant load is an operand (c[bank][offset]) of the instruction that uses it, not an LDC"),
}


def opcode_counts(value):
    """'FFMA: 1,024; IMAD: 2,048' (ncu's instances of an instanced metric) -> {'FFMA': 1024.0, ...}.
    An opcode's modifiers (MUFU.SIN) count under its first word."""
    counts = {}
    for name, number in re.findall(r"([A-Z][A-Z0-9_.]*)\s*[:=]\s*([0-9][0-9,.]*)", value):
        op = name.split(".")[0]
        counts[op] = counts.get(op, 0.0) + float(number.replace(",", ""))
    return counts


def parse_ncu_csv(text):
    """Every launch of ncu's --csv text: {kernel, blocks, opcodes}."""
    import csv
    import io
    launches = {}
    for r in csv.DictReader(io.StringIO(text[text.find('"ID"'):])):
        entry = launches.setdefault(int(r["ID"]), {"kernel": r["Kernel Name"], "blocks": fidelity.blocks_of(r["Grid Size"]),
                                                   "opcodes": {}})
        if r["Metric Name"] == OPCODE_METRIC:
            entry["opcodes"] = opcode_counts(r["Metric Value"])
    return [launches[k] for k in sorted(launches)]


def ncu_command(ncu, target, r, csv_path):
    return [ncu, "--csv", "--print-units", "base", "--print-metric-instances", "details", "--log-file", csv_path,
            "--metrics", OPCODE_METRIC, target, r["lab"]] + fidelity.target_args(r)


def warplab_mix(warplab, lab, version, args):
    """warplab's warp instructions of block 0 by class, from `warplab trace --json`."""
    cmd = [warplab, "trace", lab, version, "--backend", "cpu", "--json"] + args
    doc = json.loads(fidelity.run(cmd, cwd=fidelity.REPO).stdout)
    mix = {}
    for m in doc["blocks"][0].get("mix", []):
        mix[m["class"]] = mix.get(m["class"], 0) + m["count"]
    return mix


def ncu_groups(opcodes_per_block):
    """ncu's machine instructions a block, by group."""
    groups = {name: spec[1] for name, spec in list(COMPARED.items()) + list(RECORDED.items())}
    return {name: sum(opcodes_per_block.get(o, 0.0) for o in ops) for name, ops in groups.items()}


def group_rows(ours, ncu_by_group, tolerance):
    """One entry per group: warplab's count, ncu's, and whether it is compared and within the tolerance."""
    rows = {}
    for name, (classes, ops) in COMPARED.items():
        w = sum(ours.get(c, 0) for c in classes)
        n = ncu_by_group.get(name, 0.0)
        if w == 0 and n == 0:
            continue
        diff = abs(w - n)
        ok = diff < 0.5 or (max(w, n) > 0 and diff / max(w, n) <= tolerance)
        rows[name] = {"warplab": w, "ncu_per_block": n, "compared": True, "within": ok}
    for name, (classes, ops, reason) in RECORDED.items():
        w = sum(ours.get(c, 0) for c in classes)
        n = ncu_by_group.get(name, 0.0)
        if w or n:
            rows[name] = {"warplab": w, "ncu_per_block": n, "compared": False, "reason": reason}
    return rows


def replay(warplab, record_path, tolerance):
    """warplab's mix today against the ncu counts of a record: [(version, rows)]. No GPU needed."""
    with open(record_path) as f:
        record = json.load(f)
    settings = fidelity.setting_options(warplab)
    r = {"name": f"mix_{record['lab']}", "lab": record["lab"], "size": record["size"]}
    out = []
    for row in record["rows"]:
        v = row["version"]
        ncu = {g: m["ncu_per_block"] for g, m in row["groups"].items()}
        ours = warplab_mix(warplab, r["lab"], v, fidelity.trace_args(r, v, row.get("block"), settings))
        out.append((v, group_rows(ours, ncu, tolerance)))
    return out


def table(rows_by_version):
    out = [f"{'version':<10} {'group':<11} {'warplab':>10} {'ncu/block':>11}  note"]
    for version, rows in rows_by_version:
        for group, m in rows.items():
            note = ("ok" if m["within"] else "OVER TOLERANCE") if m["compared"] else "recorded: " + m["reason"]
            ncu = "-" if m["ncu_per_block"] is None else f"{m['ncu_per_block']:.1f}"
            out.append(f"{version:<10} {group:<11} {m['warplab']:>10} {ncu:>11}  {note}")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build", help="the build folder with warplab and warplab_ncu_target")
    ap.add_argument("--lab", required=True)
    ap.add_argument("--version", help="one version (default: every traceable one)")
    ap.add_argument("--size", nargs=argparse.REMAINDER, help="the size options of trace and the target (default: ncu_fidelity's)")
    ap.add_argument("--tolerance", type=float, default=0.03)
    ap.add_argument("--log", default=None, help="folder for ncu's CSV files (default: the build folder)")
    ap.add_argument("--out", help="write the record (JSON) here")
    ap.add_argument("--dry-run", action="store_true", help="print ncu's command lines and warplab's mix; profile nothing")
    ap.add_argument("--replay", metavar="RECORD",
                    help="compare warplab's mix today with the ncu counts of a record this script wrote; profile nothing")
    a = ap.parse_args()
    warplab = os.path.join(a.build, "warplab")
    target = os.path.join(a.build, "warplab_ncu_target")  # where ncu_fidelity.py finds it too
    if not os.path.exists(warplab):
        print(f"no {warplab}: build warplab first", file=sys.stderr)
        return 2
    if a.replay:
        rows_by_version = replay(warplab, a.replay, a.tolerance)
        print(table(rows_by_version), end="")
        return 1 if any(m["compared"] and not m["within"] for _, rows in rows_by_version for m in rows.values()) else 0
    size = a.size if a.size else fidelity.SIZES.get(a.lab, [])
    r = {"name": f"mix_{a.lab}", "lab": a.lab, "size": size}
    versions = [a.version] if a.version else fidelity.traceable_versions(fidelity.run([warplab, "list"]).stdout, a.lab)
    if not versions:
        print(f"lab {a.lab}: no traceable version", file=sys.stderr)
        return 2
    log = a.log or a.build
    csv_path = os.path.join(log, f"ncu_{r['name']}.csv")
    ncu = shutil.which("ncu")
    if a.dry_run:
        print(" ".join(ncu_command(ncu or "ncu", target, r, csv_path)))
        for v in versions:
            print(v, json.dumps(warplab_mix(warplab, a.lab, v, size)))
        return 0
    if not ncu or not os.path.exists(target):
        print("no ncu or no warplab_ncu_target (a CUDA build): nothing measured", file=sys.stderr)
        return 77
    os.makedirs(log, exist_ok=True)  # ncu writes no log file into a folder that does not exist
    order_text = fidelity.run(ncu_command(ncu, target, r, csv_path)).stdout
    launches = parse_ncu_csv(fidelity.csv_alone(csv_path))
    order = [l.split() for l in order_text.splitlines() if l.strip()]  # "version kernel block" a launch set
    settings = fidelity.setting_options(warplab)
    rows_by_version, failed = [], False
    for v in versions:
        kernel = next((o[1] for o in order if o and o[0] == v), None)
        launch = fidelity.first_launch(launches, kernel) if kernel else None
        if not launch:
            print(f"{v}: no launch of its kernel in ncu's record", file=sys.stderr)
            continue
        per_block = {op: c / launch["blocks"] for op, c in launch["opcodes"].items()}
        block = next((o[2] for o in order if o and o[0] == v and len(o) > 2), None)
        try:
            ours = warplab_mix(warplab, a.lab, v, fidelity.trace_args(r, v, block, settings))
        except subprocess.CalledProcessError as e:  # a GPU-only version has no emulator trace to count
            print(f"{v}: not counted: {e.stderr.strip()}", file=sys.stderr)
            continue
        rows = group_rows(ours, ncu_groups(per_block), a.tolerance)
        failed |= any(m["compared"] and not m["within"] for m in rows.values())
        rows_by_version.append((v, rows, block))
    print(table([(v, rows) for v, rows, _ in rows_by_version]), end="")
    if a.out:
        doc = {"format": "warplab-ncu-mix", "date": datetime.date.today().isoformat(), "lab": a.lab, "size": size,
               "tolerance": a.tolerance, "metric": OPCODE_METRIC,
               "rows": [{"version": v, "groups": rows} | ({"block": int(b)} if b else {}) for v, rows, b in rows_by_version]}
        with open(a.out, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
