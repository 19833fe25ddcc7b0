// The picture a request or a benchmark reduces: a PNG file (--image) or the
// seeded one, at the size asked for; bad input refused in one sentence.
#pragma once
#include <string>
#include <vector>

#include "labs/common/lab.h"
#include "labs/image/problem.h"

namespace warplab::image {

// `file` when named (its size must equal `size` when one is given), else the
// seeded picture at `size` ({W, H}) or the default. Throws
// std::invalid_argument naming the problem: a missing or non-PNG file, a
// size that is not W,H, an empty picture, or 2^32 pixels or more (the kernels
// index with 32 bits).
Picture picture_for(const std::string& file, const std::vector<std::size_t>& size, std::size_t default_width,
                    std::size_t default_height, std::uint64_t seed);

// The size picture_for would give, with the same refusals, without building
// the picture: a file's PNG header alone is read, the seeded size is `size`
// or the default.
PictureSize picture_size(const std::string& file, const std::vector<std::size_t>& size, std::size_t default_width,
                         std::size_t default_height);

// The picture in squares of at most `across` a row, each its pixels' mean
// colour (RunResult::picture: what the viewer draws, kept with the run).
PictureCells picture_cells(const Picture& p, std::size_t across);

}  // namespace warplab::image
