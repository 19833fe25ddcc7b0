#include "labs/transfers/check.h"

#include "warplab/random.h"

#include "kernels/transfers/work.h"

namespace warplab::transfers {

std::vector<float> make_input(std::size_t n, std::uint64_t seed)
{
    std::vector<float> x(n);
    wl::Random rng(seed);
    for (float& v : x) v = float(rng.uniform_int(-1000, 1000)) / 8.0f;
    return x;
}

std::size_t first_wrong(const std::vector<float>& x, const float* y)
{
    for (std::size_t i = 0; i < x.size(); ++i)
        if (!(y[i] == kScale * x[i] + kOffset)) return i;
    return x.size();
}

}  // namespace warplab::transfers
