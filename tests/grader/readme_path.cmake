# The README's path for a new user (exercises/README.md, "Solve E1 and see the
# grade change"): copy the exercises, grade E1 (fails), put the answer in
# E1's kernel.cuh, grade again (passes). The grader must not write into the
# student's folder: the copy holds the same files before and after.
#   cmake -DWARPLAB=<warplab> -DSOURCE=<repository> -DWORK=<scratch folder> -P readme_path.cmake
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
file(COPY "${SOURCE}/exercises" DESTINATION "${WORK}")
set(mine "${WORK}/exercises")
file(GLOB_RECURSE before RELATIVE "${mine}" "${mine}/*")

function(grade_e1 want_rc want_phrase)
  execute_process(COMMAND "${WARPLAB}" grade E1 --dir "${mine}" --backend cpu RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  message("${out}${err}")
  string(FIND "${out}" "${want_phrase}" at)
  if(NOT rc EQUAL want_rc OR at EQUAL -1)
    message(FATAL_ERROR "expected exit code ${want_rc} and '${want_phrase}', got exit code ${rc}")
  endif()
endfunction()

grade_e1(1 "E1 score: 0/10")
file(COPY_FILE "${SOURCE}/solutions/E1_max_no_divergence/kernel.cuh" "${mine}/E1_max_no_divergence/kernel.cuh")
grade_e1(0 "E1 score: 10/10")

file(GLOB_RECURSE after RELATIVE "${mine}" "${mine}/*")
if(NOT before STREQUAL after)
  message(FATAL_ERROR "the grader changed the student's folder:\nbefore: ${before}\nafter:  ${after}")
endif()
