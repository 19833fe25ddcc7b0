# web/glyph_ranges.cmake, which cuts the browser's fonts to the characters
# the viewer draws, reads viewer/model/glyph_ranges.def as theme.cpp compiles it.
# Run as: cmake -DSOURCE=<repository> -DWORK=<a folder> -P glyph_ranges.cmake
include(${SOURCE}/web/glyph_ranges.cmake)
set(failures "")
# Two ranges by hand: A to Z, then é alone (fontTools takes one character without a dash).
file(WRITE ${WORK}/two_ranges.def "// a comment line\nWL_GLYPH_RANGE(0x0041, 0x005A)  // A-Z\nWL_GLYPH_RANGE(0x00E9, 0x00E9)  // é\n")
glyph_unicodes(${WORK}/two_ranges.def two)
if(NOT two STREQUAL "U+0041-005A,U+00E9")
  string(APPEND failures "two ranges read as '${two}', not 'U+0041-005A,U+00E9'\n")
endif()
# The viewer's own: printable ASCII onwards first (the panels' text), ▶ last.
glyph_unicodes(${SOURCE}/viewer/model/glyph_ranges.def viewer)
if(NOT viewer MATCHES "^U\\+0020-017F,.*,U\\+25B6$")
  string(APPEND failures "the viewer's ranges read as '${viewer}'\n")
endif()
if(failures)
  message(FATAL_ERROR "${failures}")
endif()
