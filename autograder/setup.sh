#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image,
# in /autograder/source: the unpacked zip that make_zip.sh made (this file,
# run_autograder, exercises.txt where the assignment names exercises, and the
# warplab repository in warplab/).
#
# The grader needs two things at grading time: nvcc (it compiles each
# submission to PTX) and its own binary. It needs no GPU: the checks run on
# warplab's emulator.
set -euo pipefail
cd "$(dirname "$0")"

# The grader alone, as the README's grader set-up makes it: a compiler, three
# libraries and the warplab binary in warplab/build/, built for the emulator
# (the GPU backend would need cuBLAS and a driver): the grader finds nvcc when
# it runs, not when it is built.
bash warplab/scripts/setup.sh --grader

# nvcc from NVIDIA's apt repository where the image has none (CUDA 12 or later:
# the grader compiles for compute_90). Only the compiler and the runtime headers.
if ! command -v nvcc >/dev/null && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  . /etc/os-release
  repo="${ID}${VERSION_ID//./}"   # ubuntu2204, ubuntu2404, debian12
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wget ca-certificates >/dev/null
  wget -q "https://developer.download.nvidia.com/compute/cuda/repos/${repo}/x86_64/cuda-keyring_1.1-1_all.deb"
  dpkg -i cuda-keyring_1.1-1_all.deb >/dev/null
  rm cuda-keyring_1.1-1_all.deb
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends cuda-nvcc-12-6 cuda-cudart-dev-12-6 >/dev/null
  [[ -e /usr/local/cuda ]] || ln -s /usr/local/cuda-12.6 /usr/local/cuda
fi

# The grader answers, and finds nvcc.
warplab/build/warplab grade --help >/dev/null
echo "warplab autograder: ready ($(/usr/local/cuda/bin/nvcc --version 2>/dev/null | tail -1 || command -v nvcc))"
