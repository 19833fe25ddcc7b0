// A thermal simulation step by step, in the shape of Rodinia's HotSpot: the
// chip's temperature on a grid, each cell moved by its power and its four
// neighbours; one launch an iteration over a shared-memory tile with a halo,
// the host swapping two buffers (ping-pong) between launches.
// expect exit: 0
// expect stdout: ^hotspot: 40x50 grid, 8 iterations, correct
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define BLOCK_SIZE 16
#define MAX_PD (3.0e6)        // maximum power density
#define PRECISION 0.001
#define SPEC_HEAT_SI 1.75e6
#define K_SI 100
#define FACTOR_CHIP 0.5       // capacitance fitting factor
#define AMB_TEMP 80.0f

const float t_chip = 0.0005f, chip_height = 0.016f, chip_width = 0.016f;

__global__ void calculate_temp(const float* power, const float* temp_src, float* temp_dst, int grid_cols, int grid_rows,
                               float Cap, float Rx, float Ry, float Rz, float step)
{
    __shared__ float temp_on_cuda[BLOCK_SIZE + 2][BLOCK_SIZE + 2];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int col = blockIdx.x * BLOCK_SIZE + tx, row = blockIdx.y * BLOCK_SIZE + ty;
    // The tile with a one-cell halo: a cell off the chip repeats the chip's edge.
    for (int y = ty; y < BLOCK_SIZE + 2; y += BLOCK_SIZE)
        for (int x = tx; x < BLOCK_SIZE + 2; x += BLOCK_SIZE) {
            int r = blockIdx.y * BLOCK_SIZE + y - 1, c = blockIdx.x * BLOCK_SIZE + x - 1;
            r = r < 0 ? 0 : (r >= grid_rows ? grid_rows - 1 : r);
            c = c < 0 ? 0 : (c >= grid_cols ? grid_cols - 1 : c);
            temp_on_cuda[y][x] = temp_src[r * grid_cols + c];
        }
    __syncthreads();
    if (row < grid_rows && col < grid_cols) {
        const float here = temp_on_cuda[ty + 1][tx + 1];
        const float step_div_Cap = step / Cap;
        temp_dst[row * grid_cols + col] =
            here + step_div_Cap * (power[row * grid_cols + col] +
                                   (temp_on_cuda[ty + 2][tx + 1] + temp_on_cuda[ty][tx + 1] - 2.0f * here) / Ry +
                                   (temp_on_cuda[ty + 1][tx + 2] + temp_on_cuda[ty + 1][tx] - 2.0f * here) / Rx +
                                   (AMB_TEMP - here) / Rz);
    }
}

// The same step on the host, in double.
void compute_tran_temp_cpu(const std::vector<float>& power, std::vector<double>& temp, int cols, int rows, double Cap,
                           double Rx, double Ry, double Rz, double step)
{
    std::vector<double> next(temp.size());
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            const double here = temp[r * cols + c];
            const double n = temp[(r > 0 ? r - 1 : r) * cols + c], s = temp[(r < rows - 1 ? r + 1 : r) * cols + c];
            const double w = temp[r * cols + (c > 0 ? c - 1 : c)], e = temp[r * cols + (c < cols - 1 ? c + 1 : c)];
            next[r * cols + c] = here + step / Cap * (power[r * cols + c] + (s + n - 2.0 * here) / Ry +
                                                      (e + w - 2.0 * here) / Rx + (AMB_TEMP - here) / Rz);
        }
    temp.swap(next);
}

int main(int argc, char** argv)
{
    const int grid_rows = 40, grid_cols = 50, total_iterations = 8;
    const int size = grid_rows * grid_cols;
    std::vector<float> FilesavingTemp(size), FilesavingPower(size), MatrixOut(size);
    srand(1);
    for (int i = 0; i < size; i++) {
        FilesavingTemp[i] = 320.0f + (rand() % 1000) / 10.0f;  // neighbours up to 100 degrees apart: a step moves a cell by up to about 0.03
        FilesavingPower[i] = (rand() % 1000) / 1000.0f * 0.005f;
    }
    const float grid_height = chip_height / grid_rows, grid_width = chip_width / grid_cols;
    const float Cap = FACTOR_CHIP * SPEC_HEAT_SI * t_chip * grid_width * grid_height;
    const float Rx = grid_width / (2.0 * K_SI * t_chip * grid_height);
    const float Ry = grid_height / (2.0 * K_SI * t_chip * grid_width);
    const float Rz = t_chip / (K_SI * grid_height * grid_width);
    const float max_slope = MAX_PD / (FACTOR_CHIP * t_chip * SPEC_HEAT_SI);
    const float step = PRECISION / max_slope;

    float *MatrixTemp[2], *MatrixPower;
    cudaMalloc((void**)&MatrixTemp[0], sizeof(float) * size);
    cudaMalloc((void**)&MatrixTemp[1], sizeof(float) * size);
    cudaMalloc((void**)&MatrixPower, sizeof(float) * size);
    cudaMemcpy(MatrixTemp[0], FilesavingTemp.data(), sizeof(float) * size, cudaMemcpyHostToDevice);
    cudaMemcpy(MatrixPower, FilesavingPower.data(), sizeof(float) * size, cudaMemcpyHostToDevice);
    dim3 dimBlock(BLOCK_SIZE, BLOCK_SIZE);
    dim3 dimGrid((grid_cols + BLOCK_SIZE - 1) / BLOCK_SIZE, (grid_rows + BLOCK_SIZE - 1) / BLOCK_SIZE);
    int src = 0, dst = 1;
    for (int t = 0; t < total_iterations; t++) {
        calculate_temp<<<dimGrid, dimBlock>>>(MatrixPower, MatrixTemp[src], MatrixTemp[dst], grid_cols, grid_rows, Cap, Rx, Ry, Rz, step);
        int temp = src;
        src = dst;
        dst = temp;
    }
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        printf("hotspot: %s\n", cudaGetErrorString(err));
        return 1;
    }
    cudaMemcpy(MatrixOut.data(), MatrixTemp[src], sizeof(float) * size, cudaMemcpyDeviceToHost);

    std::vector<double> reference(FilesavingTemp.begin(), FilesavingTemp.end());
    for (int t = 0; t < total_iterations; t++)
        compute_tran_temp_cpu(FilesavingPower, reference, grid_cols, grid_rows, Cap, Rx, Ry, Rz, step);
    int wrong = 0;
    for (int i = 0; i < size; i++) wrong += std::fabs(MatrixOut[i] - reference[i]) > 2e-4;  // float rounding of values near 400: a few 1e-5 a step
    printf("hotspot: %dx%d grid, %d iterations, %s\n", grid_rows, grid_cols, total_iterations, wrong ? "WRONG" : "correct");
    cudaFree(MatrixPower);
    cudaFree(MatrixTemp[0]);
    cudaFree(MatrixTemp[1]);
    return wrong ? 1 : 0;
}
