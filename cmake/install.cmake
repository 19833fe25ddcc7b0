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
install(DIRECTORY results exercises solutions lessons DESTINATION ${WARPLAB_DATA_INSTALL_DIR})
# The grader's GPU timing program is compiled where it runs: its harness, the
# exercises' GPU set-ups and the public headers they include.
install(DIRECTORY core/include DESTINATION ${WARPLAB_DATA_INSTALL_DIR}/core)
install(DIRECTORY apps/grader/harness apps/grader/exercises DESTINATION ${WARPLAB_DATA_INSTALL_DIR}/apps/grader
        FILES_MATCHING PATTERN "*.h" PATTERN "*.cuh")
install(FILES apps/grader/catalog.h DESTINATION ${WARPLAB_DATA_INSTALL_DIR}/apps/grader)
# `warplab run`'s CUDA runtime: the archives a program links (core/src/cudart/),
# in <libdir>/warplab, and their list, relative to its own folder, where the
# installed warplab looks for it (share/warplab/cudart/link.txt). Only where
# every one is an archive: a program then links without any -dev package. The
# same for `warplab run --backend gpu` (link-gpu.txt) where its runtime is built.
if(TARGET warplab_cudart AND WARPLAB_ZSTD_ARCHIVE AND WARPLAB_LZ4_ARCHIVE)
  file(RELATIVE_PATH _lib_from_list ${CMAKE_INSTALL_FULL_DATADIR}/warplab/cudart ${CMAKE_INSTALL_FULL_LIBDIR}/warplab)
  set(_lists link WARPLAB_CUDART_LINK_ITEMS)
  if(TARGET warplab_gpu_runtime)
    list(APPEND _lists link-gpu WARPLAB_GPU_RUNTIME_LINK_ITEMS)
  endif()
  while(_lists)
    list(POP_FRONT _lists _name _items)
    set(_installed "")
    foreach(item IN LISTS ${_items})
      list(APPEND _installed "${_lib_from_list}/$<PATH:GET_FILENAME,${item}>")
    endforeach()
    file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/cudart/${_name}-installed.txt CONTENT "$<JOIN:${_installed},\n>\n")
    install(FILES ${${_items}} DESTINATION ${CMAKE_INSTALL_LIBDIR}/warplab)
    install(FILES ${PROJECT_BINARY_DIR}/cudart/${_name}-installed.txt DESTINATION ${WARPLAB_DATA_INSTALL_DIR}/cudart
            RENAME ${_name}.txt)
  endwhile()
endif()
# Third-party notices: the code of others that the installed programs and
# archives carry, each with the Debian copyright file of the package it came from.
include(cmake/notices.cmake)
set(_notices ${PROJECT_BINARY_DIR}/THIRD-PARTY-NOTICES)
warplab_third_party_notices(${_notices}
  "warplab ${PROJECT_VERSION} carries code of the projects below, each under its own licence (Debian's\n\
copyright files follow). Boost.Context is linked in too; the Boost Software License 1.0 asks no\n\
notice for machine code.\n"
  "Dear ImGui, in the viewer|/usr/share/doc/libimgui-dev/copyright"
  "nlohmann/json, compiled in|/usr/share/doc/nlohmann-json3-dev/copyright"
  "CLI11, compiled in|/usr/share/doc/libcli11-dev/copyright"
  "Zstandard, in warplab run's runtime|/usr/share/doc/libzstd-dev/copyright"
  "LZ4, in warplab run's runtime|/usr/share/doc/liblz4-dev/copyright")
install(FILES README.md LICENSE CHANGELOG.md ${_notices} DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs DESTINATION ${CMAKE_INSTALL_DOCDIR})  # docs/ beside README.md, as its links expect

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
set(CPACK_DEBIAN_PACKAGE_DEPENDS "fonts-dejavu-core, fonts-dejavu-extra")  # -extra: DejaVu Sans Condensed, the small text
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "nvidia-cuda-toolkit")
include(CPack)
