// The launches of the versions fed by tensor copies (nvcc only). v12's: rows
// of A (B) padded when K (N) is not a multiple of 4, a tensor map of each,
// then the kernel with its dynamic shared memory; the timing of v12 covers
// all of it. v14's and v15's: A and B rounded to bf16 where the caller has
// not (rows padded), tensor maps of them and of C, then the kernel, one block
// per SM at most (v15's in clusters of two).
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>

#include <optional>
#include <stdexcept>

#include "labs/matmul/bf16_inputs.cuh"
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

// A row-major operand, `rows` rows of `padded_cols` elements of T (float or
// bf16; a row stride of whole 16 bytes), copied in boxes of 128 bytes (one
// 128-byte swizzle row) × box_rows; outside the operand the copies read zeros.
template <typename T> CUtensorMap swizzled_map(const T* p, unsigned rows, unsigned padded_cols, unsigned box_rows)
{
    static_assert(sizeof(T) == 4 || sizeof(T) == 2, "floats or bf16");
    constexpr CUtensorMapDataType type = sizeof(T) == 4 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    CUtensorMap map;
    const cuuint64_t dims[2] = {padded_cols, rows};
    const cuuint64_t row_stride[1] = {cuuint64_t(padded_cols) * sizeof(T)};
    const cuuint32_t box[2] = {128 / sizeof(T), box_rows};
    const cuuint32_t element_strides[2] = {1, 1};
    const CUresult r = tensor_map_encoder()(&map, type, 2, const_cast<T*>(p), dims, row_stride,
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

// The GPU's SM count, asked once.
unsigned multiprocessors()
{
    static const unsigned sms = [] {
        int device = 0, count = 0;
        wl::cuda::check(cudaGetDevice(&device), "cudaGetDevice");
        wl::cuda::check(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device), "the SM count");
        return unsigned(count);
    }();
    return sms;
}

// Version V's kernel, allowed its dynamic shared memory (above 48 KB) once.
template <class V> auto kernel_with_shared()
{
    const auto kernel = kernel_pointer(KernelInstance<V, typename V::template_args>{});
    static const bool shared_raised = [&] {
        wl::cuda::check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(V::meta.dynamic_shared_bytes)),
                        std::string("shared memory limit of ") + V::meta.id);
        return true;
    }();
    (void)shared_raised;
    return kernel;
}

// The clusters of V's kernel that the GPU runs at once (each on SMs near
// each other), asked once: with fewer than the SMs' pairs, a grid sized by
// the SM count would leave the last clusters waiting for a whole wave.
template <class V> unsigned cluster_slots()
{
    static const unsigned slots = [] {
        cudaLaunchConfig_t config{};
        config.gridDim = dim3(V::cluster_blocks * (multiprocessors() / V::cluster_blocks));
        config.blockDim = V::block();
        config.dynamicSmemBytes = V::meta.dynamic_shared_bytes;
        int clusters = 0;
        wl::cuda::check(cudaOccupancyMaxActiveClusters(&clusters, kernel_with_shared<V>(), &config),
                        std::string("the clusters of ") + V::meta.id + " that fit at once");
        if (clusters <= 0) throw std::runtime_error(std::string("no cluster of ") + V::meta.id + "'s blocks fits on this GPU");
        return unsigned(clusters);
    }();
    return slots;
}

// A BF16 version's launch: A and B rounded to bf16 where the caller has not
// (rows padded), tensor maps of them and of C, then V's kernel on `grid`.
template <class V> void launch_bf16(const Operands& o, dim3 grid)
{
    // A and B in bf16: those the caller rounded before its timing (the bench,
    // which gives cuBLAS the same), else rounded here for this launch.
    std::optional<Bf16Inputs> rounded;
    const Bf16Operands bf16 = o.bf16.a && o.bf16.b ? o.bf16 : rounded.emplace(o.a, o.b, Shape{o.m, o.n, o.k}).operands();
    const auto* a = reinterpret_cast<const __nv_bfloat16*>(bf16.a);
    const auto* b = reinterpret_cast<const __nv_bfloat16*>(bf16.b);
    const CUtensorMap a_map = swizzled_map(a, o.m, bf16_row(o.k), V::tiles.bm);
    const CUtensorMap b_map = swizzled_map(b, o.k, bf16_row(o.n), V::tiles.bk);
    // C through the copy engine, 64 rows × 32 columns a box, where its rows
    // are whole 16 bytes (stores beyond C are clipped); else the kernel
    // stores from registers and never reads the map.
    const CUtensorMap c_map = o.n % 4 == 0 ? swizzled_map(o.c, o.m, o.n, 64) : CUtensorMap{};
    const auto kernel = kernel_with_shared<V>();
    kernel<<<grid, V::block(), V::meta.dynamic_shared_bytes>>>(a_map, b_map, c_map, o.c, o.m, o.n, o.k);
    wl::cuda::check(cudaGetLastError(), std::string("launch of ") + V::meta.id);
}

}  // namespace

void launch_tma_pipeline(const Operands& o)
{
    using V = V12;
    static Scratch padded_a, padded_b;
    const CUtensorMap a_map = swizzled_map(padded_rows(o.a, o.m, o.k, padded_a), o.m, (o.k + 3) / 4 * 4, V::tiles.bm);
    const CUtensorMap b_map = swizzled_map(padded_rows(o.b, o.k, o.n, padded_b), o.k, (o.n + 3) / 4 * 4, 32);
    const auto kernel = kernel_with_shared<V>();
    const dim3 grid = V::grid(o.m, o.n, o.k, multiprocessors());
    if (grid.z > 1) wl::cuda::check(cudaMemsetAsync(o.c, 0, std::size_t(o.m) * o.n * sizeof(float)), "zeroing C for v12's pieces of K");
    kernel<<<grid, V::block(), V::meta.dynamic_shared_bytes>>>(a_map, b_map, o.c, o.m, o.n, o.k);
    wl::cuda::check(cudaGetLastError(), "launch of v12");
}

void launch_bf16_wgmma(const Operands& o) { launch_bf16<V14>(o, V14::grid(o.m, o.n, o.k, multiprocessors())); }

void launch_bf16_multicast(const Operands& o) { launch_bf16<V15>(o, V15::grid_for_clusters(o.m, o.n, cluster_slots<V15>())); }

}  // namespace warplab::matmul
