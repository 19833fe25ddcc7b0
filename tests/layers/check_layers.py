#!/usr/bin/env python3
"""No #include runs from a lower layer to a higher one.

Layers, lowest first:
  0  kernels/, exercises/, solutions/  plain CUDA: include nothing of warplab's
  1  core/                              the library: PTX front end, emulator, trace, CUDA glue
  2  labs/                              the registry and the lab runners, on core/
  3  apps/, viewer/                     the CLI, the grader and the viewer, on labs/
tests/, bench/ and scripts/ sit above everything and are not checked.
Inside labs/, labs/common/ (the skeleton every lab is built on) includes no
lab's folder: only the registry (labs/common/registry.cpp), one line a lab, names them.
Above labs/, the front ends read the labs through the registry (their options
too: Lab::inputs), so apps/ and viewer/ include no lab's folder either; only a
lab's own panel (viewer/panels/panel_<name>.cpp, Lab::panel) includes its lab.
The build keeps the same order: a core/ library gets its sources from core/'s
own build files (or the root CMakeLists.txt) only, never from a folder above
(the browser build's stand-ins for core/ live in core/).

Inside core/, rooms, lowest first (docs/architecture.md draws them):
  0  trace/, occupancy/, dim3.h   records, analysis, JSON; the occupancy model
  1  emu/                         the runtime: memory, fibers, checks, barriers, collectives, scheduler
  2  ptx/ (with user/)            the PTX reader and interpreter; a user's .cu file
  3  cuda/                        the GPU: driver API, the instrumenter, timing
  4  cudart/                      warplab's CUDA runtime: fat binaries, a whole program's launches
                                  (on the emulator, or on the GPU through cuda/'s trace)
A room includes its own headers and the public headers (core/include/warplab/)
of lower rooms. Another room's private headers (core/src/) are included only
where listed in PRIVATE_INTERFACES; nothing outside core/ includes core/src/.

Inside viewer/, rooms, lowest first (viewer/README.md):
  0  model/      what the panels draw from: steps, source, timing, lessons, layout, theme
  1  app/        the one App state and what changes it: options, traces, lessons played, programs
  2  panels/     one file per panel, the frame that draws them, their drawing pieces
  3  platform/   where a frame goes: an SDL window, the browser page, headless files
A viewer room includes its own files and those of lower rooms: a panel draws
the same whichever platform shows it. viewer/main.cpp sits above the rooms.

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
REGISTRY = "labs/common/registry.cpp"  # the one file of labs/common/ that names each lab
FRONT_ENDS = ("apps/", "viewer/")
LAB_PANELS = "viewer/panels/panel_"  # a lab's own panel, the one front-end file that includes its lab
INCLUDE_DIRS = ["", "core/include", "apps/grader"]
ROOMS = {"version": -1, "trace": 0, "occupancy": 0, "dim3.h": 0, "emu": 1, "ptx": 2, "cuda": 3}
ROOMS["cudart"] = 4  # warplab's CUDA runtime, on the emulator and the PTX interpreter, or the GPU trace
ROOM_ALIASES = {"user": "ptx"}  # a user's .cu file, read into the PTX API (warplab/ptx/kernel_file.h)
# The private headers a room may take from another: the interpreter drives
# the runtime through runtime.h and counts a mask's lanes as it does
# (bit_count.h); the instrumenter reads PTX through the statement layer the
# parser uses, and what to record from the table of operations' traced column.
PRIVATE_INTERFACES = {("ptx", "core/src/emu/runtime.h"), ("ptx", "core/src/emu/bit_count.h"),
                      ("cuda", "core/src/ptx/statements.h"), ("cuda", "core/src/ptx/traced.h")}
VIEWER_ROOMS = {"model": 0, "app": 1, "panels": 2, "platform": 3}  # viewer/'s rooms, lowest first
SOURCE_SUFFIXES = {".h", ".hpp", ".cpp", ".cu", ".cuh"}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
ADD_LIBRARY = re.compile(r'add_library\(\s*(\w+)([^)]*)\)')
TARGET_SOURCES = re.compile(r'target_sources\(\s*(\w+)')
SOURCE_LIST = re.compile(r'(?:file\(\s*GLOB|set\()\s*(?:CONFIGURE_DEPENDS\s+)?(\w+)([^)]*)\)')


def layer_of(rel):
    for rank, prefixes in LAYERS:
        if rel.startswith(prefixes):
            return rank
    return None


def room_of(rel):
    """('trace', False) for core/include/warplab/trace/x.h, ('emu', True) for core/src/emu/x.cpp."""
    for prefix, private in (("core/src/", True), ("core/include/warplab/", False)):
        if rel.startswith(prefix):
            first = rel[len(prefix):].split("/")[0]
            first = ROOM_ALIASES.get(first, first)
            if first.endswith(".h"):
                first = first if first in ROOMS else first[:-2]
            return (first, private) if first in ROOMS else (None, private)
    return (None, False)


def is_lab(rel):
    """Whether a file is in a lab's own folder (labs/<lab>/, not labs/common/)."""
    return rel.startswith("labs/") and not rel.startswith("labs/common/")


