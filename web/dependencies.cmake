# The browser build (emcmake): the same header-only libraries as the desktop's
# Debian packages (Boost.Context's declarations, nlohmann-json, CLI11), seen
# through a folder of links to them alone, so that the host's C library headers
# never reach emscripten's compiler. Nothing is downloaded, no emscripten port
# is used. Read by the top-level CMakeLists.txt in place of its find_package calls.
set(WARPLAB_CUDA OFF)         # no GPU in a browser
set(WARPLAB_BUILD_PTX OFF)    # the labs' PTX shipped in kernels/ptx/
set(BUILD_TESTING OFF)        # the native build runs the tests; tests/web compares the two

set(_host_include /usr/include)
set(_deps_include ${PROJECT_BINARY_DIR}/web_deps/include)
file(MAKE_DIRECTORY ${_deps_include})
foreach(dir boost nlohmann CLI)
  if(NOT EXISTS ${_host_include}/${dir})
    message(FATAL_ERROR "warplab web: ${_host_include}/${dir} not found (Debian packages libboost-context-dev, nlohmann-json3-dev, libcli11-dev)")
  endif()
  file(CREATE_LINK ${_host_include}/${dir} ${_deps_include}/${dir} SYMBOLIC)
endforeach()

add_library(warplab_web_headers INTERFACE)
target_include_directories(warplab_web_headers SYSTEM INTERFACE ${_deps_include})
# The fibers' fcontext functions are not linked: kernels that need fibers are refused (core/src/emu/fibers.cpp).
add_library(Boost::context ALIAS warplab_web_headers)
add_library(nlohmann_json::nlohmann_json ALIAS warplab_web_headers)
add_library(CLI11::CLI11 ALIAS warplab_web_headers)
add_library(Threads::Threads INTERFACE IMPORTED)

# Exceptions carry kernel faults and bad input to the page, as on the desktop.
add_compile_options(-fexceptions)
add_link_options(-fexceptions)

# The C++20 library parts libc++ 13 (emscripten 3.1.6's) lacks.
add_compile_options("SHELL:-include ${PROJECT_SOURCE_DIR}/web/libcxx13_compat.h")
# size_t is 32 bits here: the core's 64-bit sizes and addresses brace-initialise
# 32-bit fields where they fit (a wasm32 address always does).
add_compile_options(-Wno-c++11-narrowing)
# emscripten runs Debian's acorn (node-acorn) when it links; Node.js from elsewhere does not look there.
if(EXISTS /usr/share/nodejs/acorn)
  set(CMAKE_CXX_LINKER_LAUNCHER ${CMAKE_COMMAND} -E env NODE_PATH=/usr/share/nodejs)
endif()
