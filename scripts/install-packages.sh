#!/usr/bin/env bash
# Installs the Debian packages named that are missing, as root or through sudo;
# says which it installs, or, where it cannot, which are missing (exit 1).
#
#   scripts/install-packages.sh [--no-install-recommends] PACKAGE...
set -euo pipefail
apt_options=()
if [[ ${1:-} == --no-install-recommends ]]; then
  apt_options=(--no-install-recommends)
  shift
fi
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
((${#missing[@]})) || exit 0
echo "warplab: installing ${missing[*]}"
install=(apt-get install -y -qq "${apt_options[@]}" "${missing[@]}")
if [[ $(id -u) -eq 0 ]]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive "${install[@]}" >/dev/null
elif command -v sudo >/dev/null; then
  sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive "${install[@]}" >/dev/null
else
  echo "warplab: error: missing packages ${missing[*]}; install them as root (apt-get install ...)" >&2
  exit 1
fi
