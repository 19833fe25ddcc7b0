# The Debian packages warplab is built with, by what they are for; sourced by
# scripts/setup.sh and scripts/package.sh.
build_packages=(cmake g++ make libboost-context-dev nlohmann-json3-dev libcli11-dev libzstd-dev liblz4-dev)  # warplab and the grader
viewer_packages=(pkg-config libsdl2-dev libimgui-dev libpng-dev fonts-dejavu-core fonts-dejavu-extra)  # -extra: the small text's DejaVu Sans Condensed
test_packages=(libgtest-dev libgmock-dev libbenchmark-dev)                            # the tests and benchmarks
