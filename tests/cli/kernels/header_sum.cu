// A user's reduction whose shared tile is declared in the header it includes
// (tile_reduce.cuh, line 6): `warplab trace reduction v3 --file header_sum.cu
// --kernel header_sum` names it there, by file and line.
#include "tile_reduce.cuh"

template <unsigned BLOCK, class T>
__global__ void header_sum(const T* __restrict__ in, T* out, unsigned n)
{
    __shared__ unsigned seen[1];
    const unsigned i = blockIdx.x * BLOCK + threadIdx.x;
    if (threadIdx.x == 0) seen[0] = n;
    const T total = block_sum<BLOCK>(i < n ? in[i] : T(0));
    if (threadIdx.x == 0) out[blockIdx.x] = total + T(seen[0] - n);
}
