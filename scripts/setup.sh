#!/usr/bin/env bash
# Installs the Debian packages warplab needs (as root, or through sudo), then
# configures and builds it in build/. Used by scripts/run.sh and scripts/test.sh.
# CUDA is optional: with nvcc in PATH or in /usr/local/cuda, the GPU backend is built too.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ make pkg-config libboost-context-dev nlohmann-json3-dev libcli11-dev
          libgtest-dev libgmock-dev libbenchmark-dev libsdl2-dev libimgui-dev libpng-dev fonts-dejavu-core)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "warplab: installing ${missing[*]}"
  if [[ $(id -u) -eq 0 ]]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  elif command -v sudo >/dev/null; then
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "warplab: error: missing packages ${missing[*]}; install them as root (apt-get install ...)" >&2
    exit 1
  fi
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
