# Fails when the PTX shipped in the repository (used where there is no nvcc)
# differs from the PTX this build compiled from the kernels.
#   cmake -DSHIPPED=kernels/ptx/lab.ptx -DBUILT=<build>/ptx/lab.ptx -DBUILD_DIR=<build> -P check_ptx.cmake
file(READ "${SHIPPED}" shipped)
file(READ "${BUILT}" built)
if(NOT shipped STREQUAL built)
  string(REGEX MATCH "Cuda compilation tools, release [^\n]*" shipped_nvcc "${shipped}")
  string(REGEX MATCH "Cuda compilation tools, release [^\n]*" built_nvcc "${built}")
  message(FATAL_ERROR
          "${SHIPPED} is not the PTX the kernels compile to now (shipped: ${shipped_nvcc}; built: ${built_nvcc}).\n"
          "Refresh it with `cmake --build ${BUILD_DIR} --target refresh_ptx` and commit it.")
endif()
message(STATUS "${SHIPPED} matches the PTX compiled from the kernels")
