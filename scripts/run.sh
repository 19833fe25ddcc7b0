#!/usr/bin/env bash
# The main job: set up, then trace reduction v2 on the CPU emulator and print its per-step table.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec ./build/warplab trace reduction v2 --backend cpu "$@"
