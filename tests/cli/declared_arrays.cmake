# `warplab trace` names the shared arrays in the types the source declares,
# as the viewer titles them, and --json carries the same. Run as:
#   cmake -DWARPLAB=<warplab> -P declared_arrays.cmake
# Reduction v10 (10_bulk_copy.cuh) at n = 65536, block 256 declares
# `unsigned long long landed[kMaxPieces]` (kMaxPieces = 8: 64 bytes) beside
# `T warp_sums[BLOCK / 32]` (256 / 32 = 8 ints). PTX keeps only landed's 64
# bytes, and the kernel's narrowest shared access (4 bytes) would make it
# landed[16]; the source makes it 8 elements of 8 bytes, declared on line 161
# (PTX names only the kernel's line).
execute_process(COMMAND "${WARPLAB}" trace reduction v10 --backend cpu --n 65536 --block 256
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(failures "")
if(NOT rc EQUAL 0)
  string(APPEND failures "exit ${rc}: ${err}\n")
endif()
if(NOT out MATCHES "\nshared arrays:[^\n]*unsigned long long landed\\[8\\] \\(line 161\\)")
  string(APPEND failures "the table does not name unsigned long long landed[8] (line 161)\n")
endif()
if(NOT out MATCHES "\nshared arrays:[^\n]*int warp_sums\\[8\\]")
  string(APPEND failures "the table does not name int warp_sums[8] (T as the run's int)\n")
endif()
execute_process(COMMAND "${WARPLAB}" trace reduction v10 --backend cpu --n 65536 --block 256 --json
                RESULT_VARIABLE rc OUTPUT_VARIABLE json ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  string(APPEND failures "--json: exit ${rc}: ${err}\n")
else()
  string(JSON arrays GET "${json}" blocks 0 shared_arrays)
  string(JSON n LENGTH "${arrays}")
  set(found "")
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    string(JSON name GET "${arrays}" ${i} name)
    if(name STREQUAL "landed")
      string(JSON type GET "${arrays}" ${i} type)
      string(JSON count GET "${arrays}" ${i} count)
      string(JSON size GET "${arrays}" ${i} elem_size)
      set(found "${type} ${count} ${size}")
    endif()
  endforeach()
  if(NOT found STREQUAL "unsigned long long 8 8")
    string(APPEND failures "--json's landed is '${found}', not 'unsigned long long 8 8' (type, count, elem_size)\n")
  endif()
endif()
# A user's kernel whose tile is declared in the header it includes
# (kernels/header_sum.cu, tile_reduce.cuh line 6): named there by file and line,
# not by the kernel's line that PTX gives; the kernel's own array by its line (9).
execute_process(COMMAND "${WARPLAB}" trace reduction v3 --backend cpu --file "${CMAKE_CURRENT_LIST_DIR}/kernels/header_sum.cu"
                        --kernel header_sum --n 1000 --type float
                RESULT_VARIABLE rc OUTPUT_VARIABLE included ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  string(APPEND failures "header_sum.cu: exit ${rc}: ${err}\n")
elseif(NOT included MATCHES "\nshared arrays: float partial\\[256\\] \\(tile_reduce.cuh:6\\), unsigned seen\\[1\\] \\(line 9\\)\n")
  string(APPEND failures "header_sum.cu: the table does not name float partial[256] (tile_reduce.cuh:6), unsigned seen[1] (line 9)\n${included}")
endif()
# Transpose v3 (03_padded.cuh) declares `float tile[TILE][TILE + 1]`: its 4224 bytes are
# 1056 floats, and TILE * (TILE + 1) = 1056 makes TILE = 32, so tile[32][33]; --json says
# the same as dims.
execute_process(COMMAND "${WARPLAB}" trace transpose v3 --backend cpu --json
                RESULT_VARIABLE rc OUTPUT_VARIABLE padded ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  string(APPEND failures "transpose v3 --json: exit ${rc}: ${err}\n")
else()
  string(JSON dims ERROR_VARIABLE no_dims GET "${padded}" blocks 0 shared_arrays 0 dims)
  string(JSON count GET "${padded}" blocks 0 shared_arrays 0 count)
  string(REGEX REPLACE "[ \t\n]" "" dims "${dims}")
  if(NOT dims STREQUAL "[32,33]" OR NOT count EQUAL 1056)
    string(APPEND failures "transpose v3 --json: dims '${dims}' count ${count}, not [32, 33] and 1056\n")
  endif()
endif()
execute_process(COMMAND "${WARPLAB}" trace transpose v3 --backend cpu
                RESULT_VARIABLE rc OUTPUT_VARIABLE padded ERROR_VARIABLE err)
if(NOT padded MATCHES "\nshared arrays: float tile\\[32\\]\\[33\\] \\(line 20\\)\n")
  string(APPEND failures "transpose v3: the table does not name float tile[32][33] (line 20)\n${padded}")
endif()
if(failures)
  message(FATAL_ERROR "${failures}${out}")
endif()
