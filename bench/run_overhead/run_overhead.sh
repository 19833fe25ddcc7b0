#!/bin/bash
# What warplab's CUDA runtime adds to a program's emulated time: scale.cu's
# host loop of launches through `warplab run` (the program times its loop)
# against the same launches through the C++ API (api.cpp), each the best of
# three runs, by the wall clock and by processor time (all threads'; steadier
# on a loaded machine). The demand: at most 10 % more.
#   bench/run_overhead/run_overhead.sh BUILD_DIR [N] [LAUNCHES]
set -euo pipefail
build=${1:?usage: run_overhead.sh BUILD_DIR [N] [LAUNCHES]}
n=${2:-1048576}
launches=${3:-10}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
"$nvcc" -ptx -lineinfo -arch=compute_90 "$here/scale.cu" -o "$work/scale.ptx"
best_wall() { sed -n 's/.* in \([0-9.]*\) ms,.*/\1/p' | sort -g | head -1; }
best_cpu() { sed -n 's/.* ms, \([0-9.]*\) ms of processor time.*/\1/p' | sort -g | head -1; }
for i in 1 2 3; do "$build/warplab_run_overhead_api" "$work/scale.ptx" "$n" "$launches"; done > "$work/api.txt"
"$build/warplab" run --watch none "$here/scale.cu" -- "$n" 1 > /dev/null 2>&1  # the build, once
for i in 1 2 3; do "$build/warplab" run --watch none "$here/scale.cu" -- "$n" "$launches" 2>/dev/null; done | grep '^program:' > "$work/program.txt"
report() {
  awk -v what="$1" -v a="$2" -v p="$3" -v n="$n" -v l="$launches" 'BEGIN {
    printf "%d launches of scale over %d floats, %s: C++ API %.1f ms, warplab run %.1f ms: %+.1f %% (demand: at most +10 %%)\n", l, n, what, a, p, 100 * (p - a) / a }'
}
report "wall clock" "$(best_wall < "$work/api.txt")" "$(best_wall < "$work/program.txt")"
report "processor time" "$(best_cpu < "$work/api.txt")" "$(best_cpu < "$work/program.txt")"
