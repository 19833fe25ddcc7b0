// The emulated device (device.h): the program's modules read from its fat
// binaries, its kernels and variables by the host addresses nvcc's host code
// registered, device memory on the emulator, and each launch run there,
// timed, and (where $WARPLAB_RUN_DIR is set) recorded for `warplab run`.
#include "device.h"
#include "host_access.h"
#include "run_log.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "warplab/cudart/fatbin.h"
#include "warplab/cudart/run_record.h"
#include "warplab/emu/emulator.h"
#include "warplab/occupancy.h"
#include "warplab/ptx/kernel_file.h"
#include "warplab/ptx/ptx.h"

namespace wl::cudart {

namespace {

constexpr std::size_t kDefaultDynamicShared = 48 * 1024;  // without cudaFuncSetAttribute's opt-in

struct ModuleRecord {
    std::string origin;  // the source file the fat binary's PTX was made from
    std::optional<ptx::Module> module;
    std::string error;  // why there is none
};

struct Kernel {
    const ModuleRecord* module = nullptr;
    std::string mangled, name;  // name: demangled, without parameters
    const ptx::KernelInfo* info = nullptr;
    std::size_t max_dynamic_shared = kDefaultDynamicShared;
    unsigned launches = 0;
};

struct Variable {
    const ModuleRecord* module = nullptr;
    std::string name;
};

enum class Region { Device, Managed, Host, Array, Variable };
struct Allocation {
    std::size_t bytes;
    Region region;
    CallSite site;  // the program's call that allocated it
    bool managed_variable = false;  // a __managed__ variable (Region::Variable): the host reads it in place
};

class Device {
public:
    std::mutex mutex;
    emu::Emulator emu;
    std::deque<ModuleRecord> modules;  // a deque: records stay where the handles point
    std::map<const void*, Kernel> kernels;
    std::map<const void*, Variable> variables;
    std::map<std::uintptr_t, Allocation> allocations;
    bool faulted = false;  // a kernel fault: the context is lost, nothing more can be freed
    double clock_ms = 0;
    unsigned launches = 0;
    unsigned results_read_after = 0;  // the launches before the last ResultRead logged: one a launch
    RunLog log;
    std::optional<InjectedFailure> injected = injected_failure();  // warplab run --fail
    unsigned device_allocations = 0;                                // made so far, for --fail alloc:N
    std::set<std::string> warned;  // the warnings printed, by site and text: a host loop's launches repeat them

