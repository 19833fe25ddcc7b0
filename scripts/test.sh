#!/usr/bin/env bash
# The whole test suite: set up, then every CTest test (docs/contributing.md lists
# the labels with their times; the gpu tests skip and say why where there is no GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cd build
exec ctest --output-on-failure -j"$(nproc)" "$@"
