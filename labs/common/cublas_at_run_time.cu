// cuBLAS loaded when it is first called, not with the program: linked, its
// libcublasLt's initialisers cost every warplab process (a trace, a test,
// `--version`) about 70 ms and 26,000 page faults, GPU or not, where only the
// matmul lab's GPU benchmark calls it (labs/matmul/gpu_bench.cu). These are
// the functions it calls, each passing its call on to the library's own.
#include <cublas_v2.h>
#include <dlfcn.h>

#include <cuda_runtime_api.h>

#include <string>

namespace {

const std::string kLibrary = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);

// Where the program found libcudart, which the toolkit installs beside libcublas.
std::string beside_cudart()
{
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void*>(&cudaGetErrorString), &info) || !info.dli_fname) return "";
    const std::string cudart = info.dli_fname;
    const std::size_t slash = cudart.rfind('/');
    return slash == std::string::npos ? "" : cudart.substr(0, slash + 1) + kLibrary;
}

// The library, loaded at the first call (by its name, else beside libcudart);
// nullptr where neither loads, and why in `error`.
void* library(std::string& error)
{
    static std::string why;
    static void* const handle = [] {
        void* h = dlopen(kLibrary.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            why = dlerror();
            if (const std::string path = beside_cudart(); !path.empty()) h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        }
        return h;
    }();
    error = why;
    return handle;
}

// The library's function `name`, of type F; nullptr where it cannot be had.
template <class F> F* library_function(const char* name)
{
    std::string error;
    void* h = library(error);
    return h ? reinterpret_cast<F*>(dlsym(h, name)) : nullptr;
}

// What a function answers where the library cannot be loaded, as cuBLAS does
// before it is set up; cublasGetStatusString then says why.
constexpr cublasStatus_t kNotLoaded = CUBLAS_STATUS_NOT_INITIALIZED;

}  // namespace

extern "C" {

cublasStatus_t CUBLASWINAPI cublasCreate_v2(cublasHandle_t* handle)
{
    static const auto f = library_function<decltype(cublasCreate_v2)>("cublasCreate_v2");
    return f ? f(handle) : kNotLoaded;
}

cublasStatus_t CUBLASWINAPI cublasDestroy_v2(cublasHandle_t handle)
{
    static const auto f = library_function<decltype(cublasDestroy_v2)>("cublasDestroy_v2");
    return f ? f(handle) : kNotLoaded;
}

cublasStatus_t CUBLASWINAPI cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    static const auto f = library_function<decltype(cublasSetMathMode)>("cublasSetMathMode");
    return f ? f(handle, mode) : kNotLoaded;
}

cublasStatus_t CUBLASWINAPI cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                                           int k, const float* alpha, const float* A, int lda, const float* B, int ldb,
                                           const float* beta, float* C, int ldc)
{
    static const auto f = library_function<decltype(cublasSgemm_v2)>("cublasSgemm_v2");
    return f ? f(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc) : kNotLoaded;
}

// cublas_api.h also declares an inline C++ cublasGemmEx taking a cudaDataType: the type is this one's.
using GemmEx = cublasStatus_t(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*, const void*,
                              cudaDataType, int, const void*, cudaDataType, int, const void*, void*, cudaDataType, int,
                              cublasComputeType_t, cublasGemmAlgo_t);
cublasStatus_t CUBLASWINAPI cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                                         int k, const void* alpha, const void* A, cudaDataType Atype, int lda, const void* B,
                                         cudaDataType Btype, int ldb, const void* beta, void* C, cudaDataType Ctype, int ldc,
                                         cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
    static const auto f = library_function<GemmEx>("cublasGemmEx");
    return f ? f(handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc, computeType, algo)
             : kNotLoaded;
}

const char* CUBLASWINAPI cublasGetStatusString(cublasStatus_t status)
{
    static const auto f = library_function<decltype(cublasGetStatusString)>("cublasGetStatusString");
    if (f) return f(status);
    static const std::string why = [] {
        std::string error;
        library(error);
        return kLibrary + " could not be loaded: " + error;
    }();
    return why.c_str();
}

}  // extern "C"
