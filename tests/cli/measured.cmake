# `warplab trace`: Nsight Compute's per-block counts recorded on a GPU
# (results/fidelity/) under warplab's counted totals, only where the run's
# launch is the recorded one. Run as:
#   cmake -DWARPLAB=<warplab> -DFIDELITY=<results/fidelity/x-ncu.json> -P measured.cmake
set(failures "")
function(run_warplab)
  execute_process(COMMAND "${WARPLAB}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(rc "${rc}" PARENT_SCOPE)
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

# The recorded row of reduction v1 and its launch (its `warplab trace` arguments).
file(READ "${FIDELITY}" doc)
string(JSON rows LENGTH "${doc}" rows)
math(EXPR last "${rows} - 1")
set(last_row ${last})
foreach(i RANGE ${last})
  string(JSON lab GET "${doc}" rows ${i} lab)
  string(JSON version GET "${doc}" rows ${i} version)
  if(lab STREQUAL "reduction" AND version STREQUAL "v1")
    set(row ${i})
  endif()
endforeach()
# A recorded row's launch, as `warplab trace` arguments.
function(trace_args_of row out)
  string(JSON args_json GET "${doc}" rows ${row} trace_args)
  string(JSON nargs LENGTH "${args_json}")
  set(args "")
  math(EXPR alast "${nargs} - 1")
  foreach(a RANGE ${alast})
    string(JSON x GET "${args_json}" ${a})
    list(APPEND args "${x}")
  endforeach()
  set(${out} "${args}" PARENT_SCOPE)
endfunction()
trace_args_of(${row} launch)

# How the table prints a count: whole numbers as they are, others to one
# decimal (matched here by the whole part and any one digit).
set(expected "")
foreach(metric shared_ld_instructions shared_ld_wavefronts shared_st_instructions shared_st_wavefronts
               global_ld_requests global_ld_sectors)
  string(JSON v GET "${doc}" rows ${row} metrics ${metric} ncu_per_block)
  if(v MATCHES "^([0-9]+)(\\.0+)?$")
    string(APPEND expected " +${CMAKE_MATCH_1}")
  else()
    string(REGEX REPLACE "\\..*" "" whole "${v}")
    string(APPEND expected " +${whole}\\.[0-9]")
  endif()
endforeach()

# 1. The recorded launch: both rows. Counted, block 0 of v1 at 256 threads
#    (interleaved addressing, `if (tid % (2*s) == 0)`): 8 warps load 256 ints,
#    8 global requests of 4 sectors = 32; the tree runs s = 1..128, with all 8
#    warps active for s = 1..16 (5 x 8 = 40 warp steps) and 4, 2, 1 for
#    s = 32, 64, 128: 47 warp steps of 2 shared loads and 1 store each, plus
#    the 8 stores of the load step and thread 0's read of the sum: 95 loads
#    and 55 stores, each touching distinct banks (one wavefront apiece).
run_warplab(trace reduction v1 ${launch} --backend cpu)
if(NOT rc EQUAL 0)
  string(APPEND failures "v1 at the recorded launch: exit ${rc}, stderr '${err}'\n")
endif()
if(NOT out MATCHES "\ncounted \\(warplab\\) +95 +95 +55 +55 +8 +32 *\n")
  string(APPEND failures "v1: the counted row is not 95 95 55 55 8 32: '${out}'\n")
endif()
if(NOT out MATCHES "\nmeasured on [^ ]+ \\(ncu\\)${expected} *\n")
  string(APPEND failures "v1: no measured row with the recorded counts (${expected}): '${out}'\n")
endif()

# 2. Another launch (the default n = 4096): no numbers, but which launch was recorded.
run_warplab(trace reduction v1 --backend cpu)
if(NOT out MATCHES "measured on [^ ]+ \\(ncu\\) for another launch: n = [0-9]+ int, block 256 \\(this run: n = 4096 int, block 256\\)")
  string(APPEND failures "v1 at n = 4096: not the 'another launch' line: '${out}'\n")
endif()
if(out MATCHES "counted \\(warplab\\)")
  string(APPEND failures "v1 at n = 4096: counted vs measured printed for a launch that was not recorded\n")
endif()

# 3. The other element type at the recorded size is another launch too.
list(FIND launch "--type" at)
math(EXPR at "${at} + 1")
set(as_floats ${launch})
list(REMOVE_AT as_floats ${at})
list(INSERT as_floats ${at} float)
run_warplab(trace reduction v1 ${as_floats} --backend cpu)
if(NOT out MATCHES "for another launch: [^\n]* \\(this run: n = [0-9]+ float, block 256\\)")
  string(APPEND failures "v1 as floats: not the 'another launch' line: '${out}'\n")
endif()

# 4. A count the check leaves out (the recorded "not_compared" list names it,
#    "<lab> <version> <metric> (...): why") is printed under the table of that
#    version's recorded launch, and only there: matmul v9's cp.async writes.
string(JSON nnotes LENGTH "${doc}" not_compared)
set(noted_rows 0)
math(EXPR last "${nnotes} - 1")
foreach(i RANGE ${last})
  string(JSON note GET "${doc}" not_compared ${i})
  if(NOT note MATCHES "^([a-z]+) (v[0-9]+) ([a-z_]+ \\(.*)$")
    continue()
  endif()
  set(nlab "${CMAKE_MATCH_1}")
  set(nversion "${CMAKE_MATCH_2}")
  set(ntext "${CMAKE_MATCH_3}")
  foreach(r RANGE ${last_row})
    string(JSON lab GET "${doc}" rows ${r} lab)
    string(JSON version GET "${doc}" rows ${r} version)
    if(lab STREQUAL nlab AND version STREQUAL nversion)
      trace_args_of(${r} nlaunch)
      run_warplab(trace ${nlab} ${nversion} ${nlaunch} --backend cpu)
      string(FIND "${out}" "\nnot compared: ${ntext}\n" found)
      if(found EQUAL -1)
        string(APPEND failures "${nlab} ${nversion}: the note 'not compared: ${ntext}' is missing: '${out}'\n")
      endif()
      math(EXPR noted_rows "${noted_rows} + 1")
    endif()
  endforeach()
endforeach()
if(noted_rows EQUAL 0)
  string(APPEND failures "no recorded row has a not-compared count: the check of its note ran on nothing\n")
endif()
run_warplab(trace reduction v1 ${launch} --backend cpu)
if(out MATCHES "not compared:")
  string(APPEND failures "reduction v1 prints a not-compared note it does not have: '${out}'\n")
endif()

if(failures)
  message(FATAL_ERROR "${failures}")
endif()
