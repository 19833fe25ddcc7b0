#!/usr/bin/env bash
# warplab in the browser: builds warplab-web (the viewer and the CLI as static
# files) with Debian's emscripten and serves it on 127.0.0.1 for a try.
#   scripts/web.sh [--build-only] [--port N]     (build folder: build-web/, or $WARPLAB_WEB_BUILD)
#   scripts/web.sh --package                     builds, then writes out/warplab-web-<version>.zip:
#                                                the page's folder, to host as it is
# Installs what is missing from Debian (emscripten, python3-fonttools, fonts-dejavu-core and -extra)
# and Dear ImGui's sources (Debian's imgui source package, apt-get source) into
# ~/.cache/warplab/imgui; nothing else is downloaded, and the build downloads nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${WARPLAB_WEB_BUILD:-build-web}
port=8000
serve=1
package=0
while [ $# -gt 0 ]; do
  case $1 in
    --build-only) serve=0 ;;
    --package) serve=0 package=1 ;;
    --port) port=$2; shift ;;
    *) echo "web.sh: unknown option $1 (use --build-only, --package, --port N)" >&2; exit 2 ;;
  esac
  shift
done

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
command -v emcmake >/dev/null || missing+=(emscripten)
/usr/bin/python3 -c 'import fontTools' 2>/dev/null || missing+=(python3-fonttools)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSansCondensed.ttf ] || missing+=(fonts-dejavu-extra)  # the small text
for dev in /usr/include/boost/context /usr/include/nlohmann /usr/include/CLI; do
  [ -d $dev ] || missing+=(libboost-context-dev nlohmann-json3-dev libcli11-dev)
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "web.sh: installing ${missing[*]} from Debian"
  as_root apt-get update -qq
  as_root apt-get install -y --no-install-recommends "${missing[@]}"
fi

imgui_cache=${XDG_CACHE_HOME:-$HOME/.cache}/warplab/imgui
if ! ls -d "$imgui_cache"/imgui-[0-9]*/ >/dev/null 2>&1; then
  echo "web.sh: fetching Dear ImGui's sources: Debian's imgui source package"
  sources=/etc/apt/sources.list.d/warplab-deb-src.sources
  if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
    suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "$suite" | as_root tee $sources >/dev/null
    as_root apt-get update -qq
  fi
  command -v dpkg-source >/dev/null || as_root apt-get install -y --no-install-recommends dpkg-dev
  mkdir -p "$imgui_cache"
  (cd "$imgui_cache" && apt-get source -qq imgui)
fi
imgui=$(ls -d "$imgui_cache"/imgui-[0-9]*/ | head -n1)

command -v ccache >/dev/null && export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}
emcmake cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DWARPLAB_IMGUI_SOURCE_DIR="${imgui%/}" >/dev/null
cmake --build "$build" -j"${WARPLAB_JOBS:-2}" --target warplab warplab-viewer warplab-trace warplab-run-ptx
echo "web.sh: the page's files are in $build/warplab-web/"
if [ $package = 1 ]; then
  version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
  zip=out/warplab-web-$version.zip
  mkdir -p out && rm -f "$zip"
  (cd "$build" && python3 -m zipfile -c "$OLDPWD/$zip" warplab-web/)
  echo "web.sh: wrote $PWD/$zip (unzip it into a web server's folder; open warplab-web/index.html)"
fi
[ $serve = 1 ] || exit 0
echo "web.sh: open http://127.0.0.1:$port/ (try ?lab=matmul&version=v5&step=2); Ctrl-C stops"
exec python3 -m http.server "$port" --bind 127.0.0.1 --directory "$build/warplab-web"
