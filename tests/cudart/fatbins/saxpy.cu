// The kernel of the checked-in fat binaries beside it (regenerate with the
// commands in tests/cudart/test_fatbin.cpp's header).
__global__ void saxpy(float a, const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
