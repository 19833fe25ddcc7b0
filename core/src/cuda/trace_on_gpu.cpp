// wl::cuda::trace_on_gpu: load the instrumented PTX with the driver API,
// launch it once, read the watched blocks' records back, and give them the
// (array, offset) form the emulator gives them.
//
// The runtime API (cudaMalloc of the arguments) and the driver API share the
// device's primary context: the trace retains it and makes it current, as the
// runtime does. Only the driver API is included: the runtime's headers would
// clash with the emulator's CUDA names, which ptx.h brings in.
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "../ptx/statements.h"
#include "driver_api.h"
#include "ptx_instrument.h"
#include "warplab/cuda/deadline.h"
#include "warplab/cuda/ptx_trace.h"
#include "warplab/ptx/ptx.h"

namespace wl::cuda {
namespace {

using trace::LaneRecord;

// The driver's functions; throws when there is no usable driver.
const detail::DriverApi& drv()
{
    std::string why;
    const detail::DriverApi* api = detail::load_driver(why);
    if (!api) throw std::runtime_error(why);
    return *api;
}

void check(CUresult r, const char* what)
{
    if (r == CUDA_SUCCESS) return;
    const char* name = nullptr;
    const char* text = nullptr;
    drv().cuGetErrorName(r, &name);
    drv().cuGetErrorString(r, &text);
    throw std::runtime_error(std::string(what) + ": " + (name ? name : "CUDA error") + " (" + (text ? text : "") + ")");
}

// Waits for the launch, as cuCtxSynchronize, within the GPU deadline (deadline.h).
void finish_within_deadline(const std::string& kernel)
{
    CUevent done = nullptr;
    check(drv().cuEventCreate(&done, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    check(drv().cuEventRecord(done, nullptr), "cuEventRecord");
    wait_within_deadline(
        [&] {
            const CUresult r = drv().cuEventQuery(done);
            if (r == CUDA_ERROR_NOT_READY) return false;
            check(r, kernel.c_str());
            return true;
        },
        kernel);
    drv().cuEventDestroy(done);
    check(drv().cuCtxSynchronize(), kernel.c_str());
}

// The context current on this thread (the runtime's, once it has run), else
// device 0's primary context, retained once for the process.
void use_primary_context()
{
    check(drv().cuInit(0), "cuInit");
    CUcontext ctx = nullptr;
    check(drv().cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
    if (ctx) return;
    static CUcontext primary = [] {
        CUdevice dev = 0;
        CUcontext c = nullptr;
        check(drv().cuDeviceGet(&dev, 0), "cuDeviceGet");
        check(drv().cuDevicePrimaryCtxRetain(&c, dev), "cuDevicePrimaryCtxRetain");
        return c;
    }();
    check(drv().cuCtxSetCurrent(primary), "cuCtxSetCurrent");
}

// JIT-compiles PTX text (instrumented, or a user's kernel as it is); modules
// are kept for the process's lifetime, one per distinct text (the lab's tests
// trace each version several times, and a benchmark launches one kernel many times).
CUmodule load_module(const std::string& text, const std::string& what)
{
    static std::mutex mutex;
    static std::map<std::string, CUmodule, std::less<>> loaded;
    std::lock_guard lock(mutex);
    if (auto it = loaded.find(text); it != loaded.end()) return it->second;
    std::vector<char> log(16384, '\0');
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {log.data(), reinterpret_cast<void*>(static_cast<std::uintptr_t>(log.size()))};
    CUmodule module = nullptr;
    const CUresult r = drv().cuModuleLoadDataEx(&module, text.c_str(), 2, options, values);
    if (r != CUDA_SUCCESS) {
        const char* name = nullptr;
        drv().cuGetErrorName(r, &name);
        throw std::runtime_error("the GPU driver rejected the PTX of " + what + " (" + (name ? name : "error") +
                                 "): " + std::string(log.data()));
    }
    loaded.emplace(text, module);
    return module;
}

// Device memory freed when the trace is done, whatever happens.
class DeviceBuffer {
public:
    explicit DeviceBuffer(std::size_t bytes)
    {
        check(drv().cuMemAlloc(&ptr_, std::max<std::size_t>(bytes, 16)), "cuMemAlloc (trace buffer)");
    }
    ~DeviceBuffer()
    {
        if (!gpu_abandoned()) drv().cuMemFree(ptr_);  // the driver was loaded to allocate; deadline.h
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    CUdeviceptr get() const { return ptr_; }

private:
    CUdeviceptr ptr_ = 0;
};

// A generous record buffer: a quarter of the free memory, at most 2^26
// records (3.5 GiB); an overflow is reported with the count it needed.
std::uint32_t record_capacity()
{
    std::size_t free_bytes = 0, total_bytes = 0;
    check(drv().cuMemGetInfo(&free_bytes, &total_bytes), "cuMemGetInfo");
    return static_cast<std::uint32_t>(std::min<std::size_t>(free_bytes / 4 / sizeof(LaneRecord), std::size_t(1) << 26));
}

// Whether a device allocation holds the address, and which.
bool device_allocation(std::uint64_t address, std::uint64_t& base, std::uint64_t& bytes)
{
    CUdeviceptr b = 0;
    std::size_t size = 0;
    if (drv().cuMemGetAddressRange(&b, &size, static_cast<CUdeviceptr>(address)) != CUDA_SUCCESS) return false;
    base = b;
    bytes = size;
    return true;
}

// Every pointer argument that points into a device allocation (or just past
// its end), by the emulator's rule (statements.h).
std::vector<detail::PointerArg> pointer_args(const ptx::KernelInfo& k, std::span<const ptx::Arg> args)
{
    std::vector<detail::PointerArg> out;
    for (std::size_t i = 0; i < k.params.size() && i < 255; ++i) {
        if (!k.params[i].is_pointer || args[i].bytes.size() != 8) continue;
        detail::PointerArg p;
        p.position = static_cast<std::uint8_t>(i);
        std::memcpy(&p.value, args[i].bytes.data(), 8);
        const auto end = ptx::detail::pointed_allocation_end(p.value, device_allocation);
        if (!end) continue;
        p.alloc_end = *end;
        out.push_back(p);
    }
    return out;
}

void check_arguments(const ptx::KernelInfo& k, std::span<const ptx::Arg> args)
{
    std::string sizes;
    bool fits = args.size() == k.params.size();
    for (std::size_t i = 0; i < k.params.size(); ++i) {
        sizes += (i ? ", " : "") + std::to_string(k.params[i].bytes);
        if (fits && args[i].bytes.size() != k.params[i].bytes) fits = false;
    }
    if (!fits)
        throw std::invalid_argument("kernel " + k.demangled + " takes " + std::to_string(k.params.size()) +
                                    " parameters (" + sizes + " bytes); the arguments given do not match");
}

CUdeviceptr device_ptr(const void* p) { return static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(p)); }

// Launches fn with the launch's shape and arguments on the default stream (the
// runtime's too, so CUDA events time it); returns without waiting.
void launch_function(CUfunction fn, const TraceLaunch& launch, const ptx::KernelInfo& k)
{
    std::vector<void*> params;
    for (const ptx::Arg& a : launch.args) params.push_back(const_cast<unsigned char*>(a.bytes.data()));
    if (launch.dynamic_shared_bytes > 48 * 1024)
        check(drv().cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(launch.dynamic_shared_bytes)),
              "cuFuncSetAttribute (dynamic shared memory)");
    if (launch.cooperative)
        check(drv().cuLaunchCooperativeKernel(fn, launch.grid.x, launch.grid.y, launch.grid.z, launch.block.x, launch.block.y,
                                              launch.block.z, launch.dynamic_shared_bytes, nullptr, params.data()),
              ("cuLaunchCooperativeKernel " + k.demangled).c_str());
    else
        check(drv().cuLaunchKernel(fn, launch.grid.x, launch.grid.y, launch.grid.z, launch.block.x, launch.block.y,
                                   launch.block.z, launch.dynamic_shared_bytes, nullptr, params.data(), nullptr),
              ("cuLaunchKernel " + k.demangled).c_str());
}

// Copies the program's variables into the module's (into_module) or back.
void copy_variables(CUmodule module, std::span<const ProgramVariable> variables, bool into_module)
{
    for (const ProgramVariable& v : variables) {
        CUdeviceptr own = 0;
        std::size_t own_bytes = 0;
        check(drv().cuModuleGetGlobal(&own, &own_bytes, module, v.name.c_str()), ("cuModuleGetGlobal " + v.name).c_str());
        const CUdeviceptr program = device_ptr(v.address);
        const std::size_t bytes = std::min(own_bytes, v.bytes);
        check(into_module ? drv().cuMemcpyDtoD(own, program, bytes) : drv().cuMemcpyDtoD(program, own, bytes),
              ("cuMemcpyDtoD " + v.name).c_str());
    }
}

// The launch's kernel in its module, with arguments that fit it.
const ptx::KernelInfo& checked_kernel(const TraceLaunch& launch)
{
    if (!launch.module) throw std::invalid_argument("no PTX module to launch");
    const ptx::KernelInfo* k = launch.module->find(launch.kernel);
    if (!k) throw std::invalid_argument("no kernel " + launch.kernel + " in " + launch.module->origin());
    check_arguments(*k, launch.args);
    return *k;
}

}  // namespace

std::string gpu_unavailable_reason()
{
    std::string why;
    if (!detail::load_driver(why)) return why;
    const CUresult init = drv().cuInit(0);
    if (init != CUDA_SUCCESS) {
        const char* text = nullptr;
        drv().cuGetErrorString(init, &text);
        return std::string("no CUDA driver or device: ") + (text ? text : "cuInit failed");
    }
    int count = 0;
    if (drv().cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) return "no CUDA device";
    return "";
}

void* device_alloc(std::size_t bytes)
{
    use_primary_context();
    CUdeviceptr p = 0;
    check(drv().cuMemAlloc(&p, std::max<std::size_t>(bytes, 1)), "cuMemAlloc");
    return reinterpret_cast<void*>(static_cast<std::uintptr_t>(p));
}

void device_free(void* p) noexcept
{
    if (gpu_abandoned()) return;  // deadline.h
    std::string why;
    if (const detail::DriverApi* api = detail::load_driver(why); p && api) api->cuMemFree(device_ptr(p));
}

void copy_to_device(void* dst, const void* src, std::size_t bytes)
{
    use_primary_context();
    check(drv().cuMemcpyHtoD(device_ptr(dst), src, bytes), "cuMemcpyHtoD");
}

void copy_to_host(void* dst, const void* src, std::size_t bytes)
{
    use_primary_context();
    check(drv().cuMemcpyDtoH(dst, device_ptr(src), bytes), "cuMemcpyDtoH");
}

std::string instrument(const ptx::Module& module, std::string_view kernel)
{
    const ptx::KernelInfo* k = module.find(kernel);
    if (!k) throw std::invalid_argument("no kernel " + std::string(kernel) + " in " + module.origin());
    return detail::instrument_ptx(module.text(), k->mangled).text;
}

GpuKernel::GpuKernel(const ptx::Module& module, std::string_view kernel) : info_(module.find(kernel))
{
    if (!info_) throw std::invalid_argument("no kernel " + std::string(kernel) + " in " + module.origin());
    use_primary_context();
    CUfunction fn = nullptr;
    check(drv().cuModuleGetFunction(&fn, load_module(module.text(), info_->demangled), info_->mangled.c_str()),
          "cuModuleGetFunction");
    function_ = fn;
}

void GpuKernel::launch(Dims grid, Dims block, std::span<const ptx::Arg> args, std::uint32_t dynamic_shared_bytes) const
{
    check_arguments(*info_, args);
    launch_function(static_cast<CUfunction>(function_), {nullptr, "", grid, block, dynamic_shared_bytes, args, {}, {}, false}, *info_);
}

std::vector<LaneRecord> trace_on_gpu(const TraceLaunch& launch)
{
    const ptx::KernelInfo* k = &checked_kernel(launch);
    const std::uint64_t blocks = std::uint64_t(launch.grid.x) * launch.grid.y * launch.grid.z;
    const std::uint32_t threads = launch.block.x * launch.block.y * launch.block.z;
    for (std::uint32_t b : launch.watched_blocks)
        if (b >= blocks)
            throw std::invalid_argument("watched block " + std::to_string(b) + " is outside the grid of " +
                                        std::to_string(blocks) + " blocks");

    const detail::InstrumentedPtx ptx = detail::instrument_ptx(launch.module->text(), k->mangled);
    if (ptx.shared.size() != k->shared.size())
        throw std::logic_error("the instrumenter found " + std::to_string(ptx.shared.size()) + " shared variables in " +
                               k->demangled + ", the PTX parser " + std::to_string(k->shared.size()));
    use_primary_context();
    const CUmodule module = load_module(ptx.text, "the instrumented " + ptx.entry);
    CUfunction fn = nullptr;
    check(drv().cuModuleGetFunction(&fn, module, ptx.entry.c_str()), "cuModuleGetFunction");
    CUdeviceptr control = 0;
    std::size_t control_bytes = 0;
    check(drv().cuModuleGetGlobal(&control, &control_bytes, module, detail::kControlSymbol), "cuModuleGetGlobal");

    // Which blocks are watched, and where each watched lane keeps {seq, epoch, sub}.
    std::vector<std::uint32_t> slot_of_block(blocks, detail::kNotWatched);
    for (std::size_t i = 0; i < launch.watched_blocks.size(); ++i)
        slot_of_block[launch.watched_blocks[i]] = static_cast<std::uint32_t>(i);
    DeviceBuffer slots(blocks * sizeof(std::uint32_t));
    check(drv().cuMemcpyHtoD(slots.get(), slot_of_block.data(), blocks * sizeof(std::uint32_t)), "cuMemcpyHtoD");
    const std::size_t state_bytes = launch.watched_blocks.size() * threads * detail::kLaneStateBytes;
    DeviceBuffer lane_state(state_bytes);
    check(drv().cuMemsetD8(lane_state.get(), 0, std::max<std::size_t>(state_bytes, 16)), "cuMemsetD8");
    const std::uint32_t capacity = record_capacity();
    DeviceBuffer records(std::size_t(capacity) * sizeof(LaneRecord));

    std::vector<unsigned char> ctl(control_bytes, 0);
    detail::Control head{records.get(), capacity, 0, slots.get(), lane_state.get()};
    std::memcpy(ctl.data(), &head, sizeof head);
    check(drv().cuMemcpyHtoD(control, ctl.data(), ctl.size()), "cuMemcpyHtoD");

    copy_variables(module, launch.variables, true);
    launch_function(fn, launch, *k);
    finish_within_deadline(k->demangled + " (instrumented for the trace)");
    copy_variables(module, launch.variables, false);

    check(drv().cuMemcpyDtoH(ctl.data(), control, ctl.size()), "cuMemcpyDtoH");
    std::memcpy(&head, ctl.data(), sizeof head);
    if (head.count > capacity)
        throw std::runtime_error("the trace of " + k->demangled + " needs " + std::to_string(head.count) +
                                 " records; the buffer holds " + std::to_string(capacity));
    std::vector<LaneRecord> out(head.count);
    if (head.count) check(drv().cuMemcpyDtoH(out.data(), records.get(), out.size() * sizeof(LaneRecord)), "cuMemcpyDtoH");

    std::vector<std::uint32_t> bases(ptx.shared.size());
    std::memcpy(bases.data(), ctl.data() + sizeof(detail::Control), bases.size() * sizeof(std::uint32_t));
    detail::LaunchFacts facts;
    facts.shared = detail::shared_slots(*k, ptx, bases, launch.dynamic_shared_bytes);
    facts.constants = detail::constant_slots(ptx, ctl.data());
    facts.pointers = pointer_args(*k, launch.args);
    facts.allocation_of = [](std::uint64_t address, std::uint64_t& base) {
        std::uint64_t bytes = 0;
        return device_allocation(address, base, bytes);
    };
    facts.watched_blocks = launch.watched_blocks;
    facts.declared_line = ptx.declared_line;
    facts.declared_file_hash = ptx.declared_file_hash;
    return detail::finish_records(std::move(out), facts);
}

}  // namespace wl::cuda
