// Shared arrays in the element type the source declares them with. PTX keeps
// only bytes and an alignment (`.shared .align 8 .b8 landed[64]`), so the
// trace guesses an element size from the kernel's narrowest shared access;
// the source says `unsigned long long landed[8]`. Where the source names a
// type whose size is known, the viewer shows the array in it.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "viewer/model/source_model.h"
#include "warplab/trace/block_analysis.h"

namespace warplab::viewer {

// `__shared__` declarations of the files: array name -> its element type as
// written ("unsigned long long", "float", "T"); the first declaration of a name wins.
std::map<std::string, std::string> shared_declarations(const std::vector<const SourceFile*>& files);

// Bytes of one element of a declared type; `T` and other template parameters
// of the files are the run's element type (`element_type`). 0 when unknown.
unsigned declared_type_size(const std::string& type, const std::string& element_type,
                            const std::vector<const SourceFile*>& files);

// Gives each traced array its declared element size (count = bytes / size)
// and replays the shared values in those elements. Arrays whose type is
// unknown, or whose bytes the type does not divide, stay as traced.
void use_declared_types(wl::trace::BlockAnalysis& run, const std::vector<const SourceFile*>& files,
                        const std::string& element_type);

}  // namespace warplab::viewer
