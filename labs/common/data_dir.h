// Where warplab's data lies: the labs' kernel sources and shipped PTX, results/,
// the walkthroughs, the exercises and solutions, and the headers the grader
// compiles with. It is one folder laid out as the repository is:
//   $WARPLAB_DATA_DIR where it is set (the browser build sets /warplab);
//   else <prefix>/share/warplab beside an installed binary (<prefix>/bin/warplab),
//     which an installed warplab always finds: it never reads the source tree;
//   else the source tree the binary was built from (a build in build/).
#pragma once
#include <filesystem>
#include <string>

namespace warplab {

std::filesystem::path data_dir();

// The link list of the CUDA runtime an installed warplab carries for whole
// programs (cudart/link.txt, or link-gpu.txt for the GPU's; cmake/install.cmake),
// as wl::cudart::ProgramOptions::link_file takes it; empty where there is none
// (a build tree: the program is linked with the build's own).
std::string installed_runtime_link_file(bool gpu);

}  // namespace warplab
