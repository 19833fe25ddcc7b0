// v12's launch (nvcc only): B transposed into a K-major copy, A's rows
// padded when K is not a multiple of 4, a tensor map of each, then the
// kernel with its dynamic shared memory. The timing of v12 covers all of it.
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

// A K-major operand, `rows` rows of `padded_k` floats (a multiple of 4: a
// row stride of whole 16 bytes), copied in boxes of 32 floats (one 128-byte
// swizzle row) × box_rows; outside the operand the copies read zeros.
CUtensorMap k_major_map(const float* p, unsigned rows, unsigned padded_k, unsigned box_rows)
{
    CUtensorMap map;
    const cuuint64_t dims[2] = {padded_k, rows};
    const cuuint64_t row_stride[1] = {cuuint64_t(padded_k) * sizeof(float)};
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

}  // namespace

void launch_tma_pipeline(const Operands& o)
{
    using V = V12;
    static Scratch transposed_b, padded_a;
    const dim3 copy_block(32, 8);
    const unsigned padded_k = (o.k + 3) / 4 * 4;
    float* bt = transposed_b.floats(std::size_t(o.n) * padded_k);
    to_k_major<true><<<dim3(ceil_div(o.n, 32), ceil_div(padded_k, 32)), copy_block>>>(o.b, bt, o.k, o.n, padded_k);
    const float* a = o.a;
    if (padded_k != o.k) {
        float* ap = padded_a.floats(std::size_t(o.m) * padded_k);
        to_k_major<false><<<dim3(ceil_div(padded_k, 32), ceil_div(o.m, 32)), copy_block>>>(o.a, ap, o.m, o.k, padded_k);
        a = ap;
    }
    wl::cuda::check(cudaGetLastError(), "v12's transpose of B");
    const CUtensorMap a_map = k_major_map(a, o.m, padded_k, V::tiles.bm);
    const CUtensorMap bt_map = k_major_map(bt, o.n, padded_k, V::tiles.bn);
    const auto kernel = kernel_pointer(KernelInstance<V, V::template_args>{});
    static const bool shared_raised = [&] {
        wl::cuda::check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(V::meta.dynamic_shared_bytes)),
                        "shared memory limit of v12");
        return true;
    }();
    (void)shared_raised;
    kernel<<<V::grid(o.m, o.n), V::block(), V::meta.dynamic_shared_bytes>>>(a_map, bt_map, o.c, o.m, o.n, o.k);
    wl::cuda::check(cudaGetLastError(), "launch of v12");
}

}  // namespace warplab::matmul
