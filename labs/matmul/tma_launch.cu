// v12's launch (nvcc only): rows of A (B) padded when K (N) is not a
// multiple of 4, a tensor map of each, then the kernel with its dynamic
// shared memory. The timing of v12 covers all of it.
#include <cuda.h>
#include <cudaTypedefs.h>

#include <stdexcept>

#include "labs/matmul/kernels.cuh"
#include "warplab/cuda/device.h"

namespace warplab::matmul {

namespace {

// The driver's tensor-map encoder, through the runtime: no link to libcuda.
PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder()
{
    static const PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
        void* fn = nullptr;
        cudaDriverEntryPointQueryResult found{};
        wl::cuda::check(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found),
                        "looking up cuTensorMapEncodeTiled");
        if (!fn || found != cudaDriverEntryPointSuccess)
            throw std::runtime_error("the CUDA driver offers no cuTensorMapEncodeTiled (tensor copies need CUDA 12 or later)");
        return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
    }();
    return encode;
}

// A row-major operand, `rows` rows of `padded_cols` floats (a multiple of 4:
// a row stride of whole 16 bytes), copied in boxes of 32 floats (one
// 128-byte swizzle row) × box_rows; outside the operand the copies read zeros.
CUtensorMap swizzled_map(const float* p, unsigned rows, unsigned padded_cols, unsigned box_rows)
{
    CUtensorMap map;
    const cuuint64_t dims[2] = {padded_cols, rows};
    const cuuint64_t row_stride[1] = {cuuint64_t(padded_cols) * sizeof(float)};
    const cuuint32_t box[2] = {32, box_rows};
    const cuuint32_t element_strides[2] = {1, 1};
    const CUresult r = tensor_map_encoder()(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(p), dims, row_stride,
                                            box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) throw std::runtime_error("cuTensorMapEncodeTiled failed (CUresult " + std::to_string(int(r)) + ")");
    return map;
}

// Device memory kept from launch to launch (v12 is timed many times), grown when too small.
class Scratch {
public:
    float* floats(std::size_t count)
    {
        if (count > capacity_) {
            if (p_) wl::cuda::check(cudaFree(p_), "cudaFree");
            p_ = nullptr;
            wl::cuda::check(cudaMalloc(&p_, count * sizeof(float)), "cudaMalloc of v12's scratch");
            capacity_ = count;
        }
        return p_;
    }

private:
    float* p_ = nullptr;
    std::size_t capacity_ = 0;
};

// `in` (rows × cols) with its rows padded to a multiple of 4 floats: `in`
// itself where they are already, else a padded copy in `scratch`.
const float* padded_rows(const float* in, unsigned rows, unsigned cols, Scratch& scratch)
{
    const unsigned padded = (cols + 3) / 4 * 4;
    if (padded == cols) return in;
    float* out = scratch.floats(std::size_t(rows) * padded);
    pad_rows<float><<<dim3(ceil_div(padded, 32), ceil_div(rows, 32)), dim3(32, 8)>>>(in, out, rows, cols, padded);
    wl::cuda::check(cudaGetLastError(), "v12's padding of rows");
    return out;
}

}  // namespace

void launch_tma_pipeline(const Operands& o)
{
    using V = V12;
    static Scratch padded_a, padded_b;
    const CUtensorMap a_map = swizzled_map(padded_rows(o.a, o.m, o.k, padded_a), o.m, (o.k + 3) / 4 * 4, V::tiles.bm);
    const CUtensorMap b_map = swizzled_map(padded_rows(o.b, o.k, o.n, padded_b), o.k, (o.n + 3) / 4 * 4, 32);
    const auto kernel = kernel_pointer(KernelInstance<V, V::template_args>{});
    static const bool shared_raised = [&] {
        wl::cuda::check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(V::meta.dynamic_shared_bytes)),
                        "shared memory limit of v12");
        return true;
    }();
    (void)shared_raised;
    static const unsigned sms = [] {
        int device = 0, count = 0;
        wl::cuda::check(cudaGetDevice(&device), "cudaGetDevice");
        wl::cuda::check(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device), "the SM count");
        return unsigned(count);
    }();
    const dim3 grid = V::grid(o.m, o.n, o.k, sms);
    if (grid.z > 1) wl::cuda::check(cudaMemsetAsync(o.c, 0, std::size_t(o.m) * o.n * sizeof(float)), "zeroing C for v12's pieces of K");
    kernel<<<grid, V::block(), V::meta.dynamic_shared_bytes>>>(a_map, b_map, o.c, o.m, o.n, o.k);
    wl::cuda::check(cudaGetLastError(), "launch of v12");
}

}  // namespace warplab::matmul
