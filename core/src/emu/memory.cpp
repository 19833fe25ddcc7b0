// Memory: the emulator's device allocations (poisoned, 256-byte aligned, found
// by address for bounds and fault messages) and each block's shared arrays
// (allocated in a per-host-thread arena by the first lane that declares them).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "block.h"

namespace wl::emu {

namespace {
struct Allocation {
    std::size_t bytes;
};
std::mutex g_alloc_mutex;
std::map<std::uintptr_t, Allocation> g_allocations;  // base -> size
constexpr unsigned char kPoisonByte = 0xCD;
// Bytes kept free before and after each allocation, in no allocation: an index one past the end (or
// before the start) faults as out of bounds instead of landing in the next buffer, as it can on a GPU,
// whose cudaMalloc places buffers back to back. A multiple of 256, so that allocations stay aligned.
constexpr std::size_t kGuardBytes = 256;
}  // namespace

Emulator::Emulator() = default;
Emulator::~Emulator()
{
    while (!owned_.empty()) free(owned_.back());
}

void* Emulator::alloc_bytes(std::size_t bytes)
{
    const std::size_t rounded = std::max<std::size_t>(256, (bytes + 255) / 256 * 256);
    void* raw = rounded + 2 * kGuardBytes < rounded ? nullptr : std::aligned_alloc(256, rounded + 2 * kGuardBytes);
    if (!raw) throw LaunchError("emulator: out of host memory for a " + std::to_string(bytes) + "-byte allocation");
    void* p = static_cast<unsigned char*>(raw) + kGuardBytes;
    std::memset(p, kPoisonByte, bytes);
    std::lock_guard lock(g_alloc_mutex);
    g_allocations[reinterpret_cast<std::uintptr_t>(p)] = Allocation{bytes};
    owned_.push_back(p);
    return p;
}

void Emulator::adopt(void* p, std::size_t bytes)
{
    std::memset(p, kPoisonByte, bytes);
    std::lock_guard lock(g_alloc_mutex);
    g_allocations[reinterpret_cast<std::uintptr_t>(p)] = Allocation{bytes};
}

void Emulator::forget(void* p)
{
    std::lock_guard lock(g_alloc_mutex);
    g_allocations.erase(reinterpret_cast<std::uintptr_t>(p));
}

void* Emulator::grid_workspace()
{
    constexpr std::size_t kBytes = 16;  // the toolkit's barrier word sits at byte 4
    if (!grid_workspace_) grid_workspace_ = alloc_bytes(kBytes);
    std::memset(grid_workspace_, 0, kBytes);
    return grid_workspace_;
}

void Emulator::free(void* p)
{
    if (!p) return;  // as cudaFree(nullptr)
    const auto it = std::find(owned_.begin(), owned_.end(), p);
    if (it == owned_.end()) throw LaunchError("emulator: free of memory this emulator did not allocate, or freed already");
    owned_.erase(it);
    {
        std::lock_guard lock(g_alloc_mutex);
        g_allocations.erase(reinterpret_cast<std::uintptr_t>(p));
    }
    std::free(static_cast<unsigned char*>(p) - kGuardBytes);
}

namespace {
std::mutex g_heap_mutex;
std::size_t g_heap_bytes = std::size_t{8} << 20;
std::map<void*, std::size_t> g_heap_live;  // block -> its bytes
std::vector<void*> g_heap_freed;           // freed in this launch: given back at the next
std::size_t g_heap_in_use = 0;
}  // namespace

std::size_t device_heap_bytes()
{
    std::lock_guard lock(g_heap_mutex);
    return g_heap_bytes;
}

void set_device_heap_bytes(std::size_t bytes)
{
    std::lock_guard lock(g_heap_mutex);
    g_heap_bytes = bytes;
}

namespace detail {

void* heap_malloc(std::size_t bytes)
{
    const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + 15) / 16 * 16;  // 16-byte aligned, as the GPU's
    std::lock_guard lock(g_heap_mutex);
    if (g_heap_in_use > g_heap_bytes || rounded > g_heap_bytes - g_heap_in_use) return nullptr;  // (a heap made smaller under its blocks)
    void* p = std::aligned_alloc(16, rounded);
    if (!p) return nullptr;
    std::memset(p, kPoisonByte, rounded);
    g_heap_live[p] = rounded;
    g_heap_in_use += rounded;
    std::lock_guard alloc_lock(g_alloc_mutex);
    g_allocations[reinterpret_cast<std::uintptr_t>(p)] = Allocation{bytes};
    return p;
}

bool heap_free(void* p)
{
    std::lock_guard lock(g_heap_mutex);
    const auto it = g_heap_live.find(p);
    if (it == g_heap_live.end()) return false;
    g_heap_in_use -= it->second;
    g_heap_live.erase(it);
    g_heap_freed.push_back(p);
    std::lock_guard alloc_lock(g_alloc_mutex);
    g_allocations.erase(reinterpret_cast<std::uintptr_t>(p));
    return true;
}

void heap_new_launch()
{
    std::lock_guard lock(g_heap_mutex);
    for (void* p : g_heap_freed) std::free(p);
    g_heap_freed.clear();
}

const char* argument_name(std::uint8_t position)
{
    static const auto names = [] {
        std::vector<std::string> v;
        for (int i = 0; i < 256; ++i) v.push_back("argument " + std::to_string(i));
        return v;
    }();
    return names[position].c_str();
}

bool find_allocation(std::uintptr_t addr, std::uintptr_t& base, std::size_t& bytes)
{
    std::lock_guard lock(g_alloc_mutex);
    auto it = g_allocations.upper_bound(addr);
    if (it == g_allocations.begin()) return false;
    --it;
    if (addr >= it->first + it->second.bytes) return false;
    base = it->first;
    bytes = it->second.bytes;
    return true;
}

namespace {

// An array's bytes in the block's arena, as declare_shared counts them (a wanted size past the arena's
// capacity kept just past it, so that a 32-bit size_t cannot wrap it below).
std::size_t declared_bytes(unsigned elem_size, unsigned long long count)
{
    const std::uint64_t wanted = elem_size * count;
    return static_cast<std::size_t>(std::min<std::uint64_t>(wanted, kSharedCapacity + 1ull));
}

// The block's first declaration of its k-th array (its place in the arena, its bytes poisoned and its
// words' shadows reset), a declaration that differs from it, and thread 0's record of it.
[[gnu::noinline]] void* declare_shared_carefully(Lane& lane, unsigned k, unsigned elem_size, unsigned long long count,
                                                 const char* name, const char* file, unsigned line, bool zeroed)
{
    Block& b = *lane.block;
    const std::uint64_t wanted = elem_size * count;  // 64 bits: a 32-bit size_t would wrap past the check
    const std::size_t bytes = declared_bytes(elem_size, count);
    if (k == b.decls.size()) {
        const std::size_t offset = (b.shared_used + 15) / 16 * 16;
        if (offset + bytes > kSharedCapacity) {
            fault(lane, file, line,
                  "shared memory exhausted: " + std::string(name) + " needs " + std::to_string(wanted) +
                      " bytes, the block already uses " + std::to_string(offset) + " of " +
                      std::to_string(kSharedCapacity));
        }
        b.decls.push_back(SharedDecl{offset, bytes});
        b.shared_used = offset + bytes;
        std::memset(b.arena + offset, zeroed ? 0 : kPoisonByte, bytes);
        WordShadow fresh{};
        fresh.initialised = zeroed ? 0xF : 0;
        std::fill(b.shadow + offset / 4, b.shadow + (offset + bytes + 3) / 4, fresh);
    } else if (b.decls[k].bytes != bytes) {
        fault(lane, file, line, "threads of one block declared different shared arrays");
    }
    if (lane.flat == 0) {
        char label[16] = {};
        std::memcpy(label, name, std::min(sizeof label, std::strlen(name)));
        record(lane, trace::Kind::Declare, trace::Space::Shared, elem_size, static_cast<std::uint8_t>(k), count,
               label, sizeof label, file, line);
    }
    return b.arena + b.decls[k].offset;
}

}  // namespace

// Nearly every call is a later thread's, which finds the array declared as it declares it.
void* declare_shared(unsigned elem_size, unsigned long long count, const char* name, const char* file,
                     unsigned line, bool zeroed)
{
    Lane& lane = *tls_lane;
    const Block& b = *lane.block;
    const unsigned k = lane.declared++;
    if (lane.flat != 0 && k < b.decls.size() && b.decls[k].bytes == declared_bytes(elem_size, count)) [[likely]]
        return b.arena + b.decls[k].offset;
    return declare_shared_carefully(lane, k, elem_size, count, name, file, line, zeroed);
}

}  // namespace detail
}  // namespace wl::emu
