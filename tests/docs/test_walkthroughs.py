#!/usr/bin/env python3
"""The walkthroughs' numbers are the tool's, and a stale one fails.

Runs the check of scripts/fill_results.py (in-process) on every walkthrough (each trace number,
kernel line, per-step table, measured table and reading time must be what
warplab says now), then shows that the check can fail: a copy of each
walkthrough with one number changed must be reported, and hand-derived
trace numbers must agree with the tool. Also checks the walkthroughs' shape:
every version section asks its question before it shows the answer, folded,
and names no internal document or machine path.

Usage: test_walkthroughs.py --warplab PATH
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "scripts"))
import fill_results  # noqa: E402  (the checker under test, run in-process to share its cache)

# Each walkthrough, with the number of version sections it must have at least.
SECTIONS = {"reduction": 8, "matmul": 8, "coalescing": 2, "transpose": 4, "transfers": 7, "image": 7, "method": 8}
WALKTHROUGHS = [os.path.join(REPO, "labs", lab, "walkthrough.md") for lab in SECTIONS]

# Words an outside reader cannot follow: planning documents, source-file numbers, machine paths.
FORBIDDEN = re.compile(r"DESIGN\.md|HOPPER\.md|\bseed \d|/work/|/root/|\.gpu-matmul|the issue", re.IGNORECASE)

# Hand-derived trace numbers (reduction v2, n = 4096, block 256, block 0):
# in step 3 (s = 4) lane k of warp 0 adds word 8k + 4 into word 8k. Word 8k is in
# bank 8k mod 32, one of 0, 8, 16, 24, each asked for 8 distinct words: 8-way.
# Only warp 0 works (32 threads); its two loads and one store take 8 wavefronts
# each: 24. Step 1 (s = 1): 128 threads in 4 warps; lanes k and k + 16 touch
# words 2k and 2k + 32, same bank: 2-way, 4 warps x 3 instructions x 2 = 24.
HAND_DERIVED = """\
<!-- trace: reduction v2 ; 3.worst -->8<!-- /trace -->
<!-- trace: reduction v2 ; 3.shared_wf -->24<!-- /trace -->
<!-- trace: reduction v2 ; 3.threads -->32<!-- /trace -->
<!-- trace: reduction v2 ; 1.worst -->2<!-- /trace -->
<!-- trace: reduction v2 ; 1.warps -->4<!-- /trace -->
<!-- trace: reduction v2 ; 1.shared_wf -->24<!-- /trace -->
"""

# Coalescing (n = 4096, block 256, block 0; buffers 256-byte aligned): warp w
# of v1 reads bytes 128w + 4o .. 128w + 4o + 127, 5 sectors unless 4o is a
# multiple of 32 (o = 8: 4). v2's lane l reads byte 128ws + 4ls, sector
# floor(ls / 8) of the warp's: every sector up to floor(31s / 8) = 4s - 1 for
# s <= 8 (s = 3: 12), one per lane beyond (s = 9: 32). The ideal is 128 bytes
# over 32-byte sectors: 4.
HAND_DERIVED += """\
<!-- trace: coalescing v1 --offset 5 ; 0.load_sectors -->5<!-- /trace -->
<!-- trace: coalescing v1 --offset 8 ; 0.load_sectors -->4<!-- /trace -->
<!-- trace: coalescing v2 --stride 3 ; 0.load_sectors -->12<!-- /trace -->
<!-- trace: coalescing v2 --stride 9 ; 0.load_sectors -->32<!-- /trace -->
<!-- trace: coalescing v2 --stride 9 ; 0.load_sectors_ideal -->4<!-- /trace -->
"""

# Transpose (64×64, block 0 of 32×32 threads; rows 256 bytes apart): v1's
# store puts lane k at out[k][w], each lane in its own sector: 32 per request,
# with the load's 4 an average of 18. v2 reads tile[lane][w], word 32·lane + w,
# all in bank w: 32-way; v3's word 33·lane + w is in bank (lane + w) mod 32: 1-way.
HAND_DERIVED += """\
<!-- trace: transpose v1 ; 0.sectors -->18<!-- /trace -->
<!-- trace: transpose v2 ; 1.worst -->32<!-- /trace -->
<!-- trace: transpose v3 ; 1.worst -->1<!-- /trace -->
"""

# Image v1 (the interleaved tree): at stride s, warp 0's lane l adds word
# 2·s·l + s into word 2·s·l, in bank 2·s·l mod 32. In a 16×16 group (256
# threads) the lanes working at s = 4 are those with 8l < 256, all 32: banks
# 0, 8, 16, 24 with 8 words each, 8-way; at s = 8 and 16, 16 and 8 lanes fall
# on 2 banks and 1 bank, 8 words each: 8-way again, the worst of the tree.
# In a 32×32 group (1024 threads) at s = 16 (step 5) lane l < 32 touches word
# 32l, all in bank 0: 32-way. Reduction v4 at n = 4096: 512 elements a block
# of 256, 8 blocks; v10 at 2^20 ints: 2^18 int4, a round of four a thread,
# 2^18 / (4 · 1024) = 64 blocks.
HAND_DERIVED += """\
<!-- trace: image v1 ; total.worst -->8<!-- /trace -->
<!-- trace: image v1 --block 32x32 ; 5.worst -->32<!-- /trace -->
<!-- trace: reduction v4 ; blocks -->8<!-- /trace -->
<!-- trace: reduction v10 --n 1048576 ; blocks -->64<!-- /trace -->
"""

# Terms each walkthrough must define where it first uses them: the first
# paragraph that says the word also sets it in bold or italics.
TERMS = {"L2": r"L2", "sector": r"sectors?", "wavefront": r"wavefronts?"}

failures: list[str] = []


def expect(condition: bool, what: str) -> None:
    if not condition:
        failures.append(what)


def stale_markers(text: str, where: str) -> list[str]:
    """What fill_results --check would report for this text (an error counts as one)."""
    try:
        return fill_results.fill(text, TOOL, where)[1]
    except fill_results.MarkerError as e:
        return [f"error: {e}"]


def with_one_number_changed(text: str, pattern: str) -> str | None:
    """The text with the first value of a marker matching `pattern` changed (a digit bumped)."""
    m = re.search(pattern, text)
    if not m:
        return None
    value = m["value"]
    digit = re.search(r"\d", value)
    bumped = value[: digit.start()] + str((int(digit[0]) + 1) % 10) + value[digit.end():]
    return text[: m.start("value")] + bumped + text[m.end("value"):]


def mutation_is_caught(text: str, pattern: str, what: str) -> None:
    changed = with_one_number_changed(text, pattern)
    expect(changed is not None, f"{what}: the walkthrough has no such marker to change")
    if changed is not None:
        expect(len(stale_markers(changed, what)) == 1, f"{what}: one changed number was not reported exactly once")


def check_markdown_renderer() -> None:
    """`warplab bench --recorded --markdown`, the one table renderer, against the recorded file."""
    with open(os.path.join(REPO, "results", "h100-80gb-hbm3.json"), encoding="utf-8") as f:
        tables = json.load(f)["tables"]
    table = next(t for t in tables if t["lab"] == "reduction" and t["type"] == "int" and t["n"] == 4194304)
    v2 = next(r for r in table["rows"] if r["version"] == "v2")
    out = TOOL.run(["bench", "reduction", "--recorded", "--markdown", "--type", "int", "--n", "4194304",
                    "--versions", "v2"])
    # size, version, block, median and min as recorded (ms below 1 to four places)
    row = f"| int, n = 2^22 | v2 | {v2['block']} | {v2['median_ms']:.4f} | {v2['min_ms']:.4f} |"
    expect(row in out, f"markdown row for reduction v2 at 2^22 should start {row!r}; got:\n{out}")
    expect(sum(line.startswith("| int") for line in out.splitlines()) == 1, "--versions v2 should give exactly one row")
    for args, message in [(["--versions", "v2"], "--versions needs --markdown"),
                          (["--markdown", "--versions", "v99"], "unknown version 'v99'")]:
        p = subprocess.run([TOOL.warplab, "bench", "reduction", "--recorded", *args], capture_output=True, text=True)
        lines = p.stderr.strip().splitlines()
        expect(p.returncode == 2 and len(lines) == 1 and message in lines[0],
               f"bench {' '.join(args)}: expected exit 2 and one line naming {message!r}, got {p.returncode}: {p.stderr!r}")


def paragraphs(text: str) -> list[str]:
    """The text's paragraphs, fenced code left out (a fence's commands define nothing)."""
    out, current, fence = [], [], False
    for line in text.splitlines():
        if fill_results.FENCE.match(line):
            fence = not fence
            continue
        if fence:
            continue
        if line.strip():
            current.append(line)
        elif current:
            out.append("\n".join(current))
            current = []
    return out + (["\n".join(current)] if current else [])


def undefined_terms(text: str) -> list[str]:
    """Each of TERMS whose first paragraph does not set it in bold or italics."""
    missing = []
    for name, word in TERMS.items():
        first = next((p for p in paragraphs(text) if re.search(rf"\b{word}\b", p, re.IGNORECASE)), None)
        if first is None:
            continue
        defined = re.search(rf"\*\*[^*]*\b{word}\b[^*]*\*\*|(?<!\*)\*{word}\*(?!\*)", first, re.IGNORECASE)
        if not defined:
            missing.append(f"{name} (first used in: {first[:80]!r})")
    return missing


def version_sections(text: str) -> list[tuple[str, str]]:
    parts = re.split(r"^## (v\d[\w-]*.*)$", text, flags=re.MULTILINE)
    return [(parts[i].strip(), parts[i + 1]) for i in range(1, len(parts) - 1, 2)]


def main() -> int:
    global TOOL
    ap = argparse.ArgumentParser()
    ap.add_argument("--warplab", required=True)
    TOOL = fill_results.Tool(ap.parse_args().warplab)

    texts = {}
    for md in WALKTHROUGHS:
        with open(md, encoding="utf-8") as f:
            texts[os.path.relpath(md, REPO)] = f.read()
    TOOL.prefetch([c for text in texts.values() for c in fill_results.commands_of(text)] +
                  fill_results.commands_of(HAND_DERIVED))

    for name, text in texts.items():
        lab = os.path.basename(os.path.dirname(name))
        stale = stale_markers(text, name)
        expect(not stale, f"{name} is stale; run scripts/fill_results.py on it:\n  " + "\n  ".join(stale))
        for what, pattern in [
            ("trace number", r"<!-- trace: (?:(?!-->).)*-->(?P<value>[^<]*\d[^<]*)<!-- /trace -->"),
            ("kernel line", r"<!-- line: (?:(?!-->).)*-->(?P<value>\d+)<!-- /line -->"),
            ("measured table", r"<!-- bench: [^\n]*-->\n\n(?:\*\*[^\n]*\n\n)?\|[^\n]*\n\|[^\n]*\n(?P<value>\|[^\n]*\d)"),
            ("sweep table", r"<!-- sweep: [^\n]*-->\n\n\|[^\n]*\n\|[^\n]*\n(?P<value>\|[^\n]*\d)"),
            ("trace table", r"<!-- trace-table: [^\n]*-->\n```\n(?P<value>[^\n]*\d)"),
            ("reading time", r"<!-- reading-time -->(?P<value>\d+)<!-- /reading-time -->"),
        ]:
            optional = {"trace table": "<!-- trace-table:", "sweep table": "<!-- sweep:"}
            if what in optional and optional[what] not in text:
                continue  # optional: a walkthrough need not quote a whole table
            if what == "trace number" and lab == "transfers":
                continue  # its versions are host programs: nothing runs on the emulator to trace
            if what == "measured table" and lab == "coalescing":
                continue  # its measurements are the sweep table's GB/s column
            if what == "measured table" and fill_results.NOT_RECORDED in text:
                continue  # no recorded results for the lab yet: no measured number to change
            mutation_is_caught(text, pattern, f"{name}, {what}")
        bad = FORBIDDEN.search(text)
        expect(bad is None, f"{name} names something outside readers cannot follow: '{bad and bad[0]}'")
        undefined = undefined_terms(text)
        expect(not undefined, f"{name}: terms used before they are defined: {undefined}")
        sections = version_sections(text)
        expect(len(sections) >= SECTIONS[lab], f"{name}: expected a section per version, found {len(sections)}")
        for title, body in sections:
            q, d = body.find("**Question"), body.find("<details>")
            expect(0 <= q < d, f"{name}, {title}: the question must come before the folded answer")

    # The definition check can fail: a paragraph that uses L2 first, undefined, then its definition.
    caught = undefined_terms("Far beyond L2 it is slow.\n\n- **L2.** The cache before DRAM.\n")
    expect(len(caught) == 1 and caught[0].startswith("L2"), f"an L2 used before its definition was not caught: {caught}")

    check_markdown_renderer()
    expect(not stale_markers(HAND_DERIVED, "hand-derived"), "hand-derived reduction v2 and coalescing numbers disagree with the tool: "
           + "; ".join(stale_markers(HAND_DERIVED, "hand-derived")))
    wrong = stale_markers(HAND_DERIVED.replace("-->8<!--", "-->4<!--", 1), "hand-derived")
    expect(len(wrong) == 1 and "3.worst" in wrong[0], f"a wrong hand-derived number was not reported: {wrong}")

    # A question a lesson also asks is written once, in the lesson (lessons/), and quoted: a copy that differs is stale.
    for lab in ("reduction", "transpose", "coalescing", "image"):
        expect("<!-- lesson: " + lab + " " in texts[f"labs/{lab}/walkthrough.md"], f"the {lab} walkthrough quotes no question of its lesson")
    copied = stale_markers("<!-- lesson: reduction v1-warps -->How many warps take part in step 3?<!-- /lesson -->", "a copy")
    expect(len(copied) == 1 and "v1-warps" in copied[0], f"a question copied with other words was not reported: {copied}")

    for f in failures:
        print("FAIL:", f)
    print(f"{len(failures)} failure(s)" if failures else "walkthroughs: every generated number matches the tool")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
