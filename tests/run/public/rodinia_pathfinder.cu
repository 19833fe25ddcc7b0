// The cheapest path down a grid of weights, in the shape of Rodinia's
// PathFinder: dynamic programming row by row, each row's cost the weight plus
// the least of the three costs above it. A launch advances a band of
// `pyramid_height` rows in shared memory, one __syncthreads() a row; each
// block loads BLOCK_SIZE columns and keeps only those its halo made exact
// (the band loses one column on each side a row).
// expect exit: 0
// expect stdout: ^pathfinder: 61 rows, 1000 columns, cheapest [0-9]+, correct
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define BLOCK_SIZE 128
#define HALO 1
#define IN_RANGE(x, min, max) ((x) >= (min) && (x) <= (max))
#define MIN(a, b) ((a) <= (b) ? (a) : (b))

__global__ void dynproc_kernel(int iteration, const int* gpuWall, const int* gpuSrc, int* gpuResults, int cols,
                               int startStep, int border)
{
    __shared__ int prev[BLOCK_SIZE];
    __shared__ int result[BLOCK_SIZE];
    const int tx = threadIdx.x;
    // This block's columns: BLOCK_SIZE loaded, the middle small_block_cols kept.
    const int small_block_cols = BLOCK_SIZE - iteration * HALO * 2;
    const int blkX = small_block_cols * blockIdx.x - border;
    const int xidx = blkX + tx;
    // The loaded columns that are on the grid, in the block's numbering.
    const int validXmin = blkX < 0 ? -blkX : 0;
    const int validXmax = blkX + BLOCK_SIZE - 1 > cols - 1 ? BLOCK_SIZE - 1 - (blkX + BLOCK_SIZE - cols) : BLOCK_SIZE - 1;
    const int W = tx - 1 < validXmin ? validXmin : tx - 1;  // a neighbour off the grid: this column again
    const int E = tx + 1 > validXmax ? validXmax : tx + 1;
    const bool isValid = IN_RANGE(tx, validXmin, validXmax);

    if (IN_RANGE(xidx, 0, cols - 1)) prev[tx] = gpuSrc[xidx];
    __syncthreads();
    bool computed = false;
    for (int i = 0; i < iteration; i++) {
        computed = false;
        if (IN_RANGE(tx, i + 1, BLOCK_SIZE - i - 2) && isValid) {
            computed = true;
            const int shortest = MIN(MIN(prev[W], prev[tx]), prev[E]);
            result[tx] = shortest + gpuWall[cols * (startStep + i) + xidx];
        }
        __syncthreads();
        if (i == iteration - 1) break;
        if (computed) prev[tx] = result[tx];
        __syncthreads();  // the row is whole before the next reads it
    }
    if (computed) gpuResults[xidx] = result[tx];
}

int main(int argc, char** argv)
{
    const int rows = 61, cols = 1000, pyramid_height = 16;
    std::vector<int> wall(rows * cols);
    srand(9);
    for (int& w : wall) w = rand() % 10;
    const int border = pyramid_height * HALO;
    const int smallBlockCol = BLOCK_SIZE - pyramid_height * HALO * 2;
    const int blockCols = cols / smallBlockCol + (cols % smallBlockCol == 0 ? 0 : 1);

    int *gpuWall, *gpuResult[2];
    cudaMalloc((void**)&gpuResult[0], sizeof(int) * cols);
    cudaMalloc((void**)&gpuResult[1], sizeof(int) * cols);
    cudaMalloc((void**)&gpuWall, sizeof(int) * (rows - 1) * cols);
    cudaMemcpy(gpuResult[0], wall.data(), sizeof(int) * cols, cudaMemcpyHostToDevice);  // the first row is its own cost
    cudaMemcpy(gpuWall, wall.data() + cols, sizeof(int) * (rows - 1) * cols, cudaMemcpyHostToDevice);

    int src = 1, dst = 0;
    for (int t = 0; t < rows - 1; t += pyramid_height) {
        int temp = src;
        src = dst;
        dst = temp;
        dynproc_kernel<<<blockCols, BLOCK_SIZE>>>(MIN(pyramid_height, rows - t - 1), gpuWall, gpuResult[src],
                                                  gpuResult[dst], cols, t, border);
    }
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        printf("pathfinder: %s\n", cudaGetErrorString(err));
        return 1;
    }
    std::vector<int> result(cols);
    cudaMemcpy(result.data(), gpuResult[dst], sizeof(int) * cols, cudaMemcpyDeviceToHost);

    std::vector<int> cost(wall.begin(), wall.begin() + cols), next(cols);
    for (int r = 1; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
            int best = cost[c];
            if (c > 0) best = MIN(best, cost[c - 1]);
            if (c < cols - 1) best = MIN(best, cost[c + 1]);
            next[c] = best + wall[r * cols + c];
        }
        cost.swap(next);
    }
    int wrong = 0, cheapest = INT_MAX;
    for (int c = 0; c < cols; c++) {
        wrong += result[c] != cost[c];
        cheapest = MIN(cheapest, result[c]);
    }
    printf("pathfinder: %d rows, %d columns, cheapest %d, %s\n", rows, cols, cheapest, wrong ? "WRONG" : "correct");
    cudaFree(gpuWall);
    cudaFree(gpuResult[0]);
    cudaFree(gpuResult[1]);
    return wrong ? 1 : 0;
}
