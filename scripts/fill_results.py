#!/usr/bin/env python3
"""Fill, or check, every generated number in the walkthroughs from warplab itself.

Nothing a reader can check with the tool is typed by hand. A document marks each
number and table with where it comes from, and this script rewrites what lies
between the markers from the tool's own output (or, with --check, only says
what is stale). Markers count only outside fenced code blocks.

Measured tables (the rendering is `warplab bench --markdown`'s, not ours):

    <!-- bench: LAB [BENCH OPTIONS] -->
    (replaced by `warplab bench LAB [BENCH OPTIONS] --recorded --markdown`)
    <!-- /bench -->

A setting's sweep (the coalescing lab), rendered by `warplab sweep --markdown`:

    <!-- sweep: LAB VERSION [OPTIONS] -->
    (replaced by `warplab sweep LAB VERSION [OPTIONS] --markdown --backend cpu`)
    <!-- /sweep -->

Trace numbers, inline (`warplab trace LAB VERSION [OPTIONS] --json --backend cpu`):

    <!-- trace: LAB VERSION [OPTIONS] ; QUERY -->8<!-- /trace -->

QUERY is `steps` (how many steps), `blocks` (the first pass's grid, as the
table's header says it), or SELECT.FIELD where SELECT is a step
index, a range `A-B` of steps (numbers are summed, lines merged) or `total`,
and FIELD is one of

    threads, warps, partial       active threads, active warps, partially active warps
    shared_wf, shared_ideal       shared wavefronts (loads + stores), actual and ideal
    worst                         the worst n-way conflict of one shared instruction
    sectors, sectors_ideal        global sectors per request (loads + stores), actual and ideal
    global_requests               global warp instructions (loads + stores)
    load_sectors, load_sectors_ideal   global sectors per load request, actual and ideal
    lines                         the source lines of the step's accesses
    shared_load.wavefronts, ...   any field of the step object (docs/trace-format.md)

A whole per-step table, as a student sees it:

    <!-- trace-table: LAB VERSION [OPTIONS] -->
    ```
    (replaced by `warplab trace LAB VERSION [OPTIONS] --backend cpu`)
    ```
    <!-- /trace-table -->

Kernel line numbers (the line of FILE that holds TEXT; TEXT must occur once):

    <!-- line: kernels/reduction/02_interleaved_strided.cuh sdata[index] += -->33<!-- /line -->

A question a lesson asks (lessons/LESSON.json, the question whose "id" is ID),
so that a walkthrough and the lesson that asks the same question write it once:

    <!-- lesson: reduction v1-warps -->In step 3 (s = 4) only 32 threads add. How many warps take part?<!-- /lesson -->

Reading time, from the rule the document states in words (READING_RULE):
"the prose at P words a minute plus S seconds for each command you run",
where a command is a line in an `sh` fence or an inline `build/...` one:

    <!-- reading-time -->25<!-- /reading-time -->

Usage:
    python3 scripts/fill_results.py [--warplab PATH] [--check] FILE.md [FILE.md ...]

--warplab defaults to build/warplab. --check writes nothing and exits 1 if
any marker's content differs from what the tool says now, naming each one.
A marker the tool cannot answer (unknown lab, version, step, field, text not
found) is an error: exit 2, one line naming the marker, and no file written.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
BLOCK_START = re.compile(r"^\s*<!--\s*(?P<kind>bench|trace-table|sweep):\s*(?P<args>[^>]*?)\s*-->\s*$")
BLOCK_END = re.compile(r"^\s*<!--\s*/(?P<kind>bench|trace-table|sweep)\s*-->\s*$")
INLINE = re.compile(
    r"<!--\s*(?P<kind>trace|line|lesson|reading-time)(?::\s*(?P<args>(?:(?!-->).)*?))?\s*-->(?P<value>.*?)<!--\s*/(?P=kind)\s*-->"
)


# What a measured table reads until its lab has recorded results.
NOT_RECORDED = "*Not recorded yet*"


class MarkerError(Exception):
    pass


class Tool:
    """Runs warplab, once per distinct command."""

    def __init__(self, warplab: str):
        self.warplab = warplab
        self.cache: dict[tuple, str] = {}
        self.parsed: dict[tuple, dict] = {}

    def run(self, args: list[str], ok_codes=(0,)) -> str:
        key = tuple(args)
        if key not in self.cache:
            p = subprocess.run([self.warplab, *args], capture_output=True, text=True, cwd=REPO)
            if p.returncode not in ok_codes:
                err = (p.stderr.strip().splitlines() or ["no message"])[-1]
                raise MarkerError(f"`warplab {' '.join(args)}` exited {p.returncode}: {err}")
            self.cache[key] = p.stdout
        return self.cache[key]

    @staticmethod
    def bench_args(args: str) -> list[str]:
        return ["bench", *shlex.split(args), "--recorded", "--markdown"]

    @staticmethod
    def sweep_args(args: str) -> list[str]:
        return ["sweep", *shlex.split(args), "--markdown", "--backend", "cpu"]

    @staticmethod
    def trace_args(args: str, json_out: bool) -> list[str]:
        return ["trace", *shlex.split(args), "--backend", "cpu", *(["--json"] if json_out else [])]

    def prefetch(self, commands: list[list[str]]) -> None:
        """Runs the distinct commands at once (errors surface later, where a marker asks)."""

        def one(args: list[str]) -> None:
            try:
                self.run(args)
            except MarkerError:
                pass

        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            list(pool.map(one, {tuple(c): c for c in commands}.values()))

    def bench(self, args: str) -> str:
        """The recorded table; where the lab has none yet, a line saying so (a later fill replaces it)."""
        try:
            return self.run(self.bench_args(args))
        except MarkerError as e:
            if "no recorded results" not in str(e):
                raise
            lab = shlex.split(args)[0]
            return (f"{NOT_RECORDED}: no {lab} results in `results/` (on a GPU: `warplab bench {lab} --record "
                    f"results/<gpu>-{lab}.json`, then `python3 scripts/fill_results.py` on this file).")

    def sweep(self, args: str) -> str:
        return self.run(self.sweep_args(args))

    def trace_table(self, args: str) -> str:
        return self.run(self.trace_args(args, False))

    def trace_json(self, args: str) -> dict:
        key = self.trace_args(args, True)
        if tuple(key) not in self.parsed:
            self.parsed[tuple(key)] = json.loads(self.run(key))
        return self.parsed[tuple(key)]


# ------------------------------------------------------------- trace queries


def number(x) -> str:
    if isinstance(x, list):
        return ", ".join(number(v) for v in x)
    if isinstance(x, float) and not x.is_integer():
        return f"{x:.1f}"
    return str(int(x))


def step_field(step: dict, field: str):
    """One field of a step (or of the totals), as in the CLI's table."""
    sl, ss = step.get("shared_load", {}), step.get("shared_store", {})
    gl, gs = step.get("global_load", {}), step.get("global_store", {})
    g_requests = gl.get("requests", 0) + gs.get("requests", 0)
    derived = {
        "threads": lambda: step["active_threads"],
        "warps": lambda: step["active_warps"],
        "partial": lambda: step["partial_warps"] if "partial_warps" in step else step["partial_warp_steps"],
        "shared_wf": lambda: sl.get("wavefronts", 0) + ss.get("wavefronts", 0),
        "shared_ideal": lambda: sl.get("ideal", 0) + ss.get("ideal", 0),
        "worst": lambda: max(sl.get("worst_ways", 0), ss.get("worst_ways", 0)),
        "global_requests": lambda: g_requests,
        "sectors": lambda: (gl.get("sectors", 0) + gs.get("sectors", 0)) / g_requests if g_requests else None,
        "sectors_ideal": lambda: (gl.get("ideal", 0) + gs.get("ideal", 0)) / g_requests if g_requests else None,
        "load_sectors": lambda: gl["sectors"] / gl["requests"] if gl.get("requests") else None,
        "load_sectors_ideal": lambda: gl["ideal"] / gl["requests"] if gl.get("requests") else None,
        "lines": lambda: step["lines"],
    }
    if field in derived:
        try:
            return derived[field]()
        except KeyError as e:
            raise MarkerError(f"the trace has no {e} here") from None
    value = step
    for part in field.split("."):
        if not isinstance(value, dict) or part not in value:
            raise MarkerError(f"unknown field '{field}'")
        value = value[part]
    return value


