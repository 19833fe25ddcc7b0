// GPU tests (skip, saying why, where no CUDA GPU is present, or on a GPU whose
// limits warplab does not declare): for every version of every lab, the lab's
// sm_90a PTX as the driver compiles it for this GPU has the registers and static
// shared memory of the ptxas report warplab embeds (cudaFuncGetAttributes),
// and cudaOccupancyMaxActiveBlocksPerMultiprocessor at the version's bench
// block size gives the blocks per SM that warplab's calculator gives. Then the
// calculator against the runtime over block sizes and dynamic shared memory
// the kernels do not use themselves.
#if defined(WARPLAB_HAVE_CUDA)
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "labs/common/lab.h"
#include "warplab/occupancy.h"

namespace {

namespace occ = wl::occupancy;

#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call << ": " << cudaGetErrorString(cudaGetLastError())

// The GPU's limits as warplab declares them; nullptr (with why) where it has none.
const occ::Arch* this_gpu(std::string& why)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        why = "no CUDA device";
        return nullptr;
    }
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
        why = "cannot read the device's properties";
        return nullptr;
    }
    for (const occ::Arch& a : occ::architectures())
        if (a.sm == unsigned(p.major * 10 + p.minor)) return &a;
    why = std::string(p.name) + " (sm_" + std::to_string(p.major * 10 + p.minor) + ") is none of " + occ::arch_ids();
    return nullptr;
}

// The PTX the embedded report was made from: the lab's kernels compiled for
// compute_90a, as the GPU build compiles them (the emulator's compute_90 PTX
// holds only stubs of the versions that need sm_90a).
std::string lab_ptx(const std::string& lab)
{
    std::ifstream f(std::string(WARPLAB_LAB_PTX_DIR) + "/" + lab + ".sm_90a.ptx");
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// A lab's PTX compiled by the driver for this GPU.
struct LabLibrary {
    cudaLibrary_t lib = nullptr;
    explicit LabLibrary(const std::string& ptx)
    {
        if (cudaLibraryLoadData(&lib, ptx.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0) != cudaSuccess) lib = nullptr;
    }
    ~LabLibrary()
    {
        if (lib) cudaLibraryUnload(lib);
    }
    // The kernel as cudaFuncGetAttributes and the occupancy API take it.
    const void* kernel(const std::string& mangled) const
    {
        cudaKernel_t k = nullptr;
        return cudaLibraryGetKernel(&k, lib, mangled.c_str()) == cudaSuccess ? reinterpret_cast<const void*>(k) : nullptr;
    }
};

#define REQUIRE_KNOWN_GPU(arch)                                   \
    std::string why;                                              \
    const occ::Arch* arch = this_gpu(why);                        \
    if (!arch) GTEST_SKIP() << "no GPU: " << why

TEST(GpuOccupancy, EveryVersionAsTheDriverSeesIt)
{
    REQUIRE_KNOWN_GPU(arch);
    for (const warplab::Lab& lab : warplab::all_labs()) {
        if (lab.host_programs) continue;  // no kernels of its own to occupy (transfers)
        const std::string ptx = lab_ptx(lab.id);
        ASSERT_FALSE(ptx.empty()) << "no PTX for lab " << lab.id << " in " << WARPLAB_LAB_PTX_DIR;
        const LabLibrary library(ptx);
        ASSERT_NE(library.lib, nullptr) << "the driver cannot load lab " << lab.id << "'s PTX";
        for (const auto& v : lab.versions) {
            SCOPED_TRACE(lab.id + " " + v.id);
            const occ::LaunchUsage launch =
                occ::launch_usage(lab.id, v.kernel, v.bench_block, lab.types.front(), {}, v.dynamic_shared_bytes);
            const void* k = library.kernel(launch.instance->mangled);
            ASSERT_NE(k, nullptr) << launch.instance->entry;
            cudaFuncAttributes attr{};
            CUDA_OK(cudaFuncGetAttributes(&attr, k));
            EXPECT_EQ(unsigned(attr.numRegs), launch.instance->registers) << launch.instance->entry;
            EXPECT_EQ(attr.sharedSizeBytes, launch.instance->shared_static) << launch.instance->entry;
            if (v.dynamic_shared_bytes > 48 * 1024)  // as the lab's launch does, or the runtime counts 0 blocks
                CUDA_OK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(v.dynamic_shared_bytes)));
            int blocks = -1;
            CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, int(v.bench_block), int(v.dynamic_shared_bytes)));
            EXPECT_EQ(unsigned(blocks), occ::occupancy(*arch, launch.usage).blocks_per_sm) << launch.instance->entry;
        }
    }
}

// Each version's kernel at every block size it can launch (multiples of 32, and
// two odd ones) and with dynamic shared memory up to the 48 KB a block gets
// without opting in: the runtime's blocks per SM equal the calculator's, given
// the driver's own register count.
TEST(GpuOccupancy, CalculatorAgreesBeyondTheKernelsOwnLaunches)
{
    REQUIRE_KNOWN_GPU(arch);
    unsigned compared = 0;
    for (const warplab::Lab& lab : warplab::all_labs()) {
        if (lab.host_programs) continue;
        const LabLibrary library(lab_ptx(lab.id));
        ASSERT_NE(library.lib, nullptr) << lab.id;
        for (const auto& v : lab.versions) {
            const occ::LaunchUsage launch = occ::launch_usage(lab.id, v.kernel, v.bench_block, lab.types.front());
            const void* k = library.kernel(launch.instance->mangled);
            ASSERT_NE(k, nullptr) << launch.instance->entry;
            cudaFuncAttributes attr{};
            CUDA_OK(cudaFuncGetAttributes(&attr, k));
            for (int block : {1, 33, 64, 96, 128, 160, 256, 384, 512, 640, 768, 1024}) {
                if (block > attr.maxThreadsPerBlock) continue;
                for (unsigned dynamic : {0u, 1u, 4000u, 12288u, 20000u, 40000u}) {
                    if (attr.sharedSizeBytes + dynamic > 48 * 1024) continue;
                    int blocks = -1;
                    CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, block, dynamic));
                    const occ::Usage use{unsigned(block), unsigned(attr.numRegs), unsigned(attr.sharedSizeBytes) + dynamic};
                    EXPECT_EQ(unsigned(blocks), occ::occupancy(*arch, use).blocks_per_sm)
                        << launch.instance->entry << ": " << block << " threads, " << attr.numRegs << " registers, "
                        << attr.sharedSizeBytes << " + " << dynamic << " bytes shared";
                    ++compared;
                }
            }
        }
    }
    EXPECT_GT(compared, 100u);
}

}  // namespace
#endif