    // The allocation holding p, if any.
    std::optional<std::pair<std::uintptr_t, Allocation>> allocation_at(const void* p) const
    {
        const auto a = reinterpret_cast<std::uintptr_t>(p);
        auto it = allocations.upper_bound(a);
        if (it == allocations.begin()) return std::nullopt;
        --it;
        if (a >= it->first + std::max<std::size_t>(it->second.bytes, 1)) return std::nullopt;
        return *it;
    }
};

// The host reads the device's results after the launches so far (run_record.h's ResultRead): logged once a launch.
void result_read(Device& d, const char* call)
{
    if (d.launches == 0 || d.results_read_after == d.launches) return;
    d.results_read_after = d.launches;
    d.log.append(ResultRead{d.launches, call});
}

Region region_of(Memory kind)
{
    switch (kind) {
    case Memory::Device: return Region::Device;
    case Memory::Managed: return Region::Managed;
    case Memory::Host: return Region::Host;
    case Memory::Array: return Region::Array;
    }
    return Region::Device;
}

Device& device()
{
    static Device* d = new Device;  // never destroyed: the program's atexit handlers may still call in
    return *d;
}

const char* region_name(Region r)
{
    switch (r) {
    case Region::Device: return "cudaMalloc";
    case Region::Managed: return "cudaMallocManaged";
    case Region::Host: return "cudaMallocHost";
    case Region::Array: return "cudaMallocArray";
    case Region::Variable: return "a __device__ variable's";
    }
    return "";
}

// [p, p + bytes) in one allocation, or host memory; `must_be_device`: an allocation.
void check_range(const Device& d, const void* p, std::size_t bytes, bool must_be_device, const char* call, const char* side)
{
    const auto a = d.allocation_at(p);
    if (!a && must_be_device) {
        const std::string freed = freed_note(p);
        throw Failure(Error::InvalidValue, std::string(call) + ": the " + side +
                                               (freed.empty() ? " is not device memory (no cudaMalloc returned it)" : " was freed" + freed));
    }
    if (!a) return;
    const std::size_t at = reinterpret_cast<std::uintptr_t>(p) - a->first;
    if (bytes > a->second.bytes - at)
        throw Failure(Error::InvalidValue, std::string(call) + ": " + std::to_string(bytes) + " bytes from byte " + std::to_string(at) +
                                               " of the " + side + "'s " + std::to_string(a->second.bytes) +
                                               "-byte allocation run past its end");
}

// The type of the kernel's i-th parameter, from its demangled signature ("const float*"); "" if it has none.
std::string parameter_type(const ptx::KernelInfo& info, std::size_t i)
{
    const std::string& s = info.demangled;
    std::size_t at = s.find('('), depth = 0, k = 0;
    if (at == std::string::npos) return "";
    std::string type;
    for (++at; at < s.size(); ++at) {
        const char c = s[at];
        if (depth == 0 && (c == ',' || c == ')')) {
            if (k++ == i) return type.substr(type.find_first_not_of(' '));
            type.clear();
            if (c == ')') break;
            continue;
        }
        depth += c == '<' || c == '(';
        depth -= c == '>' || c == ')';
        type += c;
    }
    return "";
}

std::string hex(std::uint64_t v)
{
    char s[24];
    std::snprintf(s, sizeof s, "%llx", static_cast<unsigned long long>(v));
    return s;
}

void check_configuration(const Kernel& k, Dims grid, Dims block, std::size_t dynamic_shared)
{
    const DeviceLimits& lim = device_limits();
    const std::uint64_t threads = std::uint64_t(block.x) * block.y * block.z;
    std::string why;
    if (threads == 0 || grid.x == 0 || grid.y == 0 || grid.z == 0) why = "an empty grid or block";
    else if (threads > unsigned(lim.max_threads_per_block))
        why = std::to_string(threads) + " threads a block; a block holds at most " + std::to_string(lim.max_threads_per_block);
    else if (block.x > unsigned(lim.max_block_dims[0]) || block.y > unsigned(lim.max_block_dims[1]) || block.z > unsigned(lim.max_block_dims[2]))
        why = "a block of (" + std::to_string(block.x) + "," + std::to_string(block.y) + "," + std::to_string(block.z) + "); at most (1024,1024,64)";
    else if (grid.x > unsigned(lim.max_grid_dims[0]) || grid.y > unsigned(lim.max_grid_dims[1]) || grid.z > unsigned(lim.max_grid_dims[2]))
        why = "a grid of (" + std::to_string(grid.x) + "," + std::to_string(grid.y) + "," + std::to_string(grid.z) + "); at most (2147483647,65535,65535)";
    if (!why.empty())
        throw Failure(Error::InvalidConfiguration, "kernel " + k.name + " launched with " + why + " (cudaErrorInvalidConfiguration)");
    if (dynamic_shared > k.max_dynamic_shared)
        throw Failure(Error::InvalidValue, "kernel " + k.name + " launched with " + std::to_string(dynamic_shared) +
                                               " bytes of dynamic shared memory; it may take " + std::to_string(k.max_dynamic_shared) +
                                               (k.max_dynamic_shared == kDefaultDynamicShared
                                                    ? " unless cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize) raises it"
                                                    : "") +
                                               " (cudaErrorInvalidValue)");
}

// A cooperative grid must fit on the device at once: blocks_per_sm on each multiprocessor.
void check_resident(const Kernel& k, Dims grid, Dims block, std::size_t dynamic_shared)
{
    const std::uint64_t blocks = std::uint64_t(grid.x) * grid.y * grid.z;
    const int per_sm = blocks_per_sm(&k, int(block.x * block.y * block.z), dynamic_shared);
    const std::uint64_t fits = std::uint64_t(per_sm) * unsigned(device_limits().multiprocessors);
    if (blocks > fits)
        throw Failure(Error::CooperativeLaunchTooLarge,
                      "kernel " + k.name + " launched cooperatively with " + std::to_string(blocks) + " blocks; the device holds " +
                          std::to_string(fits) + " of them at once (" + std::to_string(per_sm) + " a multiprocessor, " +
                          std::to_string(device_limits().multiprocessors) + " multiprocessors) (cudaErrorCooperativeLaunchTooLarge)");
}

// A kernel that faulted on an address in no allocation, given a host pointer
// as an argument: which argument (its type from the kernel's signature).
std::string host_pointer_note(const Kernel& k, const std::vector<ptx::Arg>& args, const std::string& what)
{
    const auto at = what.find("address 0x");
    if (at == std::string::npos || what.find("is in no emulator allocation", at) == std::string::npos) return "";
    const std::uint64_t addr = std::strtoull(what.c_str() + at + 10, nullptr, 16);
    constexpr std::uint64_t kReach = std::uint64_t(1) << 30;  // how far past the pointer an index may reach
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i].bytes.size() != 8) continue;
        std::uint64_t v;
        std::memcpy(&v, args[i].bytes.data(), 8);
        if (v == 0 || addr < v || addr - v >= kReach || device().allocation_at(reinterpret_cast<const void*>(v))) continue;
        if (const std::string freed = freed_note(reinterpret_cast<const void*>(v)); !freed.empty())
            return "; argument " + std::to_string(i) + " (" + parameter_type(*k.info, i) + ") points into memory freed" + freed;
        return "; argument " + std::to_string(i) + " (" + parameter_type(*k.info, i) + ") is 0x" + hex(v) +
               ", host memory: a kernel cannot use a host pointer (pass memory from cudaMalloc, or copy the data there)";
    }
    return "";
}

