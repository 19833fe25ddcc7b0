# The options the labs declare reach the help from the registry (Lab::inputs,
# the versions' settings, a lab's bench flag): each line below is a lab's
# declaration as `warplab trace --help` or `bench --help` prints it, none
# written in apps/. Run as:
#   cmake -DWARPLAB=<warplab> -P lab_options.cmake
# (Another lab refusing a lab's input is in bad_input.cmake.)
set(failures "")
function(expect_help command)
  execute_process(COMMAND "${WARPLAB}" ${command} --help RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    set(failures "${failures}${command} --help exited ${rc}: ${err}\n" PARENT_SCOPE)
    return()
  endif()
  foreach(line IN LISTS ARGN)
    string(FIND "${out}" "${line}" at)
    if(at EQUAL -1)
      set(failures "${failures}${command} --help has no '${line}'\n" PARENT_SCOPE)
    endif()
  endforeach()
endfunction()
# The image lab's input, its value and help (labs/image/run.h's picture_input).
expect_help(trace
  "  --image PICTURE.png         image lab: reduce this PNG file instead of the seeded picture"
  "  --offset UINT               coalescing v1: read in[i + offset]")
expect_help(bench
  "  --image PICTURE.png         image lab: time on this PNG file instead of the seeded 1080p picture"
  "  --timeline                  transfers: also print")
if(failures)
  message(FATAL_ERROR "${failures}")
endif()
message(STATUS "trace, bench and sweep --help list the labs' declared options")
