#!/usr/bin/env python3
"""The options part of docs/cli.md: each command's --help, as the programs print it.

Everything in docs/cli.md below MARKER is written here from `warplab --help`,
`warplab <command> --help` for each command that lists, and
`warplab-viewer --help`; the prose above it is written by hand.

  python3 scripts/cli_reference.py --warplab build/warplab --viewer build/warplab-viewer          # rewrite
  python3 scripts/cli_reference.py --warplab build/warplab --viewer build/warplab-viewer --check  # compare

--check exits 1 naming the first line that differs, so a new or changed
option fails the `docs` test docs_cli_reference until the reference is
rewritten. Without --viewer (no viewer built), the viewer's part is kept as it
is and not checked.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(REPO, "docs", "cli.md")
MARKER = "<!-- Below: written by scripts/cli_reference.py from each program's --help; do not edit by hand. -->"
VIEWER_HEADING = "### warplab-viewer"


def help_of(program: str, name: str, args: list[str]) -> str:
    """`name args --help` as a user sees it: the program is run under its own name, not the build's path."""
    r = subprocess.run([name, *args, "--help"], executable=program, capture_output=True, text=True, cwd=REPO)
    if r.returncode != 0:
        sys.exit(f"cli_reference.py: {name} {' '.join(args)} --help exited {r.returncode}: {r.stderr.strip()}")
    return r.stdout.rstrip() + "\n"


def commands_of(top_help: str) -> list[str]:
    """The subcommands `warplab --help` lists, in its order."""
    listed = top_help.split("Subcommands:", 1)
    if len(listed) != 2:
        sys.exit("cli_reference.py: warplab --help lists no subcommands")
    return re.findall(r"^  (\w[\w-]*)\s", listed[1], re.MULTILINE)


def section(heading: str, text: str) -> str:
    return f"{heading}\n\n```text\n{text}```\n"


def warplab_part(warplab: str) -> str:
    top = help_of(warplab, "warplab", [])
    parts = [section("### warplab", top)]
    parts += [section(f"### warplab {c}", help_of(warplab, "warplab", [c])) for c in commands_of(top)]
    return "\n".join(parts)


def generated(warplab: str, viewer: str | None, old_viewer_part: str) -> str:
    viewer_part = section(VIEWER_HEADING, help_of(viewer, "warplab-viewer", [])) if viewer else old_viewer_part
    return f"{MARKER}\n\n## Options\n\n{warplab_part(warplab)}\n{viewer_part}"


def split(doc: str) -> tuple[str, str, str]:
    """(prose, generated part, its viewer section) of docs/cli.md."""
    if MARKER not in doc:
        sys.exit(f"cli_reference.py: the reference has no line {MARKER!r}")
    prose, rest = doc.split(MARKER, 1)
    at = rest.find(VIEWER_HEADING)
    return prose, MARKER + rest, rest[at:] if at >= 0 else ""


def first_difference(want: str, have: str) -> str:
    w, h = want.splitlines(), have.splitlines()
    for i, (a, b) in enumerate(zip(w, h)):
        if a != b:
            return f"line {i + 1} of the options part: the program prints {a!r}, the reference has {b!r}"
    return f"the options part has {len(h)} lines, the programs' --help make {len(w)}"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--warplab", required=True)
    ap.add_argument("--viewer")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--doc", default=DOC, help="the reference to write or check (default docs/cli.md)")
    a = ap.parse_args()
    doc = open(a.doc, encoding="utf-8").read()
    prose, have, old_viewer_part = split(doc)
    want = generated(a.warplab, a.viewer, old_viewer_part)
    if not a.check:
        with open(a.doc, "w", encoding="utf-8") as f:
            f.write(prose + want)
        return 0
    if want != have:
        print(f"FAIL: {os.path.relpath(a.doc, REPO)} is not the programs' --help now: {first_difference(want, have)}.\n"
              f"Rewrite it with: python3 scripts/cli_reference.py --warplab build/warplab --viewer build/warplab-viewer")
        return 1
    print(f"docs/cli.md's options are each command's --help{'' if a.viewer else ' (the viewer not built: its part not checked)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
