#!/usr/bin/env bash
# An installed warplab runs from its own prefix, with the source tree out of
# reach: `cmake --install` into a fresh prefix, then, inside a mount namespace
# where an empty tmpfs lies over the source tree (and the build folder in it),
# the installed programs list, trace, grade the installed solutions, show the
# recorded results and write the viewer's tour. Any read of the source tree
# finds nothing there, so a binary that still looked for its data in the tree
# would fail here.
#
#   check_install.sh BUILD_DIR SOURCE_DIR      exit 77 (skipped) where no mount namespace can be made
set -euo pipefail
build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
if ! unshare --mount true 2>/dev/null && ! unshare --user --map-root-user --mount true 2>/dev/null; then
  echo "skipped: no mount namespace here (unshare --mount refused), so the source tree cannot be hidden"
  exit 77
fi
work=$(mktemp -d /tmp/warplab-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
cp "$source/tests/run/programs/vector_add.cu" "$work/"  # a whole program for the installed `warplab run`

# Run inside the namespace; the body is read before the source tree is hidden.
read -r -d '' body <<'BODY' || true
set -euo pipefail
mount -t tmpfs none "$SOURCE"
if [ -n "$(ls -A "$SOURCE")" ]; then echo "the source tree is still visible"; exit 1; fi
cd "$WORK"
export PATH=$PREFIX/bin:$PATH
fail() { echo "check_install: $1"; exit 1; }
expect() {  # expect NAME PATTERN FILE: the output holds the pattern
  grep -Eq "$2" "$3" || { echo "--- $1 printed:"; cat "$3"; fail "$1 does not print /$2/"; }
}
warplab --version >version.txt; expect "warplab --version" '^warplab [0-9]+\.[0-9]+\.[0-9]+' version.txt
warplab list >list.txt; expect "warplab list" 'reduction' list.txt
# v2 at the default size reads the lab's PTX (kernels/ptx/) and its SASS listing from the install.
warplab trace reduction v2 --backend cpu >trace.txt; expect "warplab trace" 'correct|ok' trace.txt
warplab trace reduction v2 --backend cpu --json >trace.json; expect "warplab trace --json" '"warplab": "[0-9]' trace.json
warplab bench reduction --recorded >bench.txt; expect "warplab bench --recorded" 'H100' bench.txt
if [ -n "$NVCC" ]; then
  # The installed solutions, found by the relative name in share/warplab; two exercises keep it short.
  warplab grade E1 E7 --dir solutions >grade.txt || { cat grade.txt; fail "warplab grade --dir solutions failed"; }
  expect "warplab grade" 'graded by warplab [0-9]' grade.txt
  expect "warplab grade" '^score: ([0-9]+)/\1 ' grade.txt
  if [ -f "$PREFIX/share/warplab/cudart/link.txt" ]; then
    # Built and linked against the runtime the install carries, in a cache of its own (no earlier build reused).
    XDG_CACHE_HOME=$WORK/cache warplab run vector_add.cu -- 1001 >run.txt 2>&1 || { cat run.txt; fail "warplab run failed"; }
    expect "warplab run" 'vector_add: 1001 elements, correct' run.txt
    expect "warplab run" '^1 +vector_add +vector_add.cu:[0-9]+ +\(4,1,1\)' run.txt
  fi
else
  echo "no nvcc here: grading and warplab run (which compile CUDA) not checked"
fi
if command -v warplab-viewer >/dev/null; then
  warplab-viewer --version >viewer-version.txt; expect "warplab-viewer --version" '^warplab-viewer [0-9]' viewer-version.txt
  SDL_VIDEODRIVER=offscreen warplab-viewer --lab coalescing --tour tour >tour.txt 2>&1 || { cat tour.txt; fail "the viewer's tour failed"; }
  [ -f tour/index.html ] || fail "the tour wrote no index.html"
  [ "$(ls tour/*.png | wc -l)" -gt 1 ] || fail "the tour wrote no pictures"
  # A shipped lesson, by name, from share/warplab/lessons: its handout.
  SDL_VIDEODRIVER=offscreen warplab-viewer --lesson coalescing --backend cpu --tour handout >handout.txt 2>&1 || { cat handout.txt; fail "the coalescing lesson's handout failed"; }
  expect "the lesson's handout" 'wrote [0-9]* slides' handout.txt
  # The viewer shows the version's source and the recorded times, both read from share/warplab.
  SDL_VIDEODRIVER=offscreen warplab-viewer --lab reduction --version v3 --screenshot v3.png --layout-json v3.json >/dev/null
  expect "the viewer's layout" '"results_error": ""' v3.json
  grep -q '"source.missing"' v3.json && fail "the viewer did not find v3's source in share/warplab"
fi
echo "check_install: the installed warplab ran with the source tree hidden"
BODY

nvcc=$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; } || true)
run=(unshare --mount)
unshare --mount true 2>/dev/null || run=(unshare --user --map-root-user --mount)
SOURCE=$source WORK=$work PREFIX=$prefix NVCC=$nvcc "${run[@]}" bash -c "$body"
