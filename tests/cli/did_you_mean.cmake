# A mistyped lab, version, exercise or option is answered with the nearest
# known name ("did you mean"); a name far from all gets no guess. Each is one
# line on stderr and exit 2. Run as:
#   cmake -DWARPLAB=<warplab> -P did_you_mean.cmake
# Edit distances, by hand: reductoin -> reduction swaps two neighbours (1);
# matmull -> matmul drops one letter (1); v5racy -> v5-racy inserts one (1);
# --sed -> --seed, --blokc -> --block (1 each); E77 -> E7 (1). banana is 6
# or more from every lab, zzz 3 from every version (more than a third of 3
# letters), --zzzzzz 5 or more from every option, homework 6 or more from every exercise.
set(failures "")
function(expect_error args want)
  execute_process(COMMAND "${WARPLAB}" ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(STRIP "${err}" err)
  string(FIND "${err}" "\n" newline)
  if(NOT rc EQUAL 2 OR NOT newline EQUAL -1)
    set(failures "${failures}${args}: expected exit 2 and one line, got ${rc}: ${err}\n" PARENT_SCOPE)
  elseif(want STREQUAL "none")
    if(err MATCHES "did you mean")
      set(failures "${failures}${args}: a far-off name got a guess: ${err}\n" PARENT_SCOPE)
    endif()
  else()
    string(FIND "${err}" "(did you mean '${want}'?)" at)
    if(at EQUAL -1)
      set(failures "${failures}${args}: expected (did you mean '${want}'?), got: ${err}\n" PARENT_SCOPE)
    endif()
  endif()
endfunction()
expect_error("trace;reductoin;v1" "reduction")
expect_error("occupancy;matmull" "matmul")
expect_error("trace;reduction;v5racy" "v5-racy")
expect_error("bench;reduction;--recorded;--markdown;--versions;v5racy" "v5-racy")
expect_error("trace;reduction;v1;--sed;3" "--seed")
expect_error("trace;reduction;v1;--blokc;64" "--block")
expect_error("grade;E77" "E7")
expect_error("trace;banana;v1" "none")
expect_error("trace;reduction;zzz" "none")
expect_error("trace;reduction;v1;--zzzzzz" "none")
expect_error("grade;homework" "none")
if(failures)
  message(FATAL_ERROR "${failures}")
endif()