def combine(values: list, field: str):
    if field == "lines":
        return sorted({line for v in values for line in v})
    if field == "worst":
        return max(values)
    if any(v is None for v in values):
        raise MarkerError(f"'{field}' is undefined in some step of the range")
    if field in ("sectors", "sectors_ideal", "load_sectors", "load_sectors_ideal"):
        raise MarkerError(f"'{field}' is a ratio: ask for one step")
    return sum(values)


def trace_query(doc: dict, query: str):
    block = doc["blocks"][0]
    steps = block["steps"]
    if query == "steps":
        return len(steps)
    if query == "blocks":
        if "grid_dim" not in doc:
            raise MarkerError("the trace says no grid ('blocks')")
        return math.prod(doc["grid_dim"])
    select, _, field = query.partition(".")
    if not field:
        raise MarkerError(f"query '{query}' needs SELECT.FIELD (e.g. 3.shared_wf) or 'steps'")
    if select == "total":
        return step_field(block["totals"], field)
    m = re.fullmatch(r"(\d+)(?:-(\d+))?", select)
    if not m:
        raise MarkerError(f"'{select}' is not a step, a range A-B or 'total'")
    first, last = int(m[1]), int(m[2] or m[1])
    if last >= len(steps) or first > last:
        raise MarkerError(f"step {select} is not among the trace's {len(steps)} steps")
    values = [step_field(steps[i], field) for i in range(first, last + 1)]
    value = values[0] if first == last else combine(values, field)
    if value is None:
        raise MarkerError(f"step {select} has no global access: '{field}' is undefined")
    return value


