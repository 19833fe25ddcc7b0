#!/usr/bin/env bash
# The timing build costs nothing: for every kernel file, the kernel compiled
# through warplab's plain build (wl::in<T>, WL_SHARED, ...) must give exactly
# the SASS of the same kernel with those wrappers rewritten by hand to raw
# CUDA (const T*, __shared__ T name[N], ...). Exit 77 (skipped) without cuobjdump.
# Each kernel is instantiated as its file declares in lines such as
#   // sass-check: <32, 32>
# (one line per instantiation); files without one get <256, int> and <256, float>.
#   check_sass.sh NVCC SOURCE_DIR WORK_DIR ARCHS
set -euo pipefail
nvcc=$1 src=$2 work=$3 archs=$4
arch=${archs%%;*}
arch=${arch%%-*}
cuobjdump=$(dirname "$nvcc")/cuobjdump
command -v "$cuobjdump" >/dev/null 2>&1 || cuobjdump=$(command -v cuobjdump || true)
if [[ -z "$cuobjdump" || ! -x "$cuobjdump" ]]; then
  echo "skipped: cuobjdump is not installed beside $nvcc (the CUDA toolkit's binary utilities)"
  exit 77
fi
mkdir -p "$work"

# The hand translation a student would write: wrappers -> raw CUDA. A vector
# view of a read-only parameter (declared wl::in<...> NAME) is a const pointer;
# of anything else (wl::out, a shared array) a writable one.
to_raw() {
  local const_views=() name
  for name in $(grep -oE 'wl::in<[^>]*> *[A-Za-z_0-9]+' "$1" | awk '{print $NF}' | sed 's/.*>//' | sort -u); do
    const_views+=(-e "s|wl::as<\([^()]*\)>(${name})|reinterpret_cast<const \1*>(${name})|g")
  done
  sed -e 's|#include "warplab/kernel.h"|#include "warplab/vec.h"|' \
      "${const_views[@]}" \
      -e 's|wl::as<\([^()]*\)>(\([A-Za-z_0-9]*\))|reinterpret_cast<\1*>(\2)|g' \
      -e 's|WL_SHARED_2D(\([^,]*\), *\([A-Za-z_0-9]*\), *\([^,]*\), *\(.*\));|__shared__ \1 \2[\3][\4];|' \
      -e 's|WL_SHARED(\([^,]*\), *\([A-Za-z_0-9]*\), *\(.*\));|__shared__ \1 \2[\3];|' \
      -e 's|wl::in<\([^>]*\)>|const \1* __restrict__|g' \
      -e 's|wl::out<\([^>]*\)>|\1*|g' \
      -e 's|WL_UNROLL|_Pragma("unroll")|g' \
      -e 's|wl::as_volatile(\([A-Za-z_0-9]*\))|static_cast<volatile T*>(\1)|g' "$1"
}

sass_of() {  # file.cu -> normalised SASS on stdout
  "$nvcc" -std=c++20 -arch="sm_$arch" -I"$src" -I"$src/core/include" -cubin -o "$1.cubin" "$1"
  "$cuobjdump" -sass "$1.cubin" | grep -v -E '^\s*$|identifier|Fatbin|====='
}

checked=0 failed=0
for kernel in "$src"/kernels/*/*.cuh; do
  lab=$(basename "$(dirname "$kernel")")
  name=$(basename "$kernel" .cuh)
  mapfile -t insts < <(sed -n 's|^// sass-check: *\(<.*>\) *$|\1|p' "$kernel")
  [[ ${#insts[@]} -gt 0 ]] || insts=("<256, int>" "<256, float>")
  # The kernels' names: the identifier after `__global__ void [__launch_bounds__(...)]`, across lines.
  for fn in $(perl -0777 -ne 'print "$1\n" while /__global__\s+void\s+(?:__launch_bounds__\s*\((?:[^()]|\([^()]*\))*\)\s*)?(\w+)\s*\(/g' "$kernel"); do
    for args in "${insts[@]}"; do
      tag="${name}_${fn}_$(printf '%s' "$args" | tr -c 'A-Za-z0-9' '_' | sed 's/__*/_/g; s/^_//; s/_$//')"
      inst="void* wl_instantiate() { return reinterpret_cast<void*>(&warplab::${lab}::${fn}${args}); }"
      printf '#include "%s"\n%s\n' "$kernel" "$inst" > "$work/$tag.wrapped.cu"
      { printf '#include <cuda_runtime.h>\n'; to_raw "$kernel"; printf '%s\n' "$inst"; } > "$work/$tag.raw.cu"
      sass_of "$work/$tag.wrapped.cu" > "$work/$tag.wrapped.sass"
      sass_of "$work/$tag.raw.cu" > "$work/$tag.raw.sass"
      lines=$(grep -c '/\*[0-9a-f]*\*/' "$work/$tag.raw.sass" || true)
      if [[ "$lines" -lt 10 ]]; then
        echo "FAIL $tag: the raw kernel produced no SASS ($lines instructions)"; failed=$((failed + 1)); continue
      fi
      if diff -q "$work/$tag.wrapped.sass" "$work/$tag.raw.sass" >/dev/null; then
        echo "same SASS  $tag ($lines instructions)"
      else
        echo "DIFFERENT  $tag:"; { diff "$work/$tag.wrapped.sass" "$work/$tag.raw.sass" || true; } | head -20
        failed=$((failed + 1))
      fi
      checked=$((checked + 1))
    done
  done
done
echo "$checked kernels checked, $failed differ"
[[ $failed -eq 0 && $checked -gt 0 ]]
