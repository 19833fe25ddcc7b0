#!/usr/bin/env bash
# The README's picture: the viewer's own headless rendering of the view the
# README's tour opens (the reduction's v2 at step 3). Run it after a change to
# what that view shows; the `docs` test docs_front_picture renders it again and
# fails when the committed picture no longer shows what the viewer draws.
#
#   scripts/front-picture.sh [viewer] [output] [step]   defaults: build/warplab-viewer docs/images/viewer.png 3
set -euo pipefail
cd "$(dirname "$0")/.."
viewer=${1:-build/warplab-viewer}
out=${2:-docs/images/viewer.png}
step=${3:-3}
exec "$viewer" --lab reduction --version v2 --step "$step" --size 1600x900 --screenshot "$out"
