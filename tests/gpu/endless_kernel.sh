#!/usr/bin/env bash
# A --file kernel that never ends (tests/cli/kernels/endless_sum.cu: its stride
# stays 1) on the GPU, where no instruction budget stops it: trace, run and
# bench must each end with exit 3 and the GPU deadline's one paragraph, within
# the deadline (30 s) plus start-up, not hang. A kernel that ends (the same
# file's tree with the stride doubling is reduction v1 itself) is never stopped.
# The viewer (where built), headless, keeps the fault in its window: its
# screenshot is written with the deadline on the status line, and it exits 3.
# Exit 77 (skipped), saying why, without a GPU.
#   endless_kernel.sh WARPLAB_BINARY KERNEL_DIR [VIEWER_BINARY]
set -uo pipefail
warplab=$1
kernels=$2
"$warplab" list | grep -q '^GPU: none' && { echo "skipped: no GPU ($("$warplab" list | grep '^GPU'))"; exit 77; }

failures=0
expect_deadline() {  # warplab arguments...
  local start=$SECONDS
  timeout 60 "$warplab" "$@" --file "$kernels/endless_sum.cu" > endless.out 2> endless.err
  local rc=$? took=$((SECONDS - start))
  echo "warplab $* --file endless_sum.cu: exit $rc after $took s; $(head -c 160 endless.err)"
  if [[ $rc -ne 3 ]] || ! grep -q "^warplab: kernel fault: the kernel .* did not finish within 30 s on the GPU: an endless loop?" endless.err \
     || [[ $(wc -l < endless.err) -ne 1 ]]; then
    echo "  FAILED: expected exit 3 and one paragraph naming the GPU deadline"; failures=$((failures + 1))
  fi
}
expect_deadline trace reduction v1 --n 4096 --backend gpu
expect_deadline bench reduction --n 4096

if [[ -n "${3:-}" ]]; then
  start=$SECONDS
  SDL_VIDEODRIVER=offscreen timeout 150 "$3" --lab reduction --version v1 --n 4096 --backend gpu \
    --file "$kernels/endless_sum.cu" --screenshot viewer.png --layout-json viewer.json > viewer.out 2>&1
  rc=$?
  echo "warplab-viewer --file endless_sum.cu --backend gpu --screenshot: exit $rc after $((SECONDS - start)) s; $(head -c 400 viewer.out)"
  if [[ $rc -ne 3 ]] || [[ ! -s viewer.png ]] || ! grep -q "^warplab-viewer: wrote viewer.png .*did not finish within 30 s on the GPU" viewer.out \
     || ! grep -Eq '"gpu_deadline": ?true' viewer.json; then
    echo "  FAILED: expected exit 3, the picture, and the deadline's fault on its status line"; failures=$((failures + 1))
  fi
fi

"$warplab" trace reduction v1 --backend gpu --n 4096 > ended.out 2>&1 || { echo "FAILED: reduction v1 on the GPU"; failures=$((failures + 1)); }
grep -q "correct" ended.out || { echo "FAILED: reduction v1 on the GPU is not correct"; failures=$((failures + 1)); }
[[ $failures -eq 0 ]]
