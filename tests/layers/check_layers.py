#!/usr/bin/env python3
"""No #include runs from a lower layer to a higher one.

Layers, lowest first:
  0  kernels/, exercises/, solutions/  plain CUDA: include nothing of warplab's
  1  core/                              the library: PTX front end, emulator, trace, CUDA glue
  2  labs/                              the registry and the lab runners, on core/
  3  apps/, viewer/                     the CLI, the grader and the viewer, on labs/
tests/, bench/ and scripts/ sit above everything and are not checked.

A quoted include is resolved the way the build resolves it: next to the
including file, then from the include directories (the repository root,
core/include, apps/grader). An include that resolves to nothing in the
repository (a system or toolkit header) is not a layer crossing.

  check_layers.py ROOT            exit 1 and one line per crossing if any
  check_layers.py --self-test     builds a tree with one crossing and checks it is found
"""
import pathlib
import re
import sys
import tempfile

LAYERS = [(0, ("kernels/", "exercises/", "solutions/")),
          (1, ("core/",)),
          (2, ("labs/",)),
          (3, ("apps/", "viewer/"))]
INCLUDE_DIRS = ["", "core/include", "apps/grader"]
SOURCE_SUFFIXES = {".h", ".hpp", ".cpp", ".cu", ".cuh"}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def layer_of(rel):
    for rank, prefixes in LAYERS:
        if rel.startswith(prefixes):
            return rank
    return None


def resolve(root, including, name):
    for base in [including.parent] + [root / d for d in INCLUDE_DIRS]:
        candidate = (base / name).resolve()
        if candidate.is_file() and root in candidate.parents:
            return candidate
    return None


def crossings(root):
    root = root.resolve()
    found = []
    for path in sorted(root.rglob("*")):
        if path.suffix not in SOURCE_SUFFIXES or not path.is_file():
            continue
        rel = path.relative_to(root).as_posix()
        if rel.startswith(("build", ".")):
            continue
        own = layer_of(rel)
        if own is None:
            continue
        text = path.read_text(errors="replace")
        for match in INCLUDE.finditer(text):
            target = resolve(root, path, match.group(1))
            if target is None:
                continue
            target_rel = target.relative_to(root).as_posix()
            theirs = layer_of(target_rel)
            if theirs is not None and theirs > own:
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{rel}:{line}: includes {target_rel} (layer {theirs}) from layer {own}")
    return found


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        (root / "core/src").mkdir(parents=True)
        (root / "labs/common").mkdir(parents=True)
        (root / "labs/common/lab.h").write_text("#pragma once\n")
        (root / "core/src/ok.cpp").write_text('#include <vector>\n#include "missing.h"\n')
        if crossings(root):
            print("self-test: a tree without crossings was reported", file=sys.stderr)
            return 1
        (root / "core/src/bad.cpp").write_text('// a lower layer reaching up\n#include "labs/common/lab.h"\n')
        found = crossings(root)
        if found != ["core/src/bad.cpp:2: includes labs/common/lab.h (layer 2) from layer 1"]:
            print(f"self-test: expected one crossing at core/src/bad.cpp:2, got {found}", file=sys.stderr)
            return 1
    print("self-test: the crossing core/src/bad.cpp:2 -> labs/common/lab.h was found")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print("usage: check_layers.py ROOT | --self-test", file=sys.stderr)
        return 2
    found = crossings(pathlib.Path(argv[1]))
    for line in found:
        print(line)
    if not found:
        print("no include runs from a lower layer to a higher one")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
