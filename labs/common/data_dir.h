// Where warplab's data lies: the labs' kernel sources and shipped PTX, results/,
// the walkthroughs, the exercises and solutions, and the headers the grader
// compiles with. It is one folder laid out as the repository is:
//   $WARPLAB_DATA_DIR where it is set (the browser build sets /warplab);
//   else <prefix>/share/warplab beside an installed binary (<prefix>/bin/warplab),
//     which an installed warplab always finds: it never reads the source tree;
//   else the source tree the binary was built from (a build in build/).
#pragma once
#include <filesystem>

namespace warplab {

std::filesystem::path data_dir();

}  // namespace warplab
