# `warplab trace --requests` adds each step's global load/store requests, and
# the header says the first pass's blocks. Run as:
#   cmake -DWARPLAB=<warplab> -P trace_requests.cmake
# Reduction v3 and v4 at the default n = 4096, block 256: v3's 8 warps load
# one element each in step 0 (8 load requests, 16 blocks of 256 elements);
# v4's load two, a block apart (16 requests, 8 blocks of 512). Both store only
# in the last step: thread 0's partial sum, 1 store request. Without
# --requests the column is absent.
set(failures "")
foreach(case "v3;8;16" "v4;16;8")
  list(GET case 0 version)
  list(GET case 1 loads)
  list(GET case 2 blocks)
  execute_process(COMMAND "${WARPLAB}" trace reduction ${version} --backend cpu --requests
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(APPEND failures "${version}: exit ${rc}: ${err}\n")
  endif()
  if(NOT out MATCHES "global requests ld/st")
    string(APPEND failures "${version}: no requests column\n${out}")
  endif()
  if(NOT out MATCHES "\n0 +[0-9,]+ +256 +8 +0 +8/8 +1-way +${loads}/0 +4\\.0")
    string(APPEND failures "${version}: step 0 should show ${loads}/0 requests\n${out}")
  endif()
  if(NOT out MATCHES "\n[0-9]+ +[0-9,]+ +1 +1 +1 +[-0-9/]+ +[-0-9a-z]+ +0/1 ")
    string(APPEND failures "${version}: the last step should show thread 0's one store, 0/1\n${out}")
  endif()
  if(NOT out MATCHES "block 256 \\(as warplab bench times it\\), ${blocks} blocks;")
    string(APPEND failures "${version}: the header should say ${blocks} blocks\n${out}")
  endif()
endforeach()
execute_process(COMMAND "${WARPLAB}" trace reduction v4 --backend cpu OUTPUT_VARIABLE plain)
if(plain MATCHES "requests ld/st")
  string(APPEND failures "without --requests the column should be absent\n")
endif()
if(failures)
  message(FATAL_ERROR "${failures}")
endif()
