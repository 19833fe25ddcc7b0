#!/usr/bin/env bash
# The library's sources checked for a 32-bit host (size_t and pointers of 32
# bits: 32-bit ARM or x86, WebAssembly's wasm32). Each file is compiled by clang
# (syntax only) for -m32 and for -m64 with -Wshorten-64-to-32: an error in the
# 32-bit compile, or a conversion that loses bits only there (a 64-bit value into
# a size_t or a pointer), fails the check. Nothing is linked (Debian has no
# 32-bit Boost.Context), so this checks the code's types, not its behaviour.
# Needs clang and the 32-bit C++ headers (g++-multilib), installed as in setup.sh.
#
#   scripts/check-32bit.sh [files...]      default: core/src and labs/common
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-packages.sh --no-install-recommends clang g++-multilib
if (($#)); then files=("$@"); else
  mapfile -t files < <(ls core/src/{ptx,emu,trace,occupancy,user}/*.cpp labs/common/*.cpp)
fi
flags=(-std=c++20 -fsyntax-only -Wshorten-64-to-32 -I. -Icore/include -Icore/src)
diagnostics() {  # file:line:col: message, one a line, without the type spellings that differ by width
  clang++ "$1" -msse2 "${flags[@]}" "$2" 2>&1 | grep -E '(warning|error):' | sed -E 's/ \(aka [^)]*\)//g' | sort -u || true
}
failed=0
for f in "${files[@]}"; do
  only32=$(comm -13 <(diagnostics -m64 "$f" | cut -d: -f1-3) <(diagnostics -m32 "$f" | cut -d: -f1-3))
  errors=$(diagnostics -m32 "$f" | grep 'error:' || true)
  if [[ -n $only32 || -n $errors ]]; then
    failed=1
    echo "check-32bit.sh: $f, for a 32-bit host:" >&2
    diagnostics -m32 "$f" | grep -F -f <(printf '%s\n' $only32 "error:") >&2 || true
  fi
done
((failed == 0)) && echo "check-32bit.sh: ${#files[@]} files compile for a 32-bit host, no conversion loses bits there only"
exit $failed