// At exit, after the program's own static destructors (which may free):
// what it allocated and never freed (not after a kernel fault, which loses the context).
[[gnu::destructor]] void report_leaks()
{
    Device& d = device();
    std::lock_guard lock(d.mutex);
    if (d.faulted) return;
    std::string list;
    unsigned count = 0;
    for (const auto& [base, a] : d.allocations) {
        if (a.region == Region::Variable) continue;
        const std::string line = host_line(a.site);
        list += std::string(count++ ? "; " : "") + std::to_string(a.bytes) + " bytes from " + region_name(a.region) +
                (line.empty() ? "" : " at " + line);
    }
    if (count)
        std::fprintf(stderr, "warplab: warning: %u allocation%s never freed: %s\n", count, count == 1 ? "" : "s", list.c_str());
}

Kernel& kernel_record(const void* kernel) { return *const_cast<Kernel*>(static_cast<const Kernel*>(kernel)); }

}  // namespace

const DeviceLimits& device_limits()
{
    static const DeviceLimits limits = [] {
        const occupancy::Arch& h100 = *occupancy::find_arch("h100");
        DeviceLimits l{};
        l.name = "warplab emulator (an H100's limits, emulated)";
        l.major = int(h100.sm / 10), l.minor = int(h100.sm % 10);
        l.warp_size = int(h100.warp_size);
        l.max_threads_per_block = int(h100.max_threads_per_block);
        l.max_block_dims[0] = 1024, l.max_block_dims[1] = 1024, l.max_block_dims[2] = 64;
        l.max_grid_dims[0] = 2147483647, l.max_grid_dims[1] = 65535, l.max_grid_dims[2] = 65535;
        l.max_threads_per_sm = int(h100.max_threads_per_sm);
        l.max_blocks_per_sm = int(h100.max_blocks_per_sm);
        l.registers_per_sm = int(h100.registers_per_sm);
        l.registers_per_block = int(h100.max_registers_per_block);
        l.shared_per_block = kDefaultDynamicShared;
        l.shared_per_block_optin = h100.shared_per_block;
        l.shared_per_sm = h100.shared_per_sm;
        l.reserved_shared_per_block = h100.shared_reserved_per_block;
        // NVIDIA's H100 SXM5 data sheet: 132 SMs, 80 GB of HBM3 on a 5120-bit bus, 50 MB of L2; 64 KB of constant memory.
        l.multiprocessors = 132;
        l.global_bytes = std::size_t(80) << 30;
        l.constant_bytes = 64 * 1024;
        l.l2_bytes = std::size_t(50) << 20;
        l.memory_bus_width = 5120;
        return l;
    }();
    return limits;
}

