// Text helpers that the reader of CUDA source (cuda_source.cpp) and the
// instantiation of a user's kernels (kernel_file.cpp) share.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace wl::ptx::detail {

std::string trim(std::string s);
// Splits at the commas outside <>, (), [] and {}.
std::vector<std::string> split_top_level(std::string_view s);

}  // namespace wl::ptx::detail
