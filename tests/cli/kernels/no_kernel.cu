// Device helpers only: nothing here can be launched.
__device__ float square(float x) { return x * x; }
__host__ __device__ int twice(int x) { return 2 * x; }
