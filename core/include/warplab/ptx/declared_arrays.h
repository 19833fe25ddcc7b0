// Shared arrays in the element type the source declares them with. PTX keeps
// only bytes and an alignment (`.shared .align 8 .b8 landed[64]`), so the
// trace guesses an element size from the kernel's narrowest shared access;
// the source says `unsigned long long landed[8]`. Where the source names a
// type whose size is known, the trace counts the array in it and carries the
// type (SharedArrayInfo::type), so that every front end shows it alike.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "warplab/ptx/cuda_source.h"
#include "warplab/trace/block_analysis.h"

namespace wl::ptx {

// A .cu file read, and the files its `#include "..."` lines name, found
// beside it or under `root` (a lab's `kernels/...` includes), each once.
// A file that cannot be read is left out.
std::vector<CudaSource> read_cuda_files(const std::string& path, const std::string& root = "");

// The element type a declaration gives, as the run has it: a template's type
// parameter is `element_type` (the run's: "int"); empty where the text gives
// no type of known size (a struct).
std::string declared_element_type(const VariableDecl& v, std::string_view element_type);

// Gives each traced shared array of `kernel` its declared type and element
// size (count = bytes / size), and its declaration's line (PTX gives the
// kernel's line) with its file where that is not the first source (the traced
// file). Arrays whose type is unknown, or whose bytes the type does not divide,
// stay as traced. Given to analyze_block as its name_arrays, before the shared
// values are replayed, so that they are replayed in those elements; an array of
// two or more dimensions gets its extents (declared_extents).
void declare_array_types(wl::trace::BlockTrace& block, const std::vector<CudaSource>& sources, std::string_view kernel,
                         std::string_view element_type);

}  // namespace wl::ptx
