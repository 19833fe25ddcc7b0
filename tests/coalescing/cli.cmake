# `warplab trace coalescing ... --offset/--stride` and `warplab sweep coalescing`:
# the sweep table a user reads, and bad settings refused in one line (exit 2).
# Run as: cmake -DWARPLAB=<warplab> -P cli.cmake
set(failures "")
function(run_warplab)
  execute_process(COMMAND "${WARPLAB}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(rc "${rc}" PARENT_SCOPE)
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

# Bad input: exit 2 and one line on stderr naming the problem.
foreach(case "trace;coalescing;v1;--offset;33;offset 33 is out of range"
             "trace;coalescing;v2;--stride;0;stride 0 is out of range"
             "trace;coalescing;v1;--stride;4;v1 takes --offset, not --stride"
             "trace;coalescing;v1;--offset;1;--stride;2;not both"
             "trace;reduction;v1;--offset;1;takes no --offset"
             "trace;coalescing;v2;--stride;-1;stride"
             "sweep;reduction;has no setting to sweep"
             "sweep;coalescing;v9;unknown version 'v9'")
  list(POP_BACK case message)
  run_warplab(${case} --backend cpu)
  string(STRIP "${err}" err)
  string(FIND "${err}" "\n" newline)
  string(FIND "${err}" "${message}" found)
  if(NOT rc EQUAL 2 OR NOT newline EQUAL -1 OR found EQUAL -1)
    string(APPEND failures "${case}: expected exit 2 and one line naming '${message}', got ${rc}: '${err}'\n")
  endif()
endforeach()

# A trace at offset 5: the header names the copy; the read touches 5 sectors
# per request, the write 4, so the table's mixed column reads 4.5 (ideal 4.0).
run_warplab(trace coalescing v1 --offset 5 --backend cpu)
if(NOT rc EQUAL 0 OR NOT out MATCHES "out\\[i\\] = in\\[i \\+ 5\\]" OR NOT out MATCHES "4\\.5 \\(ideal 4\\.0\\)")
  string(APPEND failures "trace v1 --offset 5: exit ${rc}, stdout '${out}'\n")
endif()

# The stride sweep: 4s sectors up to stride 8, then 32 (tests/coalescing/test_coalescing.cpp derives it).
run_warplab(sweep coalescing v2 --backend cpu)
foreach(row "       3             12.0     4.0" "       9             32.0     4.0")
  string(FIND "${out}" "${row}" found)
  if(NOT rc EQUAL 0 OR found EQUAL -1)
    string(APPEND failures "sweep coalescing v2: no row '${row}' (exit ${rc}): '${out}'\n")
  endif()
endforeach()

if(failures)
  message(FATAL_ERROR "${failures}")
endif()
