#!/usr/bin/env python3
"""Every relative link in the README and docs/ leads somewhere.

A link [text](path) or ![alt](path) that is not a URL must name a file or
folder of the repository, relative to the page; where it ends in #anchor, the
page it names (or the page itself, for a bare #anchor) must have a heading
whose GitHub anchor that is (lower case, punctuation dropped, spaces as
hyphens). Links inside code (fences and spans) are code, not links.

Then shows the check can fail: a made-up page with a missing file and a
missing heading must give two failures.

Usage: test_links.py
"""

from __future__ import annotations

import glob
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGES = ["README.md", *sorted(glob.glob("docs/*.md", root_dir=REPO))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`[^`]*`")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def prose_lines(text: str):
    """(line number, line without its code spans) outside fences."""
    fence = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if not fence:
            yield number, CODE.sub("", line)


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, code marks and punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.replace("`", "").strip().lower()).replace(" ", "-")


def anchors_of(path: str) -> set[str]:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    fence, found = False, set()
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
        elif not fence and (m := HEADING.match(line)):
            found.add(anchor(m[1]))
    return found


def check(text: str, page: str) -> list[str]:
    """Failures of the page's links; page is the page's path from the repository root."""
    failures = []
    for number, line in prose_lines(text):
        for target in LINK.findall(line):
            if re.match(r"^[a-z]+:", target):
                continue  # a URL (https:, mailto:)
            path, _, fragment = target.partition("#")
            where = os.path.normpath(os.path.join(REPO, os.path.dirname(page), path)) if path else os.path.join(REPO, page)
            if not os.path.exists(where):
                failures.append(f"{page}:{number}: {target}: no such file")
            elif fragment and where.endswith(".md") and fragment not in anchors_of(where):
                failures.append(f"{page}:{number}: {target}: {os.path.relpath(where, REPO)} has no heading #{fragment}")
    return failures


def main() -> int:
    failures = []
    for page in PAGES:
        with open(os.path.join(REPO, page), encoding="utf-8") as f:
            failures += check(f.read(), page)
    made_up = ("See [the guide](no-such-page.md), [the race rules](emulator.md#no-such-heading),\n"
               "[the emulator](emulator.md#what-warplab-treats-as-a-race) and `[code](not-a-link.md)`.\n")
    caught = check(made_up, "docs/made-up.md")
    if len(caught) != 2:
        failures.append(f"the made-up page should fail 2 links, failed {len(caught)}: {caught}")
    for f in failures:
        print("FAIL:", f)
    print(f"links of {len(PAGES)} pages checked; {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
