// PNG files in a build without libpng (a browser build): each use says so in one sentence.
#include <stdexcept>

#include "labs/common/png_io.h"

namespace warplab {

void write_png(const std::string& path, const RgbaImage&)
{
    throw std::runtime_error("cannot write " + path + ": this build has no libpng");
}

RgbaImage read_png(const std::string& path) { throw std::runtime_error("cannot read " + path + ": this build has no libpng"); }

}  // namespace warplab
