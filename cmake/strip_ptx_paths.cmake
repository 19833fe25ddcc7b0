# Makes nvcc's PTX machine independent: the `.file` paths of the project's
# sources become relative to the source directory, and those of the CUDA
# toolkit's headers read "cuda/include/<header>" wherever the toolkit lives.
#   cmake -DIN=raw.ptx -DOUT=lab.ptx -DSOURCE_DIR=<project root> -P strip_ptx_paths.cmake
file(READ "${IN}" text)
string(REPLACE "\"${SOURCE_DIR}/" "\"" text "${text}")
# A toolkit header: any other absolute path with an include/ folder in it.
string(REGEX REPLACE "(\\.file[ \t]+[0-9]+[ \t]+)\"/[^\"\n]*/include/([^\"\n]*)\"" "\\1\"cuda/include/\\2\"" text "${text}")
if(text MATCHES "\\.file[ \t]+[0-9]+[ \t]+\"/")
  message(FATAL_ERROR "${IN} still names an absolute path in a .file directive")
endif()
# The debug strings name inlined functions; those of the toolkit's static
# intrinsics carry a hash of the source file's absolute path
# (_INTERNAL_<hash>_10_kernels_cu...). Only debuggers read them: keep their
# labels (the .loc lines refer to them) and give each the same short name.
string(FIND "${text}" ".section\t.debug_str" debug_at)
if(NOT debug_at EQUAL -1)
  string(SUBSTRING "${text}" 0 ${debug_at} head)
  string(SUBSTRING "${text}" ${debug_at} -1 section)
  string(REGEX MATCHALL "\\$L__info_string[0-9]+:" labels "${section}")
  set(section ".section\t.debug_str\n\t{\n")
  foreach(label IN LISTS labels)
    string(APPEND section "${label}\n.b8 105,110,108,105,110,101,100,0\n")  # "inlined"
  endforeach()
  string(APPEND section "\n\t}\n")
  set(text "${head}${section}")
endif()
file(WRITE "${OUT}.tmp" "${text}")
file(RENAME "${OUT}.tmp" "${OUT}")
