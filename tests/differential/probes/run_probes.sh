#!/usr/bin/env bash
# Builds and runs every probe here, and warp_probe.cu and nan_choice.cu beside them,
# natively (nvcc -arch=sm_90, on a GPU), printing each one's output and exit status
# and the SASS lines that the reading in results/differential/README.md rests on
# (cuobjdump -sass); with WARPLAB (a built warplab), also each under `warplab run`,
# and nan_choice's lines where the two differ.
#
#     bash tests/differential/probes/run_probes.sh [WARPLAB]
set -u
here=$(cd "$(dirname "$0")" && pwd)
warplab=${1:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
nvcc --version | tail -1

sass_of() {  # the collectives, barriers, convergence barriers, conversions and stores of a binary's SASS
    cuobjdump -sass "$1" | grep -E 'Function|WARPSYNC|VOTE|SHFL|REDUX|MATCH|BSSY|BSYNC|BAR|F2I|F2F|STS|STG\.E\.U8|STG\.E\.U16' | sed 's/^ *//'
}

for source in "$here"/*.cu "$here"/../warp_probe.cu "$here"/../nan_choice.cu; do
    name=$(basename "$source" .cu)
    echo "=== $name"
    if ! nvcc -arch=sm_90 -o "$work/$name" "$source" 2>"$work/$name.build"; then
        echo "$name: nvcc failed"; cat "$work/$name.build"; continue
    fi
    "$work/$name" >"$work/$name.gpu" 2>&1
    status=$?
    if [ "$name" = nan_choice ]; then
        echo "nan_choice: $(wc -l <"$work/$name.gpu") lines; first ones:"; head -5 "$work/$name.gpu"
    else
        cat "$work/$name.gpu"
    fi
    echo "$name: exit $status on the GPU"
    [ "$name" = nan_choice ] || { echo "--- SASS"; sass_of "$work/$name"; }
    if [ -n "$warplab" ]; then
        "$warplab" run "$source" >"$work/$name.emu" 2>&1
        status=$?
        if [ "$name" = nan_choice ]; then
            grep -E '^(add|sub|mul|div|min|max|fma)' "$work/$name.emu" >"$work/$name.emu.lines"
            echo "nan_choice: lines where the GPU and warplab differ:"
            diff "$work/$name.gpu" "$work/$name.emu.lines" | grep '^[<>]' || echo "(none)"
        else
            sed -n '/^warplab: [0-9]* kernel launch/q;/^warplab: nvcc built/d;p' "$work/$name.emu"
        fi
        echo "$name: exit $status under warplab run"
    fi
done

# Generated kernels of seed 1 read in results/differential/README.md: their SASS as
# nvdisasm writes it, and kernel 3104 under compute-sanitizer as generated and with
# its unused tile<16> reduction's result used (u3 ^= in place of u0 =), which
# brings back the convergence barrier around the collective.
generate="$here/../generate.py"
for k in 9903 4739 2731 3104; do
    python3 "$generate" --seed 1 --first $k --count 1 --out "$work/k$k.cu" >/dev/null || continue
    nvcc -arch=sm_90 -lineinfo -o "$work/k$k" "$work/k$k.cu" 2>/dev/null || { echo "kernel $k: nvcc failed"; continue; }
    echo "=== SASS of generated kernel $k"
    sass_of "$work/k$k"
done
sed 's/u0 = cg::reduce(tile4, 788u, cg::plus<unsigned>());/u3 ^= cg::reduce(tile4, 788u, cg::plus<unsigned>());/' \
    "$work/k3104.cu" >"$work/k3104used.cu"
if cmp -s "$work/k3104.cu" "$work/k3104used.cu"; then
    echo "kernel 3104: its tile statement is not the one read (the generator changed)"
else
    nvcc -arch=sm_90 -lineinfo -o "$work/k3104used" "$work/k3104used.cu" 2>/dev/null
    for variant in k3104 k3104used; do
        echo "=== $variant under compute-sanitizer memcheck"
        compute-sanitizer --tool memcheck "$work/$variant" "$work/$variant.bin" >"$work/$variant.memcheck" 2>&1
        grep -m 4 -E 'Invalid|by thread|Access' "$work/$variant.memcheck"
        grep -E 'ERROR SUMMARY' "$work/$variant.memcheck"
    done
fi

# sass_outline.py (this repository's reading without nvdisasm) against cuobjdump on one cubin:
# the orphaned WARPSYNCs it names must be cuobjdump's WARPSYNCs at the same offsets.
nvcc -arch=sm_90 -cubin -lineinfo -o "$work/probe.cubin" "$here/dead_tile_collective.cu" 2>/dev/null &&
    { echo "=== sass_outline.py --orphans against cuobjdump -sass (dead_tile_collective.cu)"
      python3 "$here/../sass_outline.py" --orphans "$work/probe.cubin" | cut -c1-60
      cuobjdump -sass "$work/probe.cubin" | grep -E 'Function|WARPSYNC|F2I' | sed 's/^ *//'; }
