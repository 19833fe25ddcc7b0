#!/usr/bin/env python3
"""docs/cli.md's options are each command's --help now (scripts/cli_reference.py --check),
and the check fails where it should: a copy of the reference with one option renamed.

Usage: test_cli_reference.py --warplab PATH [--viewer PATH]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "scripts", "cli_reference.py")


def check(doc: str, programs: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, SCRIPT, "--check", "--doc", doc, *programs], capture_output=True, text=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--warplab", required=True)
    ap.add_argument("--viewer")
    a = ap.parse_args()
    programs = ["--warplab", a.warplab] + (["--viewer", a.viewer] if a.viewer and os.path.exists(a.viewer) else [])
    real = check(os.path.join(REPO, "docs", "cli.md"), programs)
    print(real.stdout + real.stderr, end="")
    failures = [] if real.returncode == 0 else ["docs/cli.md"]
    with open(os.path.join(REPO, "docs", "cli.md"), encoding="utf-8") as f:
        text = f.read()
    renamed = text.replace("  --seed UINT ", "  --seeds UINT", 1)
    if renamed == text:
        failures.append("the reference has no `--seed UINT` line to rename for the check's own test")
    with tempfile.NamedTemporaryFile("w", suffix=".md", encoding="utf-8") as stale:
        stale.write(renamed)
        stale.flush()
        if check(stale.name, programs).returncode != 1:
            failures.append("a reference with --seed renamed --seeds passed the check")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