# --------------------------------------------------------------- the markers


def kernel_line(args: str) -> int:
    path, _, text = args.partition(" ")
    full = os.path.join(REPO, path)
    if not text or not os.path.isfile(full):
        raise MarkerError(f"line marker needs an existing FILE and TEXT (got '{args}')")
    with open(full, encoding="utf-8") as f:
        hits = [i + 1 for i, line in enumerate(f) if text in line]
    if len(hits) != 1:
        raise MarkerError(f"'{text}' occurs {len(hits)} times in {path}, not once")
    return hits[0]


# A command the reader is asked to run, quoted inline: `build/warplab ...`, `diff <(build/...`.
INLINE_COMMAND = re.compile(r"`(?:build/|diff <\(build/)[^`]*`")


def prose_and_commands(lines: list[str]) -> tuple[int, int]:
    """Words outside code, tables and markers; commands (lines in sh fences, and inline ones)."""
    words = commands = 0
    fence = None
    for line in lines:
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = (m[1][0], line.strip()[len(m[1]):].strip())
            elif m[1][0] == fence[0]:
                fence = None
            continue
        if fence is not None:
            if fence[1] == "sh" and line.strip() and not line.lstrip().startswith("#"):
                commands += 1
            continue
        if line.lstrip().startswith("|"):
            continue
        commands += len(INLINE_COMMAND.findall(line))
        words += len(re.sub(r"<!--.*?-->|<[^>]+>", " ", line).split())
    return words, commands


READING_RULE = re.compile(r"prose\s+at\s+(\d+)\s+words\s+a\s+minute\s+plus\s+(\d+)\s+seconds\s+for\s+each\s+command")


def reading_minutes(lines: list[str]) -> int:
    """Words at the stated pace plus each command's stated seconds, rounded up."""
    rule = READING_RULE.search("\n".join(lines))
    if not rule:
        raise MarkerError("reading-time needs its rule stated: 'the prose at P words a minute plus S seconds for "
                          "each command you run'")
    words, commands = prose_and_commands(lines)
    return math.ceil(words / int(rule[1]) + commands * int(rule[2]) / 60)


def lesson_question(args: str) -> str:
    """The text of the question `ID` of lessons/LESSON.json (args: 'LESSON ID')."""
    name, _, qid = args.partition(" ")
    path = os.path.join(REPO, "lessons", name + ".json")
    if not qid or not os.path.isfile(path):
        raise MarkerError(f"lesson marker needs an existing LESSON and a question ID (got '{args}')")
    with open(path, encoding="utf-8") as f:
        slides = json.load(f)["slides"]
    texts = [s["question"]["text"] for s in slides if s.get("question", {}).get("id") == qid]
    if len(texts) != 1:
        raise MarkerError(f"lessons/{name}.json has {len(texts)} questions with id '{qid}', not one")
    return texts[0]


def inline_value(tool: Tool, kind: str, args: str, lines: list[str]) -> str:
    if kind == "line":
        return str(kernel_line(args))
    if kind == "lesson":
        return lesson_question(args)
    if kind == "reading-time":
        return str(reading_minutes(lines))  # lines: the document with every other marker filled
    run, sep, query = args.partition(";")
    if not sep:
        raise MarkerError("trace marker needs 'LAB VERSION [OPTIONS] ; QUERY'")
    return number(trace_query(tool.trace_json(run.strip()), query.strip()))


