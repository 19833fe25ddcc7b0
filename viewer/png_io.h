// Screenshots as PNG files (libpng), and reading them back (tests).
#pragma once
#include <string>

#include "viewer/platform.h"

namespace warplab::viewer {

// Throws std::runtime_error naming the file when it cannot be written or read.
void write_png(const std::string& path, const Image& image);
Image read_png(const std::string& path);

}  // namespace warplab::viewer
