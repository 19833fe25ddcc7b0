// The text helper that the reader of CUDA source (cuda_source.cpp) and the
// instantiation of a user's kernels (kernel_file.cpp) share.
#pragma once
#include <string>

namespace wl::ptx::detail {

std::string trim(std::string s);

}  // namespace wl::ptx::detail
