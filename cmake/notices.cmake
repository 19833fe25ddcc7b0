# warplab_third_party_notices(OUT HEADER ENTRY...): the notices file for what a
# build carries of others' code (linked in, compiled from header-only
# libraries, fonts). Each ENTRY is "what it is|its copyright file", a Debian
# copyright file from this machine, copied under the entry's heading.
function(warplab_third_party_notices out header)
  file(WRITE ${out} "${header}")
  foreach(entry IN LISTS ARGN)
    string(REPLACE "|" ";" entry "${entry}")
    list(GET entry 0 what)
    list(GET entry 1 copyright)
    set(text "(not on the machine that built this; see ${copyright} on a Debian system)\n")
    if(EXISTS ${copyright})
      file(READ ${copyright} text)
    endif()
    file(APPEND ${out} "\n==== ${what}\n\n${text}")
  endforeach()
endfunction()
