# `warplab banks`, the bank-conflict playground: the summary line of each
# preset and of a few explicit patterns against hand derivations, a cell of
# the bank picture, and bad input (exit 2, one line on stderr naming it).
# Run as:  cmake -DWARPLAB=<path to warplab> -P banks.cmake
#
# Derivations (word w = byte / 4 is in bank w mod 32; a phase is the whole
# warp up to 4 bytes, a half-warp for 8, a quarter-warp for 16, twice as many
# lanes for loads whose lanes agree in pairs, l and l^1 or l and l^2 (as Nsight
# Compute counts on an H100, results/fidelity); wavefronts = sum over phases of
# the most distinct words one bank delivers; ideal = the phases with an active
# lane; n-way = wavefronts / ideal):
#   stride1        word l: 32 banks once                              -> 1, ideal 1, 1-way
#   stride2        word 2l: lanes l, l+16 in bank 2l mod 32            -> 2, 1, 2-way
#   stride3        3l mod 32 is a permutation (gcd(3, 32) = 1)         -> 1, 1, 1-way
#   stride4        word 4l: 8 banks, 4 words each                      -> 4, 1, 4-way
#   tile32-column  word 32l: all in bank 0, 32 words                   -> 32, 1, 32-way
#   tile33-column  word 33l: bank l                                    -> 1, 1, 1-way
#   double         each half-warp covers words 0..31 (+32) once        -> 2, 2, 1-way
#   float4         each quarter-warp covers 32 consecutive words       -> 4, 4, 1-way
#   float4-broadcast  one float4 for all lanes: pairs agree, per half   -> 1 + 1, 1 + 1, 1-way
#   broadcast      one word for all lanes                              -> 1, 1, 1-way
#   --size 8 --stride 2: per half-warp lanes l, l+8 share banks 4l, 4l+1 -> 2 + 2 = 4, 2, 2-way
#   --preset stride4 --lanes 16: word 4l, l < 16: lanes l, l+8 share    -> 2, 1, 2-way
#   --size 4 --stride 2 --offset 1 --mask 0x0000FFFF: odd words 1..31   -> 1, 1, 1-way
if(NOT WARPLAB OR NOT EXISTS "${WARPLAB}")
  message(FATAL_ERROR "pass -DWARPLAB=<path to the warplab binary> (got '${WARPLAB}')")
endif()

set(failures "")

# Runs `warplab banks ARGN` and checks its summary line.
function(expect_summary label wavefronts ideal ways)
  execute_process(COMMAND "${WARPLAB}" banks ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(want "wavefronts ${wavefronts}, ideal ${ideal}: ${ways}-way")
  string(FIND "${out}" "\n${want}," at)
  if(NOT rc STREQUAL "0" OR at EQUAL -1)
    string(REGEX MATCH "wavefronts [^\n]*" got "${out}")
    message(STATUS "FAIL ${label}: exit ${rc}, expected '${want}', got '${got}' ${err}")
    set(failures "${failures}${label}; " PARENT_SCOPE)
  else()
    message(STATUS "ok   ${label}: ${want}")
  endif()
endfunction()

expect_summary("preset stride1"        1 1 1    --preset stride1)
expect_summary("preset stride2"        2 1 2    --preset stride2)
expect_summary("preset stride3"        1 1 1    --preset stride3)
expect_summary("preset stride4"        4 1 4    --preset stride4)
expect_summary("preset tile32-column" 32 1 32   --preset tile32-column)
expect_summary("preset tile33-column"  1 1 1    --preset tile33-column)
expect_summary("preset double"         2 2 1    --preset double)
expect_summary("preset float4"         4 4 1    --preset float4)
expect_summary("preset float4-broadcast" 2 2 1   --preset float4-broadcast)
expect_summary("preset broadcast"      1 1 1    --preset broadcast)
expect_summary("--stride 3 --size 4"   1 1 1    --stride 3 --size 4)
expect_summary("8-byte stride 2"       4 2 2    --size 8 --stride 2)
expect_summary("stride4, 16 lanes"     2 1 2    --preset stride4 --lanes 16)
expect_summary("odd words, mask"       1 1 1    --size 4 --stride 2 --offset 1 --mask 0x0000FFFF)

# The picture: stride 3, lane 11 reads word 33 = the row of word 32, bank 1;
# the row's cells for banks 0..2 are ". 11 .".
execute_process(COMMAND "${WARPLAB}" banks --stride 3 OUTPUT_VARIABLE out)
if(NOT out MATCHES "\n +32 \\| +\\. +11 +\\. ")
  message(STATUS "FAIL picture: the row of word 32 does not show lane 11 in bank 1")
  string(APPEND failures "picture; ")
else()
  message(STATUS "ok   picture: lane 11 in bank 1 of the row of word 32")
endif()

# Bad input: exit 2 and exactly one line on stderr, "warplab: error: " and the problem.
function(expect_bad_input label pattern)
  execute_process(COMMAND "${WARPLAB}" banks ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX REPLACE "\n$" "" line "${err}")
  string(FIND "${line}" "\n" newline_at)
  if(NOT rc STREQUAL "2" OR NOT newline_at EQUAL -1 OR NOT line MATCHES "^warplab: error: .*${pattern}")
    message(STATUS "FAIL ${label}: exit ${rc}, stderr '${line}', expected 2 and '${pattern}'")
    set(failures "${failures}${label}; " PARENT_SCOPE)
  else()
    message(STATUS "ok   ${label}: ${line}")
  endif()
endfunction()

expect_bad_input("--size 3"           "size 3 is not an element size"   --size 3)
expect_bad_input("--stride -1"        "--stride -1 is negative"         --stride -1)
expect_bad_input("--stride 5000"      "stride 5000 is out of range"     --stride 5000)
expect_bad_input("--lanes 0"          "--lanes 0 is out of range"       --lanes 0)
expect_bad_input("--mask zz"          "--mask zz"                       --mask zz)
expect_bad_input("--mask 0"           "no active lane"                  --mask 0)
expect_bad_input("unknown preset"     "unknown preset 'stride5'"        --preset stride5)
expect_bad_input("--lanes and --mask" "--lanes or --mask"               --lanes 4 --mask 0xF)

if(failures)
  message(FATAL_ERROR "warplab banks checks failed: ${failures}")
endif()
