#!/usr/bin/env bash
# Installs the Debian packages warplab needs (as root, or through sudo), then
# configures and builds it in build/. Used by scripts/run.sh and scripts/test.sh.
# CUDA is optional: with nvcc in PATH or in /usr/local/cuda, the GPU backend is built too.
#
#   scripts/setup.sh            everything: CLI, viewer, tests, benchmarks
#   scripts/setup.sh --grader   only what `warplab grade` needs: a compiler, three
#                               libraries and the warplab binary (no viewer, tests,
#                               benchmarks or GPU backend; the labs' PTX as shipped
#                               in kernels/ptx/). The autograder's image uses it.
# Each mode sets the build options it depends on, so either may follow the other in build/.
set -euo pipefail
cd "$(dirname "$0")/.."

grader=0
case "${1:-}" in
  "") ;;
  --grader) grader=1 ;;
  *) echo "setup.sh: error: unknown option '$1' (the one option is --grader)" >&2; exit 2 ;;
esac

# What building `warplab` needs; the rest is for the viewer, the tests and the benchmarks.
source scripts/packages.sh
packages=("${build_packages[@]}")
apt_options=(--no-install-recommends)
if ((!grader)); then
  packages+=("${viewer_packages[@]}" "${test_packages[@]}")
  apt_options=()
fi
bash scripts/install-packages.sh "${apt_options[@]}" "${packages[@]}"

if ((grader)); then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DWARPLAB_CUDA=OFF -DWARPLAB_BUILD_PTX=OFF >/dev/null
  cmake --build build -j"$(nproc)" --target warplab
else
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON -DWARPLAB_CUDA=ON -DWARPLAB_BUILD_PTX=ON >/dev/null
  cmake --build build -j"$(nproc)"
fi
