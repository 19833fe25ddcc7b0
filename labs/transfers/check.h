// The transfers lab's data and its check, on the host: the GPU code fills y,
// these say whether it is right.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace warplab::transfers {

// Seeded inputs whose y = 2x + 1 is exact in float: multiples of 1/8 in [-125, 125].
std::vector<float> make_input(std::size_t n, std::uint64_t seed);

// The first i at which y[i] is not 2 x[i] + 1 (a NaN never is); x.size() when none.
std::size_t first_wrong(const std::vector<float>& x, const float* y);

}  // namespace warplab::transfers
