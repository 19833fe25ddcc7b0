# The viewer's glyph ranges (viewer/model/glyph_ranges.def) as fontTools'
# --unicodes list: "U+0020-017F,U+0370-03FF,...,U+25B6". Included by
# web/CMakeLists.txt, and by tests/web/glyph_ranges.cmake, which checks it.
function(glyph_unicodes def out)
  file(STRINGS "${def}" lines REGEX "^WL_GLYPH_RANGE\\(")
  set(list "")
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "^WL_GLYPH_RANGE\\(0x([0-9A-Fa-f]+), 0x([0-9A-Fa-f]+)\\)")
      message(FATAL_ERROR "${def}: not a range: ${line}")
    endif()
    if(CMAKE_MATCH_1 STREQUAL CMAKE_MATCH_2)
      list(APPEND list "U+${CMAKE_MATCH_1}")  # one character
    else()
      list(APPEND list "U+${CMAKE_MATCH_1}-${CMAKE_MATCH_2}")
    endif()
  endforeach()
  list(JOIN list "," joined)
  set(${out} "${joined}" PARENT_SCOPE)
endfunction()

