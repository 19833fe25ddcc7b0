#!/usr/bin/env bash
# The library and its unit and emulator tests built with clang and libc++ (LLVM's
# standard library) in build-clang/, beside the g++/libstdc++ build in build/, and
# run: what one compiler or standard library lets pass and the other does not
# (unspecified behaviour, missing includes, types such as _Float16) shows here.
#
#   scripts/clang-libcxx.sh [build dir]     default build-clang
#
# Debian packages: clang, libc++-dev, libc++abi-dev (installed as in setup.sh).
# Debian's GoogleTest library is built against libstdc++, so GoogleTest is built
# here from Debian's source package (/usr/src/googletest) with libc++ first.
# No GPU backend and no nvcc at build time: the labs' PTX as shipped in kernels/ptx/
# (tests that compile CUDA at run time still use nvcc where it exists).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-clang}
jobs=${JOBS:-$(nproc)}

packages=(clang libc++-dev libc++abi-dev libgtest-dev cmake libboost-context-dev nlohmann-json3-dev libcli11-dev libzstd-dev liblz4-dev
          libimgui-dev)  # libimgui-dev: imgui.h, for the viewer's syntax check
bash scripts/install-packages.sh --no-install-recommends "${packages[@]}"

export CC=clang CXX=clang++
libcxx=(-DCMAKE_CXX_FLAGS=-stdlib=libc++ "-DCMAKE_EXE_LINKER_FLAGS=-stdlib=libc++ -lc++abi")

# GoogleTest with libc++, installed inside the build dir (once).
gtest=$PWD/$build/googletest
if [[ ! -f $gtest/lib/cmake/GTest/GTestConfig.cmake ]]; then
  cmake -S /usr/src/googletest -B "$build/googletest-build" -DCMAKE_BUILD_TYPE=Release "${libcxx[@]}" \
        -DCMAKE_INSTALL_PREFIX="$gtest" -DBUILD_GMOCK=OFF >/dev/null
  cmake --build "$build/googletest-build" -j"$jobs" >/dev/null
  cmake --install "$build/googletest-build" >/dev/null
fi

# Debian's Boost.Context archive was compiled against libstdc++ and calls four of
# its functions (std::call_once's and std::terminate); libstdc++ is linked after
# libc++ for those only: no standard-library type crosses between the two.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON -DWARPLAB_CUDA=OFF -DWARPLAB_BUILD_PTX=OFF \
      -DCMAKE_CXX_FLAGS=-stdlib=libc++ "-DCMAKE_EXE_LINKER_FLAGS=-stdlib=libc++ -lc++abi -Wl,--as-needed -lstdc++" \
      -DCMAKE_PREFIX_PATH="$gtest" >/dev/null
tests=(warplab_unit_tests ptx/warplab_ptx_tests warplab_emulator_tests corpus/warplab_corpus_tests warplab_registry_tests
       reduction/warplab_reduction_tests matmul/warplab_matmul_tests)  # under $build/tests/
cmake --build "$build" -j"$jobs" --target "${tests[@]##*/}"

failed=()
# The viewer's state and models (not its drawing), checked for syntax only: the
# standard library's gaps show here (libc++ 14 has no <=> for std::string).
viewer_sources=(viewer/model/*.cpp viewer/app/*.cpp)
echo "== the viewer's model and app sources (clang, libc++, syntax only)"
printf '%s\n' "${viewer_sources[@]}" |
  xargs -P"$jobs" -I{} clang++ -std=c++20 -stdlib=libc++ -fsyntax-only -DWARPLAB_HAVE_RUN=1 -I. -Icore/include \
        -isystem /usr/include/imgui {} || failed+=(viewer-syntax)
for t in "${tests[@]}"; do
  echo "== $t (clang, libc++)"
  "$build/tests/$t" --gtest_brief=1 || failed+=("$t")
done
if ((${#failed[@]})); then
  echo "clang-libcxx.sh: error: failed under clang and libc++: ${failed[*]}" >&2
  exit 1
fi
echo "clang-libcxx.sh: every unit and emulator test passed under clang and libc++"
