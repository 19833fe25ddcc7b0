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
file(WRITE "${OUT}.tmp" "${text}")
file(RENAME "${OUT}.tmp" "${OUT}")
