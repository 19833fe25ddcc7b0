// Which warplab this is: the one version in CMakeLists.txt's project() and,
// when built from a git checkout, the commit built. The front ends print it
// (--version) and every trace, grade report and recording says it.
#pragma once
#include <string>

namespace wl {

const char* version();         // "0.4.0"
const char* version_commit();  // "c4c75e8a1b2c", "c4c75e8a1b2c-dirty", or "" outside a checkout
std::string version_text();    // "0.4.0 (c4c75e8a1b2c)", or "0.4.0" without a commit

}  // namespace wl
