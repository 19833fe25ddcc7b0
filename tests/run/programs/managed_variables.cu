// __managed__ variables, used by name from host and device code as CUDA's
// unified-memory samples do: the host sets them, a kernel adds to them, the
// host reads them after a synchronize.
//   count: the host sets 5, 64 threads each add 1 with atomicAdd: 69
//   weights[i]: the host sets i + 1 (1, 2, 3, 4), thread i < 4 of block 0 doubles its own: 2, 4, 6, 8
#include <cstdio>

__managed__ int count = 0;
__managed__ float weights[4];

__global__ void touch()
{
    atomicAdd(&count, 1);
    if (blockIdx.x == 0 && threadIdx.x < 4) weights[threadIdx.x] *= 2.0f;
}

int main()
{
    count = 5;
    for (int i = 0; i < 4; ++i) weights[i] = float(i + 1);
    touch<<<2, 32>>>();
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
    std::printf("managed: count %d, weights %g %g %g %g\n", count, weights[0], weights[1], weights[2], weights[3]);
    return count == 69 && weights[3] == 8.0f ? 0 : 1;
}