def fill_inline(line: str, where: str, tool: Tool, doc_lines: list[str], stale: list[str]) -> str:
    """The line with its inline markers filled; each changed value noted in `stale`."""

    def replace(mm: re.Match) -> str:
        try:
            value = inline_value(tool, mm["kind"], (mm["args"] or "").strip(), doc_lines)
        except MarkerError as e:
            raise MarkerError(f"{where}: {e}") from None
        if value != mm["value"]:
            stale.append(f"{where}: {mm['kind']} '{mm['args'] or ''}' reads {mm['value']!r}, the tool says {value!r}")
        return mm.group(0).replace(f"-->{mm['value']}<!--", f"-->{value}<!--", 1)

    return INLINE.sub(replace, line)


def commands_of(text: str) -> list[list[str]]:
    """Every warplab command the markers of a document ask for."""
    commands = []
    for line in text.split("\n"):
        start = BLOCK_START.match(line)
        if start:
            commands.append(Tool.bench_args(start["args"]) if start["kind"] == "bench"
                            else Tool.sweep_args(start["args"]) if start["kind"] == "sweep"
                            else Tool.trace_args(start["args"], False))
        for m in INLINE.finditer(line):
            if m["kind"] == "trace":
                commands.append(Tool.trace_args((m["args"] or "").partition(";")[0].strip(), True))
    return commands


def fill(text: str, tool: Tool, where: str) -> tuple[str, list[str]]:
    """The document with every marker filled, and one line per stale marker."""
    lines = text.split("\n")
    out: list[str] = []
    stale: list[str] = []
    fence = None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = FENCE.match(line)
        if m and (fence is None or m[1][0] == fence):
            fence = m[1][0] if fence is None else None
            out.append(line)
            i += 1
            continue
        if fence is not None:
            out.append(line)
            i += 1
            continue
        start = BLOCK_START.match(line)
        if start:
            end = next((j for j in range(i + 1, len(lines)) if BLOCK_END.match(lines[j])), None)
            if end is None or BLOCK_END.match(lines[end])["kind"] != start["kind"]:
                raise MarkerError(f"{where}:{i + 1}: <!-- {start['kind']}: --> without its closing marker")
            try:
                if start["kind"] == "bench":
                    body = tool.bench(start["args"]).rstrip("\n").split("\n")
                elif start["kind"] == "sweep":
                    body = tool.sweep(start["args"]).rstrip("\n").split("\n")
                else:
                    body = ["```", *tool.trace_table(start["args"]).rstrip("\n").split("\n"), "```"]
            except MarkerError as e:
                raise MarkerError(f"{where}:{i + 1}: {e}") from None
            new = [line, *body, lines[end]] if start["kind"] == "trace-table" else [line, "", *body, "", lines[end]]
            if new != lines[i : end + 1]:
                stale.append(f"{where}:{i + 1}: {start['kind']} '{start['args']}' differs from the tool's output")
            out += new
            i = end + 1
            continue

        out.append(line if "reading-time" in line else fill_inline(line, f"{where}:{i + 1}", tool, lines, stale))
        i += 1
    # The reading time counts the filled document, so it is computed last.
    for k, line in enumerate(out):
        if "reading-time" in line:
            out[k] = fill_inline(line, f"{where}:{k + 1}", tool, out, stale)
    return "\n".join(out), stale


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--warplab", default=os.path.join(REPO, "build", "warplab"))
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if a marker is stale")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    if not os.access(a.warplab, os.X_OK):
        print(f"fill_results: no warplab binary at {a.warplab} (build it, or pass --warplab)", file=sys.stderr)
        return 2
    tool = Tool(a.warplab)
    results = {}
    try:
        texts = {}
        for path in a.files:
            with open(path, encoding="utf-8") as f:
                texts[path] = f.read()
        tool.prefetch([c for text in texts.values() for c in commands_of(text)])
        for path, text in texts.items():
            results[path] = (text, *fill(text, tool, path))
    except (MarkerError, OSError) as e:
        print(f"fill_results: {e}", file=sys.stderr)
        return 2
    stale_any = False
    for path, (old, new, stale) in results.items():
        for s in stale:
            print(s, file=sys.stderr if a.check else sys.stdout)
        stale_any |= bool(stale)
        if not a.check and new != old:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
            print(f"fill_results: updated {path}")
    return 1 if a.check and stale_any else 0


if __name__ == "__main__":
    sys.exit(main())