void* register_module(const void* fatbin_wrapper)
{
    Device& d = device();
    std::lock_guard lock(d.mutex);
    ModuleRecord& m = d.modules.emplace_back();
    try {
        const std::vector<PtxEntry> entries = read_registered_fatbin(fatbin_wrapper);
        const auto newest = std::max_element(entries.begin(), entries.end(), [](const PtxEntry& a, const PtxEntry& b) { return a.arch < b.arch; });
        if (newest == entries.end())
            throw FatbinError("the program's fat binary holds no PTX: build it with -gencode arch=compute_90,code=compute_90");
        m.origin = newest->name.empty() ? "<program>" : newest->name;
        m.module.emplace(ptx::Module::parse(newest->text, m.origin));
        ptx::name_parameters_from_sources(*m.module);  // faults say total[0], not argument 1[0]
    } catch (const std::exception& e) {
        m.error = e.what();
    }
    return &m;
}

void register_kernel(void* module, const void* host_function, const char* mangled)
{
    Device& d = device();
    std::lock_guard lock(d.mutex);
    const auto* m = static_cast<const ModuleRecord*>(module);
    Kernel k;
    k.module = m;
    k.mangled = mangled;
    k.name = k.mangled;
    if (m->module) {
        k.info = m->module->find(k.mangled);
        if (k.info) k.name = kernel_name(*k.info);
    }
    d.kernels[host_function] = std::move(k);
}

void register_variable(void* module, const void* host_variable, const char* name, std::size_t bytes)
{
    Device& d = device();
    std::lock_guard lock(d.mutex);
    const auto* m = static_cast<const ModuleRecord*>(module);
    d.variables[host_variable] = Variable{m, name};
    if (!m->module) return;
    const std::span<unsigned char> storage = m->module->symbol(name);
    if (!storage.empty()) d.allocations[reinterpret_cast<std::uintptr_t>(storage.data())] = Allocation{std::min(bytes, storage.size()), Region::Variable, {}, false};
}

void* register_managed_variable(void* module, const void* host_variable, const char* name, std::size_t bytes)
{
    const auto* m = static_cast<const ModuleRecord*>(module);
    register_variable(module, host_variable, name, bytes);
    unsigned char* storage = m->module ? m->module->symbol(name).data() : nullptr;
    if (!storage) {  // host code reaches the variable through this address, from its first use: it cannot run
        std::fprintf(stderr, "warplab: __managed__ variable %s: %s\n", name,
                     m->module ? ("not in " + m->origin + "'s PTX").c_str() : m->error.c_str());
        std::exit(1);
    }
    Device& d = device();
    std::lock_guard lock(d.mutex);
    if (const auto it = d.allocations.find(reinterpret_cast<std::uintptr_t>(storage)); it != d.allocations.end())
        it->second.managed_variable = true;
    return storage;
}

const void* kernel_of(const void* host_function)
{
    Device& d = device();
    std::lock_guard lock(d.mutex);
    const auto it = d.kernels.find(host_function);
    if (it == d.kernels.end())
        throw Failure(Error::InvalidDeviceFunction, "a launch of a function that is no registered __global__ function");
    return &it->second;
}

