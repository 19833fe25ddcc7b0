#!/usr/bin/env bash
# Makes the zip to upload as a Gradescope autograder: setup.sh and
# run_autograder at its top, exercises.txt where exercises are named, the
# committed warplab repository in warplab/.
#   bash autograder/make_zip.sh [OUT.zip] [E1 E2 ...]   (default: warplab-autograder.zip; no ids: every
#   exercise of the grader's catalog, apps/grader/catalog.h, and no exercises.txt)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"
out="$(realpath -m "${1:-warplab-autograder.zip}")"
shift || true
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
cp "$here/setup.sh" "$here/run_autograder" "$stage/"
if (($#)); then echo "$*" >"$stage/exercises.txt"; fi
mkdir "$stage/warplab"
git -C "$repo" archive HEAD | tar -x -C "$stage/warplab"
rm -f "$out"
(cd "$stage" && zip -qr "$out" .)
echo "wrote $out: upload it as the autograder; students submit their exercise folders (E*/kernel.cuh; a whole program, E12's, E12_two_pass_sum/program.cu)"
