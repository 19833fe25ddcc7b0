// Vector addition as NVIDIA's vectorAdd sample writes it: host arrays from
// malloc with random values, the device's from cudaMalloc, every error checked
// (cudaGetLastError after the launch), the result verified within a tolerance.
// expect exit: 0
// expect stdout: ^.Vector addition of 5003 elements.
// expect stdout: Test PASSED
#include <cmath>
#include <cstdio>
#include <cstdlib>

__global__ void vectorAdd(const float* A, const float* B, float* C, int numElements)
{
    const int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < numElements) C[i] = A[i] + B[i];
}

int main(void)
{
    cudaError_t err = cudaSuccess;
    const int numElements = 5003;
    const size_t size = numElements * sizeof(float);
    printf("[Vector addition of %d elements]\n", numElements);
    float* h_A = (float*)malloc(size);
    float* h_B = (float*)malloc(size);
    float* h_C = (float*)malloc(size);
    if (h_A == NULL || h_B == NULL || h_C == NULL) {
        fprintf(stderr, "Failed to allocate host vectors!\n");
        exit(EXIT_FAILURE);
    }
    srand(3);
    for (int i = 0; i < numElements; ++i) {
        h_A[i] = rand() / (float)RAND_MAX;
        h_B[i] = rand() / (float)RAND_MAX;
    }
    float *d_A = NULL, *d_B = NULL, *d_C = NULL;
    float** buffers[] = {&d_A, &d_B, &d_C};
    for (float** buffer : buffers) {
        err = cudaMalloc((void**)buffer, size);
        if (err != cudaSuccess) {
            fprintf(stderr, "Failed to allocate device vector (error code %s)!\n", cudaGetErrorString(err));
            exit(EXIT_FAILURE);
        }
    }
    err = cudaMemcpy(d_A, h_A, size, cudaMemcpyHostToDevice);
    if (err == cudaSuccess) err = cudaMemcpy(d_B, h_B, size, cudaMemcpyHostToDevice);
    if (err != cudaSuccess) {
        fprintf(stderr, "Failed to copy vectors from host to device (error code %s)!\n", cudaGetErrorString(err));
        exit(EXIT_FAILURE);
    }
    const int threadsPerBlock = 256;
    const int blocksPerGrid = (numElements + threadsPerBlock - 1) / threadsPerBlock;
    printf("CUDA kernel launch with %d blocks of %d threads\n", blocksPerGrid, threadsPerBlock);
    vectorAdd<<<blocksPerGrid, threadsPerBlock>>>(d_A, d_B, d_C, numElements);
    err = cudaGetLastError();
    if (err != cudaSuccess) {
        fprintf(stderr, "Failed to launch vectorAdd kernel (error code %s)!\n", cudaGetErrorString(err));
        exit(EXIT_FAILURE);
    }
    err = cudaMemcpy(h_C, d_C, size, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) {
        fprintf(stderr, "Failed to copy vector C from device to host (error code %s)!\n", cudaGetErrorString(err));
        exit(EXIT_FAILURE);
    }
    for (int i = 0; i < numElements; ++i) {
        if (fabs(h_A[i] + h_B[i] - h_C[i]) > 1e-5) {
            fprintf(stderr, "Result verification failed at element %d!\n", i);
            exit(EXIT_FAILURE);
        }
    }
    printf("Test PASSED\n");
    for (float** buffer : buffers) cudaFree(*buffer);
    free(h_A);
    free(h_B);
    free(h_C);
    printf("Done\n");
    return 0;
}