void launch(const void* kernel, Dims grid, Dims block, void** args, std::size_t dynamic_shared, bool cooperative,
            const CallSite& site)
{
    Device& d = device();
    std::lock_guard lock(d.mutex);
    Kernel& k = kernel_record(kernel);
    if (!k.module->module) throw Failure(Error::InvalidPtx, "kernel " + k.name + ": " + k.module->error);
    if (!k.info) throw Failure(Error::InvalidDeviceFunction, "kernel " + k.name + " is not in " + k.module->origin + "'s PTX");
    std::vector<ptx::Arg> list;
    for (std::size_t i = 0; i < k.info->params.size(); ++i) {
        ptx::Arg a(0);
        const auto* bytes = static_cast<const unsigned char*>(args[i]);
        a.bytes.assign(bytes, bytes + k.info->params[i].bytes);
        list.push_back(std::move(a));
    }
    ++k.launches;
    LaunchRecord r;
    r.index = ++d.launches;
    r.kernel = k.name;
    r.grid[0] = grid.x, r.grid[1] = grid.y, r.grid[2] = grid.z;
    r.block[0] = block.x, r.block[1] = block.y, r.block[2] = block.z;
    r.shared_bytes = dynamic_shared;
    r.host_line = launch_line(site, k.mangled);
    try {
        check_configuration(k, grid, block, dynamic_shared);
        if (cooperative) check_resident(k, grid, block, dynamic_shared);
    } catch (const Failure& f) {  // not run, as on a GPU; listed with its error
        r.error = f.what();
        d.log.append(r);
        throw;
    }
    if (d.injected && d.injected->call == InjectedFailure::Call::Launch && d.injected->nth == r.index) {
        r.error = injected_failure_text(*d.injected, k.name);
        d.log.append(r);
        d.faulted = true;
        throw Failure(Error::LaunchFailure, "launch " + std::to_string(r.index) + ": " + r.error);
    }
    const std::optional<std::uint32_t> watched = d.log.watched(k.name, k.mangled, k.launches);
    d.emu.options.record = watched.has_value();
    d.emu.options.watched_blocks = {watched.value_or(0)};
    d.emu.options.cooperative = cooperative;
    d.emu.options.engine = d.log.engine();
    const auto start = std::chrono::steady_clock::now();
    const std::uint64_t instructions_before = emu::lane_instructions_run();
    const std::uint64_t fast_before = d.emu.launches_on(emu::Engine::Fast);
    std::optional<Failure> failure;
    OpenMemory open;
    launched();
    try {
        ptx::launch_args(d.emu, *k.module->module, k.mangled, dim3(grid.x, grid.y, grid.z), dim3(block.x, block.y, block.z),
                         static_cast<std::uint32_t>(dynamic_shared), list);
    } catch (const emu::KernelFault& e) {
        failure.emplace(Error::LaunchFailure, std::string("kernel fault: ") + e.what() + host_pointer_note(k, list, e.fault.what));
        d.faulted = true;
    } catch (const emu::LaunchError& e) {
        failure.emplace(Error::InvalidValue, std::string("kernel ") + k.name + ": " + e.what());
    }
    r.emulated_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    r.lane_instructions = emu::lane_instructions_run() - instructions_before;
    r.engine = emu::to_string(d.emu.launches_on(emu::Engine::Fast) > fast_before ? emu::Engine::Fast : emu::Engine::Interpret);
    d.clock_ms += r.emulated_ms;
    for (const emu::Warning& w : d.emu.take_warnings())
        if (d.warned.insert(w.at.file + ":" + std::to_string(w.at.line) + ": " + w.at.what).second)
            std::fprintf(stderr, "warplab: warning: %s (%llu times in launch %u; later launches' are not repeated)\n",
                         w.at.message().c_str(), static_cast<unsigned long long>(w.count), r.index);
    std::vector<trace::LaneRecord> records = d.emu.take_records();
    if (failure) r.error = failure->what();
    if (watched && !records.empty()) {
        r.trace = "launch-" + std::to_string(r.index) + ".json";
        r.watched_block = *watched;
        d.log.write_trace(r, k.module->origin, records, d.emu.options.warp_width);
    }
    d.log.append(r);
    if (failure) throw *failure;
    // Managed, cudaMallocHost and __managed__ memory the kernel may have written: the host reads it in place,
    // with no copy to see. Such a program's results count as read after every launch.
    for (const auto& [base, a] : d.allocations)
        if (a.region == Region::Managed || a.region == Region::Host || a.managed_variable) {
            result_read(d, "memory the host reads in place (managed or cudaMallocHost)");
            break;
        }
}

