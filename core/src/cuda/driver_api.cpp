// Loading the CUDA driver API at run time (driver_api.h).
#include "driver_api.h"

#include <dlfcn.h>

namespace wl::cuda::detail {
namespace {

#define WL_CUDA_STRING(x) #x
#define WL_CUDA_SYMBOL(x) WL_CUDA_STRING(x)  // expands cuda.h's version macros first

struct Loaded {
    DriverApi api;
    std::string why;  // empty when every function was found
};

Loaded load()
{
    Loaded out;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char* e = dlerror();
        out.why = std::string("no CUDA driver (") + (e ? e : "libcuda.so.1 not found") + ")";
        return out;
    }
#define WL_CUDA_DRIVER_LOAD(f)                                                                      \
    out.api.f = reinterpret_cast<decltype(out.api.f)>(dlsym(lib, WL_CUDA_SYMBOL(f)));               \
    if (!out.api.f && out.why.empty()) out.why = "the CUDA driver lacks " WL_CUDA_SYMBOL(f) " (too old?)";
    WL_CUDA_DRIVER_FUNCTIONS(WL_CUDA_DRIVER_LOAD)
#undef WL_CUDA_DRIVER_LOAD
    return out;
}

}  // namespace

const DriverApi* load_driver(std::string& why)
{
    static const Loaded loaded = load();  // once per process; the library stays loaded
    why = loaded.why;
    return loaded.why.empty() ? &loaded.api : nullptr;
}

}  // namespace wl::cuda::detail
