#!/usr/bin/env bash
# The Debian package, warplab_<version>_<arch>.deb in out/, made by CPack from
# a release build in build-package/ without the GPU backend: the labs' PTX as
# shipped in kernels/ptx/, so the package depends on Debian's runtime libraries
# only (dpkg-shlibdeps finds them: SDL2, libpng, the C++ runtime; Boost.Context
# is linked in). nvcc is optional where the package is installed: with NVIDIA's
# CUDA Toolkit, a user's own kernel (--file) and grading work too.
#
#   scripts/package.sh            then: apt-get install ./out/warplab_*.deb
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/packages.sh
bash scripts/install-packages.sh "${build_packages[@]}" "${viewer_packages[@]}" dpkg-dev file
build=${WARPLAB_PACKAGE_BUILD:-build-package}
command -v ccache >/dev/null && export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DWARPLAB_CUDA=OFF -DWARPLAB_BUILD_PTX=OFF \
      -DCMAKE_INSTALL_PREFIX=/usr >/dev/null
cmake --build "$build" -j"$(nproc)" --target warplab warplab-viewer
mkdir -p out
cpack --config "$build/CPackConfig.cmake" -B "$PWD/out/package" >/dev/null
mv out/package/warplab_*.deb out/
rm -rf out/package
deb=$(ls -t out/warplab_*.deb | head -n1)
echo "package.sh: wrote $PWD/$deb"
dpkg-deb --field "$deb" Package Version Architecture Depends