std::size_t heap_bytes() { return emu::device_heap_bytes(); }
void set_heap_bytes(std::size_t bytes) { emu::set_device_heap_bytes(bytes); }

KernelAttributes kernel_attributes(const void* kernel)
{
    const Kernel& k = kernel_record(kernel);
    if (!k.info) throw Failure(Error::InvalidDeviceFunction, "kernel " + k.name + " has no PTX to read its attributes from");
    KernelAttributes a;
    a.static_shared = k.info->static_shared_bytes;
    a.local_bytes = k.info->local_bytes;
    a.max_threads = device_limits().max_threads_per_block;
    a.max_dynamic_shared = int(k.max_dynamic_shared);
    a.ptx_version = 90;
    return a;
}

void set_max_dynamic_shared(const void* kernel, int bytes)
{
    Kernel& k = kernel_record(kernel);
    const std::size_t static_bytes = k.info ? k.info->static_shared_bytes : 0;
    if (bytes < 0 || std::size_t(bytes) + static_bytes > device_limits().shared_per_block_optin)
        throw Failure(Error::InvalidValue, "cudaFuncSetAttribute: " + std::to_string(bytes) + " bytes of dynamic shared memory for " + k.name +
                                               "; a block may have at most " + std::to_string(device_limits().shared_per_block_optin) +
                                               " in all");
    k.max_dynamic_shared = std::size_t(bytes);
}

int blocks_per_sm(const void* kernel, int block_threads, std::size_t dynamic_shared)
{
    const Kernel& k = kernel_record(kernel);
    occupancy::Usage use;
    use.threads_per_block = unsigned(std::max(block_threads, 0));
    use.shared_per_block = unsigned((k.info ? k.info->static_shared_bytes : 0) + dynamic_shared);
    return int(occupancy::occupancy(*occupancy::find_arch("h100"), use).blocks_per_sm);
}

void* allocate(std::size_t bytes, Memory kind, const CallSite& site)
{
    Device& d = device();
    std::lock_guard lock(d.mutex);
    const std::size_t host_bytes = std::size_t(sysconf(_SC_PHYS_PAGES)) * std::size_t(sysconf(_SC_PAGE_SIZE));
    if (bytes > host_bytes / 2)
        throw Failure(Error::MemoryAllocation, "an allocation of " + std::to_string(bytes) + " bytes: more than half this machine's " +
                                                   std::to_string(host_bytes >> 20) + " MiB, where the emulator keeps device memory");
    if (kind != Memory::Host && d.injected && d.injected->call == InjectedFailure::Call::Allocation &&
        ++d.device_allocations == d.injected->nth) {
        const std::string line = host_line(site);
        throw Failure(Error::MemoryAllocation,
                      injected_failure_text(*d.injected, std::string(region_name(region_of(kind))) + (line.empty() ? "" : " at " + line)));
    }
    void* p = nullptr;
    try {
        if (kind == Memory::Host) {
            p = d.emu.alloc_bytes(bytes);
        } else {
            OpenMemory open;
            p = map_memory(bytes, kind == Memory::Managed, site);
            if (!p) throw Failure(Error::MemoryAllocation, "an allocation of " + std::to_string(bytes) + " bytes: no memory to map");
            d.emu.adopt(p, bytes);
        }
    } catch (const emu::LaunchError& e) {
        throw Failure(Error::MemoryAllocation, e.what());
    }
    d.allocations[reinterpret_cast<std::uintptr_t>(p)] = Allocation{bytes, region_of(kind), site, false};
    return p;
}

