# `warplab occupancy`: every version of every lab `warplab list` names gets a
# row on every GPU, and a what-if launch gives the numbers worked out by hand.
#   cmake -DWARPLAB=<path to warplab> -P occupancy.cmake
# (Its bad input is checked with the rest in bad_input.cmake.)
if(NOT WARPLAB OR NOT EXISTS "${WARPLAB}")
  message(FATAL_ERROR "pass -DWARPLAB=<path to the warplab binary> (got '${WARPLAB}')")
endif()
set(failures "")

execute_process(COMMAND "${WARPLAB}" list OUTPUT_VARIABLE list_out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "`warplab list` exited ${rc}")
endif()
# "<lab>: <title>" lines, each followed by "  <version> ..." lines.
string(REPLACE "\n" ";" list_lines "${list_out}")
set(labs "")
foreach(line IN LISTS list_lines)
  if(line MATCHES "^([a-z_]+): ")
    set(lab ${CMAKE_MATCH_1})
    list(APPEND labs ${lab})
    set(versions_${lab} "")
  elseif(line MATCHES "^  ([^ ]+) " AND lab)
    list(APPEND versions_${lab} ${CMAKE_MATCH_1})
  endif()
endforeach()
if(NOT labs)
  message(FATAL_ERROR "`warplab list` names no lab:\n${list_out}")
endif()

foreach(lab IN LISTS labs)
  execute_process(COMMAND "${WARPLAB}" occupancy ${lab} --gpu all
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(rc EQUAL 2 AND err MATCHES "^warplab: error: lab ${lab}'s versions are host programs[^\n]*\n$")
    continue()  # transfers: host code around one kernel, refused in one line
  endif()
  if(NOT rc EQUAL 0)
    string(APPEND failures "occupancy ${lab}: exit ${rc}: ${err}\n")
    continue()
  endif()
  foreach(v IN LISTS versions_${lab})
    # One row per GPU (h100, a100, rtx4090, g80), ending in a percentage and what bounds it.
    string(REGEX MATCHALL "\n${v} +[^\n]*%  [a-z]" rows "${out}")
    list(LENGTH rows n)
    if(NOT n EQUAL 4)
      string(APPEND failures "occupancy ${lab} --gpu all: ${n} rows for ${v}, expected 4\n")
    endif()
  endforeach()
endforeach()

# The G80 example of NVIDIA's occupancy calculator, asked as a what-if: 192
# threads, 20 registers, 68 bytes of shared memory → 2 blocks of 6 warps (the
# registers: 3840 a block, 8192 an SM), 12 of 24 warps, 50 %, bound by registers.
list(GET labs 0 lab)
list(GET versions_${lab} 0 v)
execute_process(COMMAND "${WARPLAB}" occupancy ${lab} ${v} --gpu g80 --block 192 --registers 20 --smem 68
                OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\n${v} [^\n]* 20\\* [^\n]* 68\\* [^\n]* 2 +12/24 +50\\.0%  registers\n")
  string(APPEND failures "occupancy ${lab} ${v} --gpu g80 --block 192 --registers 20 --smem 68: exit ${rc}, not "
                         "2 blocks, 12/24 warps, 50.0%, registers:\n${out}\n")
endif()

if(failures)
  message(FATAL_ERROR "${failures}")
endif()
message(STATUS "occupancy: every version of ${labs} on every GPU; the G80 what-if as worked out")
