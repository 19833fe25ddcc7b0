# Bad input to the CLI: each case must exit with code 2 and print exactly one
# line on stderr, starting "warplab: error:" and naming the problem; a good
# trace must exit 0. Run as:  cmake -DWARPLAB=<path to warplab> -P bad_input.cmake
if(NOT WARPLAB OR NOT EXISTS "${WARPLAB}")
  message(FATAL_ERROR "pass -DWARPLAB=<path to the warplab binary> (got '${WARPLAB}')")
endif()

# Whether this binary has a GPU to use: `warplab list` ends with "GPU: none (...)" when not.
execute_process(COMMAND "${WARPLAB}" list OUTPUT_VARIABLE list_out RESULT_VARIABLE list_rc)
if(NOT list_rc EQUAL 0)
  message(FATAL_ERROR "`warplab list` exited ${list_rc}")
endif()
string(FIND "${list_out}" "GPU: none" no_gpu_at)

set(failures "")

# Runs warplab with the arguments in ARGN and sets `problem` in the caller to
# what is wrong with its answer (empty when right): exit code 2 and exactly one
# line on stderr, starting "warplab: error: " and matching `pattern` (a regular
# expression, case-sensitive).
function(check_bad_input pattern)
  execute_process(COMMAND "${WARPLAB}" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(found "")
  if(NOT rc STREQUAL "2")
    string(APPEND found "exit code ${rc}, expected 2; ")
  endif()
  string(REGEX REPLACE "\n$" "" err_line "${err}")
  string(FIND "${err_line}" "\n" newline_at)
  if(NOT newline_at EQUAL -1 OR err_line STREQUAL "")
    string(APPEND found "stderr is not exactly one line; ")
  endif()
  if(NOT err MATCHES "^warplab: error: ")
    string(APPEND found "stderr does not start with 'warplab: error: '; ")
  endif()
  if(NOT err MATCHES "${pattern}")
    string(APPEND found "stderr does not match '${pattern}'; ")
  endif()
  if(found)
    string(APPEND found "stderr was: '${err_line}'")
  endif()
  set(problem "${found}" PARENT_SCOPE)
  set(stderr_line "${err_line}" PARENT_SCOPE)
endfunction()

function(expect_bad_input label pattern)
  check_bad_input("${pattern}" ${ARGN})
  if(problem)
    message(STATUS "FAIL ${label}: ${problem}")
    set(failures "${failures}${label}; " PARENT_SCOPE)
  else()
    message(STATUS "ok   ${label}: ${stderr_line}")
  endif()
endfunction()

expect_bad_input("unknown lab"        "unknown lab 'nosuchlab'"         trace nosuchlab v1)
expect_bad_input("unknown version"    "unknown version 'v99'"           trace reduction v99)
expect_bad_input("--n 0"              "--n: '0' is no number of elements" trace reduction v1 --n 0)
# A negative count is refused as typed, not read as 2^64 - 5.
expect_bad_input("--n -5"             "--n: '-5' is no number of elements" trace reduction v1 --n -5)
expect_bad_input("bench --n 5,-3"     "--n: '-3' is no number of elements" bench reduction --n 5,-3)
expect_bad_input("--without-barrier 0" "'0' is no source line"          trace reduction v1 --without-barrier 0)
expect_bad_input("--block 0"          "block 0 is out of range"         trace reduction v1 --block 0)
expect_bad_input("--n 99999999999"    "n = 99999999999 .*(limit|large)" trace reduction v1 --n 99999999999)
expect_bad_input("--block 100"        "block 100 "                      trace reduction v1 --block 100)
expect_bad_input("--block 2048"       "block 2048 "                     trace reduction v1 --block 2048)
# The image lab: a group that is not WxH, one the kernels are not built for, a missing or non-PNG --image.
expect_bad_input("image: --block 3x"   "--block '3x' is not B or WxH"    trace image v1 --block 3x)
expect_bad_input("image: --block 12x12" "not 12×12"                      trace image v1 --block 12x12)
expect_bad_input("image: bench --block" "--block '16x16x2' is not B or WxH" bench image --block 16x16x2)
expect_bad_input("image: missing PNG"  "--image: cannot open /nonexistent/none.png" trace image v1 --image /nonexistent/none.png)
expect_bad_input("image: not a PNG"    "is not a PNG file"               trace image v1 --image "${CMAKE_CURRENT_LIST_FILE}")
# A lab's own input (Lab::inputs) given to another lab: refused, naming the lab it belongs to, by a trace and a bench.
expect_bad_input("reduction: --image"  "--image is the image lab's input, not the reduction lab's" trace reduction v1 --image "${CMAKE_CURRENT_LIST_FILE}")
expect_bad_input("bench matmul --image" "--image is the image lab's input, not the matmul lab's" bench matmul --image "${CMAKE_CURRENT_LIST_FILE}")
# Options the labs declare: --type offers the types of every lab (reduction's int and float), a lab
# refuses one it lacks, and a lab's own bench flag (transfers' --timeline) names the lab it belongs to.
expect_bad_input("--type double"       "--type: double not in [{]int,float[}]" trace reduction v1 --type double)
expect_bad_input("matmul: --type int"  "--type int is not offered"       trace matmul v1 --type int)
expect_bad_input("bench --timeline"    "--timeline: lab reduction prints no timeline [(]the transfers lab does[)]" bench reduction --timeline)
expect_bad_input("occupancy: unknown lab"     "unknown lab 'nosuchlab'"    occupancy nosuchlab)
expect_bad_input("occupancy: unknown version" "unknown version 'v99'"      occupancy reduction v99)
expect_bad_input("occupancy: unknown GPU"     "unknown GPU 'v100'"         occupancy reduction --gpu v100)
expect_bad_input("occupancy: --block 0"       "--block must be at least 1" occupancy reduction --block 0)
expect_bad_input("occupancy: --type double"   "no element type 'double'"   occupancy reduction --type double)
expect_bad_input("occupancy: --registers x"   "registers"                  occupancy reduction --registers x)
if(no_gpu_at EQUAL -1)
  message(STATUS "skip --backend gpu: this machine has a GPU, so the request is not bad input here")
else()
  expect_bad_input("--backend gpu without a GPU" "GPU" trace reduction v1 --backend gpu)
endif()

# A good request: v3 at the lab's defaults exits 0.
execute_process(COMMAND "${WARPLAB}" trace reduction v3 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc STREQUAL "0")
  message(STATUS "FAIL `warplab trace reduction v3` exited ${rc}: ${err}")
  string(APPEND failures "trace reduction v3; ")
else()
  message(STATUS "ok   trace reduction v3 exits 0")
endif()

if(failures)
  message(FATAL_ERROR "CLI bad-input checks failed: ${failures}")
endif()
