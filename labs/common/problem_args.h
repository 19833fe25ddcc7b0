// A problem's size and a block as the command lines write them (warplab's
// --size and --block; the viewer's --shape and --block): one reading for every front end.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace warplab {

// A problem size with several dimensions: "4096" (S×S×S) or "M,N,K" (also "MxNxK").
inline std::vector<std::size_t> parse_problem_size(const std::string& text)
{
    std::vector<std::size_t> dims;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = text.find_first_of(",x", start);
        const std::string part = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 12)
            throw std::invalid_argument("size '" + text + "' is not S or M,N,K (positive integers)");
        dims.push_back(std::stoull(part));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    if (dims.size() > 3) throw std::invalid_argument("size '" + text + "' has more than 3 dimensions");  // each lab checks its own
    return dims;
}

// --block: "B" threads ({B}) or a 2D group "WxH" ({W, H}); "" gives {}.
inline std::vector<unsigned> parse_block(const std::string& text)
{
    if (text.empty()) return {};
    std::vector<unsigned> dims;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = text.find('x', start);
        const std::string part = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 5 || dims.size() == 2)
            throw std::invalid_argument("--block '" + text + "' is not B or WxH (positive integers, e.g. 256 or 16x16)");
        dims.push_back(unsigned(std::stoul(part)));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return dims;
}

}  // namespace warplab
