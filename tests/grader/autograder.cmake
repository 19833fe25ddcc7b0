# The Gradescope autograder (autograder/run_autograder) against a temporary
# folder laid out as Gradescope lays out /autograder: source/ (the zip:
# exercises.txt, and warplab/build/warplab, here a copy of the binary outside
# any repository, so the grader must run from where it is installed),
# submission/, results/. Submissions of E1 and E7 (2 + 3 = 5 tests):
#   the solutions:                      10 + 10 = 20 points, every test passed;
#   E1 with reduction v1's divergent branching (correct 5, whole_warps 0)
#   and E7's solution inside an exercises/ folder: 5 + 10 = 15 points;
#   the repository zipped one folder deeper (warplab-main/exercises/ with the
#   solutions, warplab-main/solutions/ with E1 unsolved beside it): the
#   exercises/ folder is graded, 20 points;
#   only other files: 0 points, each test naming E1_max_no_divergence/kernel.cuh
#   and the files the upload holds.
# And of E1 alone (2 tests): a lone kernel.cuh (the solution), 10 points.
#   cmake -DWARPLAB=<warplab> -DSOURCE=<repository> -DWORK=<scratch> -P autograder.cmake
file(REMOVE_RECURSE "${WORK}")
set(problems "")

function(run_submission name ids want_score want_tests want_passed)
  set(root "${WORK}/${name}")
  file(MAKE_DIRECTORY "${root}/source/warplab/build" "${root}/results")
  file(COPY_FILE "${WARPLAB}" "${root}/source/warplab/build/warplab")
  file(CHMOD "${root}/source/warplab/build/warplab" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
  file(WRITE "${root}/source/exercises.txt" "${ids}\n")
  file(COPY_FILE "${SOURCE}/autograder/run_autograder" "${root}/run_autograder")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env WARPLAB_AUTOGRADER_ROOT=${root} bash ${root}/run_autograder
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  set(json "${root}/results/results.json")
  if(NOT rc EQUAL 0 OR NOT EXISTS "${json}")
    set(problems "${problems}${name}: run_autograder exit code ${rc}, results.json written: no\n" PARENT_SCOPE)
    return()
  endif()
  file(READ "${json}" doc)
  string(JSON score GET "${doc}" score)
  string(JSON tests LENGTH "${doc}" tests)
  set(passed_count 0)
  math(EXPR last "${tests} - 1")
  foreach(i RANGE ${last})
    string(JSON status GET "${doc}" tests ${i} status)
    if(status STREQUAL "passed")
      math(EXPR passed_count "${passed_count} + 1")
    endif()
  endforeach()
  string(JSON output GET "${doc}" output)
  string(FIND "${output}" "random cases from seed" seeded)
  if(NOT score EQUAL want_score OR NOT tests EQUAL want_tests OR NOT passed_count EQUAL want_passed OR seeded EQUAL -1)
    set(problems "${problems}${name}: score ${score} (want ${want_score}), ${tests} tests (want ${want_tests}), \
${passed_count} passed (want ${want_passed}), seed in the output: ${seeded}\n" PARENT_SCOPE)
  endif()
  # Phrases the first test's output must hold (ARGN).
  string(JSON first_output GET "${doc}" tests 0 output)
  foreach(phrase IN LISTS ARGN)
    string(FIND "${first_output}" "${phrase}" at)
    if(at EQUAL -1)
      set(problems "${problems}${name}: the first test's output lacks '${phrase}':\n${first_output}\n" PARENT_SCOPE)
    endif()
  endforeach()
endfunction()

# The solutions, at the top of the submission.
file(MAKE_DIRECTORY "${WORK}/solutions/submission")
foreach(folder E1_max_no_divergence E7_transpose_shared)
  file(COPY "${SOURCE}/solutions/${folder}" DESTINATION "${WORK}/solutions/submission")
endforeach()
run_submission(solutions "E1 E7" 20 5 5)

# A partly right submission, inside an exercises/ folder.
file(MAKE_DIRECTORY "${WORK}/partial/submission/exercises")
file(COPY "${SOURCE}/tests/grader/wrong/divergent_branching/E1_max_no_divergence"
     DESTINATION "${WORK}/partial/submission/exercises")
file(COPY "${SOURCE}/solutions/E7_transpose_shared" DESTINATION "${WORK}/partial/submission/exercises")
run_submission(partial "E1 E7" 15 5 4)

# The repository zipped: one folder deeper, solutions/ beside exercises/.
set(repo "${WORK}/zipped/submission/warplab-main")
file(MAKE_DIRECTORY "${repo}/exercises" "${repo}/solutions")
foreach(folder E1_max_no_divergence E7_transpose_shared)
  file(COPY "${SOURCE}/solutions/${folder}" DESTINATION "${repo}/exercises")
endforeach()
file(COPY "${SOURCE}/exercises/E1_max_no_divergence" DESTINATION "${repo}/solutions")
run_submission(zipped "E1 E7" 20 5 5)

# Nothing to grade: the output names the path it expected and what it found.
file(MAKE_DIRECTORY "${WORK}/missing/submission/notes")
file(WRITE "${WORK}/missing/submission/notes/readme.txt" "my answers\n")
run_submission(missing "E1 E7" 0 5 0 "no E1_max_no_divergence/kernel.cuh in" "it holds notes/readme.txt")

# One exercise graded: a lone kernel.cuh, here in a folder of another name.
file(MAKE_DIRECTORY "${WORK}/lone/submission/my_work")
file(COPY_FILE "${SOURCE}/solutions/E1_max_no_divergence/kernel.cuh" "${WORK}/lone/submission/my_work/kernel.cuh")
run_submission(lone "E1" 10 2 2)

if(problems)
  message(FATAL_ERROR "${problems}")
endif()