void release(void* p, Memory kind, const CallSite& site)
{
    if (!p) return;
    Device& d = device();
    std::lock_guard lock(d.mutex);
    const char* call = kind == Memory::Host ? "cudaFreeHost" : kind == Memory::Array ? "cudaFreeArray" : "cudaFree";
    const auto it = d.allocations.find(reinterpret_cast<std::uintptr_t>(p));
    if (it == d.allocations.end() || it->second.region == Region::Variable)
        throw Failure(Error::InvalidValue, std::string(call) + " of a pointer no allocation returned, or one freed already");
    // cudaFree frees cudaMalloc's and cudaMallocManaged's memory; the other kinds have their own call.
    const auto freed_by = [](Region r) { return r == Region::Managed ? Region::Device : r; };
    if (freed_by(region_of(kind)) != freed_by(it->second.region))
        throw Failure(Error::InvalidValue, std::string(call) + " of memory from " + region_name(it->second.region));
    const Region region = it->second.region;
    d.allocations.erase(it);
    if (region == Region::Host) {
        d.emu.free(p);
    } else {
        d.emu.forget(p);
        unmap_memory(p, site);
    }
}

void copy(void* dst, const void* src, std::size_t bytes, Direction direction, const char* call)
{
    Device& d = device();
    std::lock_guard lock(d.mutex);
    const bool to_device = direction == Direction::HostToDevice || direction == Direction::DeviceToDevice;
    const bool from_device = direction == Direction::DeviceToHost || direction == Direction::DeviceToDevice;
    check_range(d, dst, bytes, to_device, call, "destination");
    check_range(d, src, bytes, from_device, call, "source");
    // Device memory (a cudaMalloc's, a managed one's, a __device__ variable's) into the host's.
    const auto from = d.allocation_at(src), to = d.allocation_at(dst);
    if (bytes && from && from->second.region != Region::Host && (!to || to->second.region == Region::Host))
        result_read(d, call);
    OpenMemory open;
    if (bytes) std::memmove(dst, src, bytes);
}

void fill(void* dst, int value, std::size_t bytes, const char* call)
{
    Device& d = device();
    std::lock_guard lock(d.mutex);
    check_range(d, dst, bytes, true, call, "destination");
    OpenMemory open;
    if (bytes) std::memset(dst, value, bytes);
}

void check_device_range(const void* p, std::size_t bytes, const char* call, const char* what)
{
    Device& d = device();
    std::lock_guard lock(d.mutex);
    check_range(d, p, bytes, true, call, what);
}

std::optional<Memory> memory_at(const void* p)
{
    Device& d = device();
    std::lock_guard lock(d.mutex);
    const auto a = d.allocation_at(p);
    if (!a) return std::nullopt;
    switch (a->second.region) {
    case Region::Managed: return Memory::Managed;
    case Region::Host: return Memory::Host;
    case Region::Array: return Memory::Array;
    case Region::Device: case Region::Variable: return Memory::Device;
    }
    return Memory::Device;
}

std::span<unsigned char> symbol(const void* host_variable)
{
    Device& d = device();
    std::lock_guard lock(d.mutex);
    const auto it = d.variables.find(host_variable);
    if (it == d.variables.end())
        throw Failure(Error::InvalidSymbol, "the symbol given is no __device__ or __constant__ variable (pass the variable itself)");
    const ModuleRecord& m = *it->second.module;
    if (!m.module) throw Failure(Error::InvalidSymbol, "variable " + it->second.name + ": " + m.error);
    const std::span<unsigned char> s = m.module->symbol(it->second.name);
    if (s.empty()) throw Failure(Error::InvalidSymbol, "variable " + it->second.name + " is not in " + m.origin + "'s PTX");
    return s;
}

void reset(const CallSite& site)
{
    std::vector<std::pair<void*, Memory>> live;
    {
        std::lock_guard lock(device().mutex);
        for (const auto& [base, a] : device().allocations)
            if (a.region != Region::Variable)
                live.emplace_back(reinterpret_cast<void*>(base), a.region == Region::Host    ? Memory::Host
                                                                 : a.region == Region::Array ? Memory::Array
                                                                                             : Memory::Device);
    }
    for (const auto& [p, kind] : live) release(p, kind, site);
}

void synchronise()
{
    Device& d = device();
    std::lock_guard lock(d.mutex);
    synchronised();
    OpenMemory reclose;  // its end closes memory by the new rule
}

double emulated_clock_ms()
{
    Device& d = device();
    std::lock_guard lock(d.mutex);
    return d.clock_ms;
}

}  // namespace wl::cudart
