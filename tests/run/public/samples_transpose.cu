// A matrix transpose as NVIDIA's samples and Harris's "An Efficient Matrix
// Transpose in CUDA C/C++" write it: TILE_DIM x TILE_DIM tiles, blocks of
// TILE_DIM x BLOCK_ROWS threads (each copies TILE_DIM / BLOCK_ROWS elements),
// the tile padded by one column so that reading it down a column is free of
// bank conflicts; the naive copy beside it for comparison.
// expect exit: 0
// expect stdout: transpose naive transpose +96x64: PASS
// expect stdout: transpose no bank conflicts +96x64: PASS
// expect stdout: Test passed
#include <cstdio>
#include <cstdlib>
#include <vector>

#define TILE_DIM 32
#define BLOCK_ROWS 8

#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)
template <typename T>
void check(T result, char const* const func, const char* const file, int const line)
{
    if (result) {
        fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\" \n", file, line, static_cast<unsigned int>(result),
                cudaGetErrorName(result), func);
        exit(EXIT_FAILURE);
    }
}

__global__ void transposeNaive(float* odata, const float* idata, int width, int height)
{
    const int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    const int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
    const int index_in = xIndex + width * yIndex;
    const int index_out = yIndex + height * xIndex;
    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) odata[index_out + i] = idata[index_in + i * width];
}

__global__ void transposeNoBankConflicts(float* odata, const float* idata, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
    const int index_in = xIndex + yIndex * width;
    xIndex = blockIdx.y * TILE_DIM + threadIdx.x;
    yIndex = blockIdx.x * TILE_DIM + threadIdx.y;
    const int index_out = xIndex + yIndex * height;
    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) tile[threadIdx.y + i][threadIdx.x] = idata[index_in + i * width];
    __syncthreads();
    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) odata[index_out + i * height] = tile[threadIdx.x][threadIdx.y + i];
}

int main(int argc, char** argv)
{
    const int size_x = 96, size_y = 64;  // multiples of TILE_DIM, as the samples require
    const int mem_size = sizeof(float) * size_x * size_y;
    std::vector<float> h_idata(size_x * size_y), h_odata(size_x * size_y);
    for (int i = 0; i < size_x * size_y; ++i) h_idata[i] = (float)i;
    float *d_idata, *d_odata;
    checkCudaErrors(cudaMalloc((void**)&d_idata, mem_size));
    checkCudaErrors(cudaMalloc((void**)&d_odata, mem_size));
    checkCudaErrors(cudaMemcpy(d_idata, h_idata.data(), mem_size, cudaMemcpyHostToDevice));
    dim3 grid(size_x / TILE_DIM, size_y / TILE_DIM), threads(TILE_DIM, BLOCK_ROWS);
    bool success = true;
    struct {
        void (*kernel)(float*, const float*, int, int);
        const char* name;
    } kernels[] = {{&transposeNaive, "naive transpose"}, {&transposeNoBankConflicts, "no bank conflicts"}};
    for (const auto& k : kernels) {
        checkCudaErrors(cudaMemset(d_odata, 0, mem_size));
        k.kernel<<<grid, threads>>>(d_odata, d_idata, size_x, size_y);
        checkCudaErrors(cudaGetLastError());
        checkCudaErrors(cudaMemcpy(h_odata.data(), d_odata, mem_size, cudaMemcpyDeviceToHost));
        int errors = 0;
        for (int y = 0; y < size_y; ++y)
            for (int x = 0; x < size_x; ++x) errors += h_odata[x * size_y + y] != h_idata[y * size_x + x];
        printf("transpose %-18s %dx%d: %s\n", k.name, size_x, size_y, errors ? "FAIL" : "PASS");
        success = success && errors == 0;
    }
    checkCudaErrors(cudaFree(d_idata));
    checkCudaErrors(cudaFree(d_odata));
    printf("%s\n", success ? "Test passed" : "Test failed!");
    return success ? EXIT_SUCCESS : EXIT_FAILURE;
}
