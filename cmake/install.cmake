# `cmake --install`: the programs in <prefix>/bin, and everything they read at
# run time under <prefix>/share/warplab, laid out as in the repository
# (labs/common/data_dir.h finds it from the binary's own place). The Debian
# package (scripts/package.sh) is this tree, made by CPack.
include(GNUInstallDirs)

set(WARPLAB_DATA_INSTALL_DIR ${CMAKE_INSTALL_DATADIR}/warplab)
file(RELATIVE_PATH _data_from_bin ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_DATADIR}/warplab)
set_property(SOURCE labs/common/data_dir.cpp APPEND PROPERTY COMPILE_DEFINITIONS WARPLAB_DATA_FROM_BIN="${_data_from_bin}")

install(TARGETS warplab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET warplab-viewer AND NOT EMSCRIPTEN)
  install(TARGETS warplab-viewer RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# What the front ends read: the labs' kernel sources and shipped PTX, reports and
# listings (kernels/), the registry's sources and walkthroughs the viewer shows
# (labs/), recorded results, the exercises and their solutions.
install(DIRECTORY kernels labs DESTINATION ${WARPLAB_DATA_INSTALL_DIR}
        FILES_MATCHING PATTERN "*.cuh" PATTERN "*.cu" PATTERN "*.h" PATTERN "*.md" PATTERN "*.ptx"
                       PATTERN "*.resources" PATTERN "*.sass")
install(DIRECTORY results exercises solutions DESTINATION ${WARPLAB_DATA_INSTALL_DIR})
# The grader's GPU timing program is compiled where it runs: its harness, the
# exercises' GPU set-ups and the public headers they include.
install(DIRECTORY core/include DESTINATION ${WARPLAB_DATA_INSTALL_DIR}/core)
install(DIRECTORY apps/grader/harness apps/grader/exercises DESTINATION ${WARPLAB_DATA_INSTALL_DIR}/apps/grader
        FILES_MATCHING PATTERN "*.h" PATTERN "*.cuh")
install(FILES apps/grader/catalog.h DESTINATION ${WARPLAB_DATA_INSTALL_DIR}/apps/grader)
install(FILES README.md LICENSE CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})

# ---- the Debian package (cpack -G DEB, run by scripts/package.sh)
set(CPACK_PACKAGE_NAME warplab)
set(CPACK_PACKAGE_VENDOR "the warplab authors")
set(CPACK_PACKAGE_CONTACT "the warplab authors <warplab@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "course lab for GPU kernel optimisation: step through CUDA kernels warp by warp")
set(CPACK_PACKAGE_DESCRIPTION
    "warplab runs CUDA kernels on a CPU emulator from nvcc's PTX (or on an NVIDIA GPU), and shows\
 each step's active threads, warps, shared-memory bank conflicts and global-memory sectors in a\
 viewer (SDL2 + Dear ImGui), a command-line tool, and a grader for exercises. The labs' kernels are\
 shipped as PTX, so tracing them needs no CUDA toolkit; a user's own .cu file and grading need nvcc\
 (the CUDA Toolkit, installed separately).")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # warplab_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)   # the libraries the binaries link (SDL2, libpng, ...) by dpkg-shlibdeps
set(CPACK_DEBIAN_PACKAGE_DEPENDS "fonts-dejavu-core")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "nvidia-cuda-toolkit")
include(CPack)
