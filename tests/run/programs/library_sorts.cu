// Sorting with CUDA's own libraries, built -std=c++17: thrust::sort (cub's
// radix sort, whose bit masks are bmsk), thrust::sort_by_key, thrust::sort
// with a comparator (cub's merge sort, launched with cudaLaunchKernelEx and
// programmatic stream serialization, a scheduling hint), and
// cub::BlockRadixSort in a kernel of its own.
//   keys: (i * 37) % 101 - 50 for i < 1000 (37 is prime to 101: every residue
//   mod 101 comes round, so the values run over -50..50); sorted, each is no
//   greater than the next; by |v|, each |v| no greater than the next.
//   sort_by_key: values 2 * key, so after the sort value == 2 * key throughout.
//   BlockRadixSort: 128 threads of 4 keys, key = 511 - slot: sorted, slot k holds k.
#include <cstdio>
#include <cstdlib>
#include <cub/block/block_radix_sort.cuh>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>

struct by_magnitude {
    __host__ __device__ bool operator()(int a, int b) const { return abs(a) < abs(b); }
};

__global__ void block_sort(int* keys)
{
    using Sort = cub::BlockRadixSort<int, 128, 4>;
    __shared__ typename Sort::TempStorage temp;
    int mine[4];
    for (int k = 0; k < 4; ++k) mine[k] = keys[threadIdx.x * 4 + k];
    Sort(temp).Sort(mine);
    for (int k = 0; k < 4; ++k) keys[threadIdx.x * 4 + k] = mine[k];
}

int main()
{
    thrust::host_vector<int> h(1000), doubled(1000);
    for (int i = 0; i < 1000; ++i) h[i] = (i * 37) % 101 - 50, doubled[i] = 2 * h[i];
    thrust::device_vector<int> d = h;
    thrust::sort(d.begin(), d.end());
    thrust::host_vector<int> r = d;
    int bad = 0;
    for (int i = 1; i < 1000; ++i) bad += r[i - 1] > r[i];
    std::printf("sort: %s, from %d to %d\n", bad ? "wrong" : "ascending", r[0], r[999]);

    thrust::device_vector<int> keys = h, values = doubled;
    thrust::sort_by_key(keys.begin(), keys.end(), values.begin());
    thrust::host_vector<int> k = keys, v = values;
    bad = 0;
    for (int i = 0; i < 1000; ++i) bad += (i > 0 && k[i - 1] > k[i]) || v[i] != 2 * k[i];
    std::printf("sort_by_key: %s\n", bad ? "wrong" : "ascending, values follow");

    d = h;
    thrust::sort(d.begin(), d.end(), by_magnitude());
    r = d;
    bad = 0;
    for (int i = 1; i < 1000; ++i) bad += abs(r[i - 1]) > abs(r[i]);
    std::printf("sort by |v|: %s\n", bad ? "wrong" : "ascending");

    thrust::host_vector<int> slots(512);
    for (int i = 0; i < 512; ++i) slots[i] = 511 - i;
    thrust::device_vector<int> block = slots;
    block_sort<<<1, 128>>>(thrust::raw_pointer_cast(block.data()));
    slots = block;
    bad = 0;
    for (int i = 0; i < 512; ++i) bad += slots[i] != i;
    std::printf("BlockRadixSort: %s\n", bad ? "wrong" : "slot k holds k");
    return 0;
}
