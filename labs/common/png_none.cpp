// PNG files in a build without libpng (a browser build): each use says so in one sentence.
#include <stdexcept>

#include "labs/common/png_io.h"

namespace warplab {

void write_png(const std::string& path, const RgbaImage&)
{
    throw std::runtime_error("cannot write " + path + ": this build has no libpng");
}

namespace {
[[noreturn]] void cannot_read(const std::string& path) { throw std::runtime_error("cannot read " + path + ": this build has no libpng"); }
}  // namespace

RgbaImage read_png(const std::string& path) { cannot_read(path); }
ImageSize read_png_size(const std::string& path) { cannot_read(path); }

}  // namespace warplab