def room_crossing(rel, target_rel):
    """Why an include breaks the rooms' rules, or None."""
    if rel.startswith("labs/common/") and rel != REGISTRY and is_lab(target_rel):
        return f"a lab from labs/common/ (only the registry, {REGISTRY}, names the labs)"
    if rel.startswith(FRONT_ENDS) and not rel.startswith(LAB_PANELS) and is_lab(target_rel):
        return f"a lab from a front end (they read the registry; only a lab's own panel, {LAB_PANELS}<name>.cpp, includes its lab)"
    if target_rel.startswith("core/src/") and not rel.startswith("core/"):
        return "a private header of core/ (include core/include/warplab/ instead)"
    if not rel.startswith("core/"):
        return None
    room, _ = room_of(rel)
    target, private = room_of(target_rel)
    if room is None or target is None or room == target:
        return None
    if private and (room, target_rel) not in PRIVATE_INTERFACES:
        return f"a private header of room {target} (the rooms' interfaces are listed in PRIVATE_INTERFACES)"
    if ROOMS[target] >= ROOMS[room] and (room, target_rel) not in PRIVATE_INTERFACES:
        return f"room {target} (rank {ROOMS[target]}) from room {room} (rank {ROOMS[room]})"
    return None


def viewer_room_of(rel):
    """'panels' for viewer/panels/x.cpp; None outside viewer/'s rooms (viewer/main.cpp)."""
    parts = rel.split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "viewer" and parts[1] in VIEWER_ROOMS else None


def viewer_crossing(rel, target_rel):
    """Why an include breaks viewer/'s rooms, or None."""
    room, target = viewer_room_of(rel), viewer_room_of(target_rel)
    if room is None or target is None or VIEWER_ROOMS[target] <= VIEWER_ROOMS[room]:
        return None
    return f"viewer room {target} (rank {VIEWER_ROOMS[target]}) from viewer room {room} (rank {VIEWER_ROOMS[room]})"


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
            line = text.count("\n", 0, match.start()) + 1
            if theirs is not None and theirs > own:
                found.append(f"{rel}:{line}: includes {target_rel} (layer {theirs}) from layer {own}")
            elif (why := room_crossing(rel, target_rel) or viewer_crossing(rel, target_rel)) is not None:
                found.append(f"{rel}:{line}: includes {target_rel}: {why}")
    return found


def build_files(root):
    """CMakeLists.txt and *.cmake files, outside build folders (not walked: they are large)."""
    tops = [p for p in sorted(root.iterdir()) if not p.name.startswith(("build", "."))]
    for path in [p for p in tops if p.is_file()] + [f for p in tops if p.is_dir() for f in sorted(p.rglob("*"))]:
        if path.is_file() and (path.name == "CMakeLists.txt" or path.suffix == ".cmake"):
            yield path.relative_to(root).as_posix(), path.read_text(errors="replace")


def core_libraries(files):
    """The libraries built from core/: those core/'s build files add, and the root's over core/ sources
    (named directly or through a list of them: file(GLOB X core/...), set(X core/...))."""
    names = set()
    for rel, text in files:
        lists = {m.group(1) for m in SOURCE_LIST.finditer(text) if "core/" in m.group(2)}
        for match in ADD_LIBRARY.finditer(text):
            sources = match.group(2)
            if rel.startswith("core/") or (rel == "CMakeLists.txt" and
                                           ("core/" in sources or any("${" + v + "}" in sources for v in lists))):
                names.add(match.group(1))
    return names


def sources_from_above(root):
    """Build files outside core/ that add sources to a core/ library."""
    files = list(build_files(root.resolve()))
    libraries = core_libraries(files)
    found = []
    for rel, text in files:
        if rel.startswith("core/") or rel == "CMakeLists.txt":
            continue
        for match in TARGET_SOURCES.finditer(text):
            if match.group(1) in libraries:
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{rel}:{line}: adds sources to core/'s library {match.group(1)} from outside core/")
    return found


