# Writes the source of wl::version() (core/include/warplab/version.h) at build
# time, so that the commit it names is the one built, not the one configured;
# the file is rewritten only when its text changes (configure_file), so an
# unchanged commit recompiles nothing.
#
#   cmake -DSOURCE_DIR=<project root> -DVERSION=0.4.0 -DIN=version.cpp.in -DOUT=version.cpp -P version.cmake
set(commit "")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  execute_process(COMMAND ${GIT_EXECUTABLE} status --porcelain --untracked-files=no WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(commit AND dirty)
    string(APPEND commit "-dirty")
  endif()
endif()
set(WARPLAB_VERSION ${VERSION})
set(WARPLAB_VERSION_COMMIT "${commit}")
configure_file(${IN} ${OUT} @ONLY)
