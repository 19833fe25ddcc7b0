#!/usr/bin/env bash
# compute-sanitizer --tool racecheck on the GPU: Harris's volatile-only warp
# tail (v5-racy) has a shared-memory hazard; v5, with __syncwarp(), has none.
# Exit 77 (skipped), saying why, without a GPU or without compute-sanitizer.
#   racecheck.sh WARPLAB_BINARY
set -uo pipefail
warplab=$1
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[[ -x "$sanitizer" ]] || { echo "skipped: compute-sanitizer is not installed"; exit 77; }
"$warplab" list | grep -q '^GPU: none' && { echo "skipped: no GPU ($("$warplab" list | grep '^GPU'))"; exit 77; }

hazards() {  # version -> number of hazards racecheck reports for one traced run on the GPU
  "$sanitizer" --tool racecheck --racecheck-report hazard "$warplab" trace reduction "$1" --backend gpu --n 4096 \
    > "racecheck-$1.log" 2>&1
  grep -oE 'RACECHECK SUMMARY: [0-9]+ hazard' "racecheck-$1.log" | grep -oE '[0-9]+' || echo 0
}

racy=$(hazards v5-racy)
fixed=$(hazards v5)
echo "v5-racy: $racy hazards; v5: $fixed hazards"
grep -m3 -E 'Race reported|Error: Race|hazard' racecheck-v5-racy.log
[[ "$racy" -gt 0 && "$fixed" -eq 0 ]]
