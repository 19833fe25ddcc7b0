# The tests' CMake functions: a gtest binary cut into shards, and a lab's two
# binaries (the emulator's and the GPU's) from the files of its tests/<lab>/ folder.

# warplab_gtest_shards(<target> <prefix> <label> <name>=<filter>...): one CTest
# test per shard of a gtest binary (the filters, then `<prefix>rest` with all
# the others), not one per test case. Every process loads and parses the labs'
# PTX (about half a second); over the ~900 parameterised cases of the lab tests
# that was most of the suite's time. A failing shard's output names each failing
# case; `<binary> --gtest_filter=<case>` reruns one. Keep the tests that skip
# (no nvcc, no GPU) in shards of their own: a skip message marks a whole shard
# skipped.
function(warplab_gtest_shards target prefix label)
  set(others "")
  foreach(shard IN LISTS ARGN)
    string(FIND "${shard}" "=" at)
    string(SUBSTRING "${shard}" 0 ${at} name)
    math(EXPR from "${at} + 1")
    string(SUBSTRING "${shard}" ${from} -1 filter)
    add_test(NAME ${prefix}${name} COMMAND $<TARGET_FILE:${target}> --gtest_filter=${filter})
    set_tests_properties(${prefix}${name} PROPERTIES LABELS ${label})
    list(APPEND others ${filter})
  endforeach()
  string(JOIN ":" others ${others})
  add_test(NAME ${prefix}rest COMMAND $<TARGET_FILE:${target}> --gtest_filter=-${others})
  set_tests_properties(${prefix}rest PROPERTIES LABELS ${label})
endfunction()

# warplab_lab_tests(<lab> SHARDS <name>=<filter>... [NEEDS_NVCC <name>...]),
# called from tests/<lab>/, which it labels <lab> (ctest -L <lab>: the whole lab):
# - warplab_<lab>_tests, label emulator: the lab on the emulator, from the
#   folder's test_<lab>_*.cpp, cut into the SHARDS and `<lab>.rest`; the shards
#   named in NEEDS_NVCC compile kernels at test time and are skipped without nvcc;
# - warplab_<lab>_gpu_tests, label gpu: the lab on a CUDA GPU, from
#   test_gpu_<lab>.cpp (each test skips, saying why, without a GPU).
# Both see the folder's own headers and tests/ (emulator/helpers.h).
function(warplab_lab_tests lab)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SHARDS;NEEDS_NVCC")
  set_property(DIRECTORY PROPERTY LABELS ${lab})

  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/test_${lab}_*.cpp)
  add_executable(warplab_${lab}_tests ${sources})
  target_compile_definitions(warplab_${lab}_tests PRIVATE WARPLAB_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  warplab_gtest_shards(warplab_${lab}_tests ${lab}. emulator ${arg_SHARDS})
  foreach(shard IN LISTS arg_NEEDS_NVCC)
    set_tests_properties(${lab}.${shard} PROPERTIES SKIP_REGULAR_EXPRESSION "needs nvcc")
  endforeach()

  add_executable(warplab_${lab}_gpu_tests test_gpu_${lab}.cpp)
  gtest_discover_tests(warplab_${lab}_gpu_tests TEST_PREFIX ${lab}. PROPERTIES LABELS gpu
                       SKIP_REGULAR_EXPRESSION "no GPU: " DISCOVERY_TIMEOUT 60)

  foreach(target warplab_${lab}_tests warplab_${lab}_gpu_tests)
    target_link_libraries(${target} PRIVATE warplab_labs GTest::gtest_main)
    target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/tests)
  endforeach()
endfunction()
