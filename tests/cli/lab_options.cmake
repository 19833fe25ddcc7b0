# The options the labs declare reach the help from the registry (Lab::inputs,
# Lab::shape_form, Lab::block_form, the versions' settings): each line below is
# a lab's declaration as `warplab trace --help`, `bench --help` or `sweep --help`
# prints it, none written in apps/. Run as:
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
# The image lab's input, its value and help (labs/image/run.h's picture_input),
# and the shapes and blocks of matmul, transpose and image (their registry lines).
expect_help(trace
  "  --image PICTURE.png         image lab: reduce this PNG file instead of the seeded picture"
  "the problem's shape (matmul: S for S×S×S, or M,N,K" "transpose: S or ROWS,COLS" "image: W,H"
  "threads per block (image: WxH, a 2D group"
  "  --offset UINT               coalescing v1: read in[i + offset]")
expect_help(bench
  "  --image PICTURE.png         image lab: time on this PNG file instead of the seeded 1080p picture"
  "  --timeline                  transfers: also print")
expect_help(sweep "lab: coalescing" "(coalescing v1 takes --offset, v2 --stride)")
if(failures)
  message(FATAL_ERROR "${failures}")
endif()
message(STATUS "trace, bench and sweep --help list the labs' declared options")
