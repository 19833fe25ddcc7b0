# The exercises' ids, read from the grader's catalog (apps/grader/catalog.h,
# the one list): each entry of kExercises opens {"E1", "E1_<folder>", ...}.
# Editing the catalog reconfigures, so the grader's sources, its generated
# table of checks and the tests follow it.
#   warplab_exercises(<var>)  sets <var> to E1;E2;...
function(warplab_exercises out)
  set(catalog ${PROJECT_SOURCE_DIR}/apps/grader/catalog.h)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${catalog})
  file(STRINGS ${catalog} entries REGEX "^ *{\"E[0-9]+\", \"E[0-9]+_")
  set(ids "")
  foreach(entry IN LISTS entries)
    string(REGEX MATCH "\"(E[0-9]+)\"" _ "${entry}")
    list(APPEND ids ${CMAKE_MATCH_1})
  endforeach()
  if(NOT ids)
    message(FATAL_ERROR "no exercise found in ${catalog}")
  endif()
  set(${out} ${ids} PARENT_SCOPE)
endfunction()
