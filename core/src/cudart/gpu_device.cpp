// The program's modules, kernels and variables as nvcc's host code registered
// them with NVIDIA's runtime, and each watched launch run instrumented on the
// GPU (gpu_device.h). A module's PTX is read from its fat binary at
// registration and parsed at the first launch of one of its kernels.
#include "gpu_device.h"
#include "gpu_faults.h"

#include <deque>
#include <map>
#include <mutex>
#include <stdexcept>

#include "run_log.h"
#include "warplab/cudart/fatbin.h"
#include "warplab/trace/events.h"
#include "warplab/ptx/ptx.h"

namespace wl::cudart::gpu {

namespace {

struct Variable {
    const void* host_variable;
    std::string name;
    std::size_t bytes;
};

struct Module {
    std::string origin, text, error;  // error: why there is no PTX
    std::optional<ptx::Module> parsed;
    std::vector<Variable> variables;

    // The parsed PTX, or nullptr with `error` saying why.
    const ptx::Module* ptx()
    {
        if (parsed || !error.empty()) return parsed ? &*parsed : nullptr;
        try {
            parsed.emplace(ptx::Module::parse(text, origin));
        } catch (const std::exception& e) {
            error = e.what();
        }
        return parsed ? &*parsed : nullptr;
    }
};

struct Kernel {
    Module* module = nullptr;
    std::string mangled;
    unsigned launches = 0;
};

class Gpu {
public:
    std::mutex mutex;
    std::map<const void*, Module> modules;  // by the runtime's handle
    std::map<const void*, Kernel> kernels;  // by host function
    std::map<const void*, const void*> handles;  // __cudaGetKernel's handle -> host function
    unsigned launches = 0;
    RunLog log;
    LaunchFaults faults{[](const LaunchSite& s) { return launch_line(s.site, s.kernel_symbol); }};
};

Gpu& gpu()
{
    static Gpu* g = new Gpu;  // never destroyed: the program's atexit handlers may still launch
    return *g;
}

// The kernel's info in its module's PTX; throws why there is none.
const ptx::KernelInfo& kernel_info(Kernel& k)
{
    const ptx::Module* m = k.module->ptx();
    if (!m) throw std::invalid_argument("the PTX of " + k.module->origin + ": " + k.module->error);
    const ptx::KernelInfo* info = m->find(k.mangled);
    if (!info) throw std::invalid_argument("kernel " + k.mangled + " is not in " + k.module->origin + "'s PTX");
    return *info;
}

}  // namespace

void register_module(void** module, const void* fatbin_wrapper)
{
    Gpu& g = gpu();
    std::lock_guard lock(g.mutex);
    Module& m = g.modules[module];
    try {
        const std::vector<PtxEntry> entries = read_registered_fatbin(fatbin_wrapper);
        const PtxEntry* newest = nullptr;
        for (const PtxEntry& e : entries)
            if (!newest || e.arch > newest->arch) newest = &e;
        if (!newest) throw FatbinError("the program's fat binary holds no PTX: build it with -gencode arch=compute_90,code=compute_90");
        m.origin = newest->name.empty() ? "<program>" : newest->name;
        m.text = newest->text;
    } catch (const std::exception& e) {
        m.error = e.what();
    }
}

void register_kernel(void** module, const void* host_function, const char* mangled)
{
    Gpu& g = gpu();
    std::lock_guard lock(g.mutex);
    g.kernels[host_function] = Kernel{&g.modules[module], mangled, 0};
}

void register_variable(void** module, const void* host_variable, const char* name, std::size_t bytes)
{
    Gpu& g = gpu();
    std::lock_guard lock(g.mutex);
    g.modules[module].variables.push_back(Variable{host_variable, name, bytes});
}

void register_kernel_handle(const void* handle, const void* host_function)
{
    Gpu& g = gpu();
    std::lock_guard lock(g.mutex);
    g.handles[handle] = host_function;
}

const void* host_function_of(const void* handle)
{
    Gpu& g = gpu();
    std::lock_guard lock(g.mutex);
    const auto it = g.handles.find(handle);
    return it == g.handles.end() ? nullptr : it->second;
}

Launch begin_launch(const void* host_function, cuda::Dims grid, cuda::Dims block, std::size_t dynamic_shared,
                    const CallSite& site)
{
    Gpu& g = gpu();
    std::lock_guard lock(g.mutex);
    Launch l;
    LaunchRecord& r = l.record;
    r.index = ++g.launches;
    r.grid[0] = grid.x, r.grid[1] = grid.y, r.grid[2] = grid.z;
    r.block[0] = block.x, r.block[1] = block.y, r.block[2] = block.z;
    r.shared_bytes = dynamic_shared;
    r.on_gpu = true;
    const auto it = g.kernels.find(host_function);
    if (it == g.kernels.end()) {  // a kernel of a library's own: run as it is
        r.kernel = "(a kernel warplab did not see registered)";
        return l;
    }
    Kernel& k = it->second;
    l.kernel = &k;
    ++k.launches;
    r.kernel = k.mangled;
    r.host_line = launch_line(site, k.mangled);
    try {
        r.kernel = kernel_name(kernel_info(k));
    } catch (const std::invalid_argument&) {  // the launch says why when it is watched
    }
    l.watched_block = g.log.watched(r.kernel, k.mangled, k.launches);
    return l;
}

void trace_launch(Launch& launch, void** args, bool cooperative, const SymbolAddress& symbol_address)
{
    Gpu& g = gpu();
    std::lock_guard lock(g.mutex);
    Kernel& k = *static_cast<Kernel*>(const_cast<void*>(launch.kernel));
    const ptx::KernelInfo& info = kernel_info(k);
    // The instrumented copy is a module of its own: a function's address there is
    // not the program's, so neither may call through the other's (a vtable made by
    // one launch's `new`, a device function pointer the host copied out).
    if (k.module->text.find(".callprototype") != std::string::npos)
        throw std::invalid_argument("its module calls device functions through pointers (virtual functions, function "
                                    "tables), whose addresses an instrumented copy of the module does not share");
    std::vector<ptx::Arg> list;
    for (std::size_t i = 0; i < info.params.size(); ++i) {
        ptx::Arg a(0);
        const auto* bytes = static_cast<const unsigned char*>(args[i]);
        a.bytes.assign(bytes, bytes + info.params[i].bytes);
        list.push_back(std::move(a));
    }
    const LaunchRecord& r = launch.record;
    cuda::TraceLaunch t;
    t.module = k.module->ptx();
    t.kernel = k.mangled;
    t.grid = cuda::Dims(r.grid[0], r.grid[1], r.grid[2]);
    t.block = cuda::Dims(r.block[0], r.block[1], r.block[2]);
    t.dynamic_shared_bytes = static_cast<std::uint32_t>(r.shared_bytes);
    t.args = list;
    t.watched_blocks = {*launch.watched_block};
    t.cooperative = cooperative;
    for (const Variable& v : k.module->variables)
        if (void* address = symbol_address(v.host_variable)) t.variables.push_back({v.name, address, v.bytes});
    const std::vector<trace::LaneRecord> records = cuda::trace_on_gpu(t);
    launch.record.trace = "launch-" + std::to_string(r.index) + ".json";
    launch.record.watched_block = *launch.watched_block;
    g.log.write_trace(launch.record, k.module->origin, records, trace::kDefaultWarpSize);
}

void end_launch(const Launch& launch) { gpu().log.append(launch.record); }

void launch_given(const Launch& launch, const CallSite& site)
{
    Gpu& g = gpu();
    std::lock_guard lock(g.mutex);
    const auto* k = static_cast<const Kernel*>(launch.kernel);
    g.faults.launched(LaunchSite{launch.record, site, k ? k->mangled : std::string()});
}

void launches_finished()
{
    Gpu& g = gpu();
    std::lock_guard lock(g.mutex);
    g.faults.finished();
}

std::string launch_fault(const std::string& error)
{
    Gpu& g = gpu();
    std::lock_guard lock(g.mutex);
    return g.faults.blame(error);
}

}  // namespace wl::cudart::gpu
