#!/usr/bin/env bash
# The main job: set up, then open the viewer on the reduction lab. Where there
# is no display, say so and write the viewer's tour instead (one PNG per
# version per step, and an index.html to page through them), saying where.
# Extra arguments go to the viewer (e.g. --presenter, --version v3).
set -euo pipefail
cd "$(dirname "$0")/.."
viewer_args=("$@")
bash scripts/setup.sh

if [[ ! -x build/warplab-viewer ]]; then
  echo "warplab: the viewer was not built (cmake said why: 'viewer skipped'); here is reduction v2's per-step table instead"
  exec ./build/warplab trace reduction v2 --backend cpu
fi

write_tour() {
  local tour=out/tour
  echo "warplab: $1: writing the viewer's tour of the reduction lab to $(pwd)/$tour"
  ./build/warplab-viewer --lab reduction --tour "$tour" "${viewer_args[@]}"
  echo "warplab: open $(pwd)/$tour/index.html in a browser, or look at the PNG files there"
}

if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
  write_tour "no display here (DISPLAY and WAYLAND_DISPLAY are unset)"
  exit 0
fi
status=0
./build/warplab-viewer --lab reduction "${viewer_args[@]}" || status=$?
if [[ $status -eq 1 ]]; then  # the window could not open: the display is set but unusable
  write_tour "the viewer could not open a window"
  exit 0
fi
exit $status
