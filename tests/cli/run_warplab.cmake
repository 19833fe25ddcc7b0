# What the CLI's cmake tests share, included by them:
# run_warplab(ARGS...): runs ${WARPLAB} (in ${KERNELS} where it is set), leaving rc, out and err;
# expect_bad_input("A;B|SAYS"): `warplab A B` exits 2 with one line on stderr matching SAYS, else a failure.
function(run_warplab)
  set(where "${CMAKE_CURRENT_LIST_DIR}")
  if(KERNELS)
    set(where "${KERNELS}")
  endif()
  execute_process(COMMAND "${WARPLAB}" ${ARGN} WORKING_DIRECTORY "${where}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(rc "${rc}" PARENT_SCOPE)
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

function(expect_bad_input case)
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts -1 says)
  string(REGEX REPLACE "\\|.*" "" args "${case}")
  run_warplab(${args})
  string(REGEX MATCHALL "\n" lines "${err}")
  list(LENGTH lines nlines)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "${says}" OR NOT nlines EQUAL 1)
    set(failures "${failures}${args}: wanted exit 2 and one line matching '${says}', got ${rc}: '${err}'\n" PARENT_SCOPE)
  endif()
endfunction()