def reported(found, expected, note=""):
    """False (and the difference printed) where a self-test case found other crossings than expected."""
    if found == expected:
        return True
    print(f"self-test: expected {expected}{note}, got {found}", file=sys.stderr)
    return False


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
        (root / "core/src/bad.cpp").unlink()
        for d in ("core/src/emu", "core/src/ptx", "core/include/warplab/ptx"):
            (root / d).mkdir(parents=True, exist_ok=True)
        (root / "core/src/emu/runtime.h").write_text("#pragma once\n")
        (root / "core/src/ptx/interp.h").write_text("#pragma once\n")
        (root / "core/include/warplab/ptx/ptx.h").write_text("#pragma once\n")
        (root / "core/src/ptx/ok.cpp").write_text('#include "../emu/runtime.h"\n#include "interp.h"\n')
        if crossings(root):
            print(f"self-test: the interpreter's use of runtime.h was reported: {crossings(root)}", file=sys.stderr)
            return 1
        (root / "core/src/emu/up.cpp").write_text('#include "warplab/ptx/ptx.h"\n#include "../ptx/interp.h"\n')
        (root / "labs/common/peek.cpp").write_text('#include "core/src/emu/runtime.h"\n')
        found = crossings(root)
        expected = ["core/src/emu/up.cpp:1: includes core/include/warplab/ptx/ptx.h: room ptx (rank 2) from room emu (rank 1)",
                    "core/src/emu/up.cpp:2: includes core/src/ptx/interp.h: a private header of room ptx (the rooms' interfaces are listed in PRIVATE_INTERFACES)",
                    "labs/common/peek.cpp:1: includes core/src/emu/runtime.h: a private header of core/ (include core/include/warplab/ instead)"]
        if not reported(found, expected):
            return 1
        for room in ("model", "panels", "platform"):
            (root / "viewer" / room).mkdir(parents=True)
        (root / "viewer/platform/platform.h").write_text("#pragma once\n")
        (root / "viewer/model/step_model.h").write_text("#pragma once\n")
        (root / "viewer/panels/panel_steps.cpp").write_text('#include "viewer/model/step_model.h"\n'
                                                             '#include "viewer/platform/platform.h"\n')
        (root / "viewer/main.cpp").write_text('#include "viewer/platform/platform.h"\n')
        found = [f for f in crossings(root) if f.startswith("viewer/")]
        expected = ["viewer/panels/panel_steps.cpp:2: includes viewer/platform/platform.h: "
                    "viewer room platform (rank 3) from viewer room panels (rank 2)"]
        if not reported(found, expected):
            return 1
        (root / "labs/common/peek.cpp").unlink()
        (root / "labs/matmul").mkdir()
        (root / "labs/matmul/run.h").write_text('#include "labs/common/lab.h"\n')
        (root / "labs/common/registry.cpp").write_text('#include "labs/matmul/run.h"\n')
        (root / "labs/common/stub.cpp").write_text('#include "lab.h"\n#include "../matmul/run.h"\n')
        found = [f for f in crossings(root) if f.startswith("labs/")]
        expected = ["labs/common/stub.cpp:2: includes labs/matmul/run.h: a lab from labs/common/ "
                    "(only the registry, labs/common/registry.cpp, names the labs)"]
        if not reported(found, expected, " (the registry and a lab include freely)"):
            return 1
        (root / "viewer/app").mkdir()
        (root / "apps/cli").mkdir(parents=True)
        (root / "viewer/panels/panel_matmul.cpp").write_text('#include "labs/matmul/run.h"\n')
        (root / "viewer/app/options.cpp").write_text('#include "labs/common/lab.h"\n#include "labs/matmul/run.h"\n')
        (root / "apps/cli/main.cpp").write_text('#include "labs/matmul/run.h"\n')
        found = [f for f in crossings(root) if "labs/" in f and f.startswith(FRONT_ENDS)]
        why = "a lab from a front end (they read the registry; only a lab's own panel, viewer/panels/panel_<name>.cpp, includes its lab)"
        expected = [f"apps/cli/main.cpp:1: includes labs/matmul/run.h: {why}",
                    f"viewer/app/options.cpp:2: includes labs/matmul/run.h: {why}"]
        if not reported(found, expected, " (a lab's own panel includes its lab)"):
            return 1
        (root / "CMakeLists.txt").write_text("add_library(core_lib STATIC core/src/a.cpp)\nadd_library(lab_lib labs/a.cpp)\n")
        (root / "web").mkdir()
        (root / "web/CMakeLists.txt").write_text("target_sources(lab_lib PRIVATE x.cpp)\n\ntarget_sources(core_lib PRIVATE stub.cpp)\n")
        found = sources_from_above(root)
        if found != ["web/CMakeLists.txt:3: adds sources to core/'s library core_lib from outside core/"]:
            print(f"self-test: expected web/CMakeLists.txt:3 adding to core_lib, got {found}", file=sys.stderr)
            return 1
    print("self-test: the crossing core/src/bad.cpp:2 -> labs/common/lab.h was found, three room crossings, "
          "a panel including the platform, a lab included from labs/common/ and from two front ends, "
          "and a core/ library given sources from web/")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print("usage: check_layers.py ROOT | --self-test", file=sys.stderr)
        return 2
    found = crossings(pathlib.Path(argv[1])) + sources_from_above(pathlib.Path(argv[1]))
    for line in found:
        print(line)
    if not found:
        print("no include runs from a lower layer or room to a higher one, no private header is taken, "
              "and no core/ library gets sources from above")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
