#!/usr/bin/env python3
"""Fill the measured-results blocks of markdown files from a recorded results JSON.

Measurements are never typed by hand: a document marks where they belong,

    <!-- results: reduction v3 -->
    (anything here is replaced)
    <!-- /results -->

and this script rewrites what lies between each pair of markers from the JSON
that `warplab bench --record` writes (format "warplab-results"). Nothing outside
the markers changes, and running it twice gives the same file.

Marker forms (LAB is the lab name, e.g. reduction; FILTERS are optional and
narrow the rows to one element type and/or one size: `int`, `float`,
`4194304`, `2^22`):

    <!-- results: LAB VERSION [FILTERS] -->   one row per (type, n) for that version:
                                               median ms, GB/s, step speedup, vs the reference
    <!-- results: LAB CUB [FILTERS] -->       the same for the vendor-library reference row (also cuBLAS)
    <!-- results: LAB all [FILTERS] -->       the whole table of each matching (type, n),
                                               with its provenance
    <!-- results: LAB compare A B [FILTERS] --> one line per (type, n): how B's time compares with A's

Tables whose rate is GFLOP/s (matmul) are labelled by M × N × K and show the
% of the FP32 peak where memory-bound tables show the % of a copy kernel.

A marker counts only when it stands alone on its line and outside fenced code
blocks, so documentation may quote the marker syntax inline or in a fence.
Rows whose `ok` is false are marked "wrong result"; if the rows carry a `block`
field (the block size a version was timed at), the tables gain a block column.

Usage:
    python3 scripts/fill_results.py [--results PATH] [--check] FILE.md [FILE.md ...]

--results defaults to results/h100-80gb-hbm3.json in the repository. --check
writes nothing and exits 1 if some file is not up to date. Any marker that
names a lab, version or size missing from the JSON is an error (exit 2) and no
file is written.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_RESULTS = os.path.join(REPO, "results", "h100-80gb-hbm3.json")

START = re.compile(r"^\s*<!--\s*results:\s*(?P<args>[^>]*?)\s*-->\s*$")
END = re.compile(r"^\s*<!--\s*/results\s*-->\s*$")
FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


class MarkerError(Exception):
    pass


# ---------------------------------------------------------------- formatting


def fmt_n(n: int) -> str:
    if n > 0 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return f"{n:,}"


def fmt_ms(ms: float) -> str:
    return f"{ms:.4f}" if ms < 1 else f"{ms:.3f}"


def fmt_rate(rate: float) -> str:
    return f"{rate:.0f}" if rate >= 100 else f"{rate:.1f}"


def fmt_ratio(x) -> str:
    return f"{x:.2f}×" if x else "–"


def fmt_pct(x) -> str:
    return f"{x:.0f} %" if x else "–"


def row_name(row: dict) -> str:
    name = row["version"]
    if row.get("variant"):
        name += " (variant)"
    if not row.get("ok", True):
        name += " ⚠ wrong result"
    return name


def table_label(t: dict) -> str:
    if t.get("rate_unit") == "GFLOP/s":  # matmul: C = A·B, M×N×K
        m, n, k = t.get("shape") or [t["n"]] * 3
        return f"{t['type']}, M × N × K = {m} × {n} × {k}"
    size = t["n"] * {"int": 4, "float": 4, "double": 8}.get(t["type"], 4)
    mib = size / 2**20
    return f"{t['type']}, n = {fmt_n(t['n'])} ({mib:,.0f} MiB)"


def markdown_table(header: list[str], align: list[str], rows: list[list[str]]) -> list[str]:
    sep = {"l": "---", "r": "--:"}
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(sep[a] for a in align) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


# ------------------------------------------------------------------ the data


class Results:
    def __init__(self, path: str):
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        if data.get("format") != "warplab-results":
            raise MarkerError(f"{path}: not a warplab-results file (format = {data.get('format')!r})")
        self.tables = data.get("tables", [])
        self.path = path

    def source_name(self) -> str:
        p = os.path.abspath(self.path)
        return os.path.relpath(p, REPO) if p.startswith(REPO + os.sep) else os.path.basename(p)

    def select(self, lab: str, types: set[str], sizes: set[int]) -> list[dict]:
        tables = [t for t in self.tables if t.get("lab") == lab]
        if not tables:
            raise MarkerError(f"no table for lab '{lab}'")
        chosen = [t for t in tables if (not types or t["type"] in types) and (not sizes or t["n"] in sizes)]
        if not chosen:
            have = ", ".join(f"{t['type']} {t['n']}" for t in tables)
            raise MarkerError(f"no '{lab}' table matches the filters (recorded: {have})")
        return chosen


def find_row(table: dict, version: str) -> dict:
    for r in table["rows"]:
        if version.lower() in ("cub", "cublas", "reference"):
            if r.get("reference"):
                return r
        elif r["version"] == version and not r.get("reference"):
            return r
    raise MarkerError(f"no row '{version}' in the {table['lab']} table for {table['type']} n={table['n']}")


# ---------------------------------------------------------------- renderers


def size_name(t: dict) -> str:
    if t.get("rate_unit") == "GFLOP/s":  # matmul: M×N×K
        return "×".join(str(d) for d in (t.get("shape") or [t["n"]] * 3))
    return fmt_n(t["n"])


def render_rows(res: Results, lab: str, version: str, types, sizes) -> list[str]:
    picked = [(t, find_row(t, version)) for t in res.select(lab, types, sizes)]
    with_block = any("block" in r for _, r in picked)
    flops = res_unit(res, lab) == "GFLOP/s"
    rows = []
    for t, r in picked:
        ok = "" if r.get("ok", True) else " ⚠ wrong result"
        rows.append([t["type"], size_name(t) + ok] + ([str(r.get("block", "–"))] if with_block else []) +
                    [fmt_ms(r["median_ms"]), fmt_rate(r["rate"])] + ([fmt_pct(r.get("pct_peak"))] if flops else []) +
                    ["–" if r.get("reference") else fmt_ratio(r.get("step_speedup")),
                     fmt_ratio(r.get("vs_reference"))])
    ref = short_ref(reference_name(res, lab))
    header = ["type", "M×N×K" if flops else "n"] + (["block"] if with_block else []) + \
             ["median ms", res_unit(res, lab)] + (["% of peak"] if flops else []) + ["step speedup", f"vs {ref}"]
    return markdown_table(header, list("ll") + (["r"] if with_block else []) + list("rr") + (["r"] if flops else []) +
                          list("rr"), rows)


def render_all(res: Results, lab: str, types, sizes) -> list[str]:
    out: list[str] = []
    for t in res.select(lab, types, sizes):
        ref = short_ref(reference_name(res, lab))
        with_block = any("block" in r for r in t["rows"])
        # Against a copy kernel where the bench measured one (memory-bound labs),
        # else against the theoretical peak (matmul: FP32).
        pct_key, pct_name = ("pct_copy", "% of copy") if t.get("copy_rate") else ("pct_peak", "% of peak")
        rows = []
        for r in t["rows"]:
            rows.append([row_name(r)] + ([str(r.get("block", "–"))] if with_block else []) +
                        [fmt_ms(r["median_ms"]), fmt_rate(r["rate"]), fmt_pct(r.get(pct_key)),
                         "–" if r.get("reference") else fmt_ratio(r.get("step_speedup")),
                         "–" if r.get("reference") else fmt_ratio(r.get("cumulative")),
                         fmt_ratio(r.get("vs_reference"))])
        if out:
            out.append("")
        out.append(f"**{table_label(t)}**")
        out.append("")
        header = ["version"] + (["block"] if with_block else []) + \
                 ["median ms", t.get("rate_unit", "GB/s"), pct_name, "step speedup", "cumulative", f"vs {ref}"]
        out += markdown_table(header, ["l"] + (["r"] if with_block else []) + list("rrrrrr"), rows)
        out.append("")
        out.append(provenance_line(res, t))
    return out


def render_compare(res: Results, lab: str, a: str, b: str, types, sizes) -> list[str]:
    out = []
    unit = res_unit(res, lab)
    for t in res.select(lab, types, sizes):
        ra, rb = find_row(t, a), find_row(t, b)
        speed = ra["median_ms"] / rb["median_ms"]
        if speed >= 1.005:
            verdict = f"**{b} is faster** than {a}: {speed:.2f}× the speed"
        elif speed <= 0.995:
            verdict = f"**{b} is slower** than {a}: {1 / speed:.2f}× the time"
        else:
            verdict = f"{b} is as fast as {a}"
        out.append(f"- {t['type']}, {'' if unit == 'GFLOP/s' else 'n = '}{size_name(t)}: {verdict} "
                   f"({fmt_rate(rb['rate'])} vs {fmt_rate(ra['rate'])} {unit}; "
                   f"{fmt_ms(rb['median_ms'])} vs {fmt_ms(ra['median_ms'])} ms)")
    return out


def reference_name(res: Results, lab: str) -> str:
    for t in res.tables:
        if t.get("lab") == lab:
            for r in t["rows"]:
                if r.get("reference"):
                    return r["version"]
    return "reference"


def short_ref(name: str) -> str:
    return name.split()[0] if name else "reference"


def res_unit(res: Results, lab: str) -> str:
    for t in res.tables:
        if t.get("lab") == lab:
            return t.get("rate_unit", "GB/s")
    return "GB/s"


def provenance_line(res: Results, t: dict) -> str:
    p = t.get("provenance", {})
    bits = [p.get("gpu", "unknown GPU")]
    if p.get("sms"):
        bits.append(f"{p['sms']} SMs")
    if p.get("cuda_runtime"):
        bits.append(f"CUDA {p['cuda_runtime']}")
    if any(c.isdigit() for c in str(p.get("driver", ""))):
        bits.append(f"driver {p['driver']}")
    if t.get("note"):
        bits.append(t["note"])  # the bench's own words on L2 (flushed or warm)
    else:
        bits.append("warm L2" if t.get("warm") else "L2 flushed before each run")
    if t.get("copy_rate"):
        bits.append(f"copy kernel (read + write) {fmt_rate(t['copy_rate'])} {t.get('rate_unit', 'GB/s')}")
    if t.get("peak"):
        kind = "FP32" if t.get("rate_unit") == "GFLOP/s" else "DRAM"
        bits.append(f"{kind} peak from clocks {fmt_rate(t['peak'])} {t.get('rate_unit', 'GB/s')}")
    when = ", ".join(x for x in (f"warplab {p['commit']}" if p.get("commit") else "",
                                  p.get("date", "")[:10]) if x)
    if when:
        bits.append(when)
    bits.append(f"from `{res.source_name()}`")
    return "<sub>" + "; ".join(bits) + ".</sub>"


# ------------------------------------------------------------------- markers


def parse_args(spec: str):
    words = spec.split()
    if len(words) < 2:
        raise MarkerError(f"marker '{spec}' needs at least a lab and what to show")
    lab, what, rest = words[0], words[1], words[2:]
    names = []
    if what == "compare":
        if len(rest) < 2:
            raise MarkerError(f"marker '{spec}': compare needs two versions")
        names, rest = rest[:2], rest[2:]
    types, sizes = set(), set()
    for w in rest:
        m = re.fullmatch(r"2\^(\d+)", w)
        if m:
            sizes.add(2 ** int(m.group(1)))
        elif w.isdigit():
            sizes.add(int(w))
        else:
            types.add(w)
    return lab, what, names, types, sizes


def render(res: Results, spec: str) -> list[str]:
    lab, what, names, types, sizes = parse_args(spec)
    if what == "all":
        return render_all(res, lab, types, sizes)
    if what == "compare":
        return render_compare(res, lab, names[0], names[1], types, sizes)
    return render_rows(res, lab, what, types, sizes)


def fill(text: str, res: Results, where: str) -> str:
    nl = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    fence = None
    i = 0
    while i < len(lines):
        line = lines[i]
        bare = line.rstrip("\r\n")
        f = FENCE.match(bare)
        if f:
            mark = f.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence):
                fence = None
            out.append(line)
            i += 1
            continue
        if fence is None and END.match(bare):
            raise MarkerError(f"{where}:{i + 1}: '<!-- /results -->' without an opening marker")
        m = START.match(bare) if fence is None else None
        if not m:
            out.append(line)
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not END.match(lines[j].rstrip("\r\n")):
            if START.match(lines[j].rstrip("\r\n")):
                raise MarkerError(f"{where}:{j + 1}: a results marker inside the block opened at line {i + 1}")
            j += 1
        if j == len(lines):
            raise MarkerError(f"{where}:{i + 1}: no '<!-- /results -->' closes this marker")
        try:
            body = render(res, m.group("args"))
        except MarkerError as e:
            raise MarkerError(f"{where}:{i + 1}: {e}") from None
        out.append(line if line.endswith(("\n", "\r")) else line + nl)
        out.append(nl)
        out.extend(b + nl for b in body)
        out.append(nl)
        out.append(lines[j])
        i = j + 1
    return "".join(out)


def write_atomic(path: str, text: str) -> None:
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".fill_results.", dir=d)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.chmod(tmp, os.stat(path).st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", help="markdown files to update in place")
    ap.add_argument("-r", "--results", default=DEFAULT_RESULTS, help="results JSON (default: %(default)s)")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file is not up to date")
    a = ap.parse_args(argv)
    try:
        res = Results(a.results)
        updated = {}
        for path in a.files:
            with open(path, encoding="utf-8", newline="") as f:
                old = f.read()
            new = fill(old, res, path)
            if new != old:
                updated[path] = new
    except (OSError, ValueError, KeyError, MarkerError) as e:
        print(f"fill_results: {e}", file=sys.stderr)
        return 2
    if a.check:
        for path in updated:
            print(f"fill_results: {path} is not up to date with {a.results}", file=sys.stderr)
        return 1 if updated else 0
    for path, text in updated.items():
        write_atomic(path, text)
        print(f"fill_results: updated {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
