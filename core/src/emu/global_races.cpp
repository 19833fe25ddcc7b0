// Races on global memory, between threads of one block and across blocks,
// by the rules shared memory's check uses (checks.cpp, races.h) and, between
// blocks, CUDA's memory model (NVIDIA, "CUDA C++ Programming Guide", memory
// fence functions; PTX ISA, "Memory Consistency Model"): a block's accesses are
// ordered before another block's only by a release in the first (a fence, or
// a .release operation) followed by an acquire in the second (a fence, an
// atomic, a strong load), in that order in time. A launch's shadow lives for
// the launch: the boundary between two launches orders everything.
//
// Every rule errs towards "ordered", so that a correct kernel is never
// accused: any thread's release or acquire counts for its whole block (as a
// __syncthreads() around a fence makes it in the commonest patterns), an
// acquire need not read the released value, and an atomic or a strong load
// is an acquire (NVIDIA's threadfence reduction orders its last block's reads
// by the atomicInc that found it last, with no fence after it).
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <mutex>
#include <new>
#include <sstream>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "races.h"

namespace wl::emu::detail {

namespace {

// An access as the shadow keeps it: an AccessStamp in 24 bytes (its file and
// line as a site of the launch's table), and its block's releases logged
// before it: the release that orders it is its block's next one.
struct GlobalStamp {
    std::uint16_t thread;
    std::uint8_t bytes;
    std::uint8_t flags;  // kValid, kAtomic, kBesideAtomics
    std::uint32_t epoch, clock, block, released, site;
};
enum : std::uint8_t { kValid = 1, kAtomic = 2, kBesideAtomics = 4 };
// The last write, the last read, and the last read from another warp (of any block) than that one.
struct GlobalWord {
    GlobalStamp write, read, read_other;
};

constexpr unsigned kChunkShift = 12;  // a chunk shadows 4 KB of memory
constexpr std::size_t kChunkWords = (std::size_t{1} << kChunkShift) / 4;
// The shadow is 18 bytes a byte of memory touched: past this many bytes of it
// in one launch, further memory goes unchecked (no fault can come of it).
constexpr std::size_t kMaxShadowBytes = std::size_t{256} << 20;

}  // namespace

struct alignas(64) GlobalChunk {
    std::atomic<bool> locked{false};  // several host threads run the launch's blocks
    GlobalWord words[kChunkWords];    // zeros: no access yet
};

namespace {

// Chunks are cut from slabs of 2 MB, which the kernel may back with one huge
// page each: a few page faults a launch where chunks of their own took 18 each.
constexpr std::size_t kSlabBytes = std::size_t{2} << 20;
struct SlabFree {
    void operator()(void* p) const { std::free(p); }
};
using Slab = std::unique_ptr<void, SlabFree>;

// Null when the host has no memory left for it (the memory it would shadow goes unchecked).
Slab new_slab()
{
    void* p = std::aligned_alloc(kSlabBytes, kSlabBytes);
#ifdef MADV_HUGEPAGE
    if (p) madvise(p, kSlabBytes, MADV_HUGEPAGE);  // a hint: without huge pages, ordinary ones
#endif
    return Slab(p);
}

}  // namespace

struct GlobalShadow {
    bool concurrent = false;
    std::mutex mutex;  // the chunks' map and the releases
    std::unordered_map<std::uintptr_t, GlobalChunk*> chunks;
    std::vector<Slab> slabs;
    std::size_t slab_used = kSlabBytes;  // bytes of the last slab cut into chunks
    // The launch's synchronisation clock, one tick a logged release or an
    // acquire; by block, the clock at each of its logged releases.
    std::atomic<std::uint64_t> clock{0};
    std::unordered_map<std::uint32_t, std::vector<std::uint64_t>> releases;
    // The file and line of every access site stamped so far (a stamp keeps its index).
    std::vector<std::pair<const char*, unsigned>> sites;
};

std::shared_ptr<GlobalShadow> make_global_shadow(bool concurrent)
{
    auto s = std::make_shared<GlobalShadow>();
    s->concurrent = concurrent;
    return s;
}

namespace {

constexpr std::size_t kMaxChunks = kMaxShadowBytes / sizeof(GlobalChunk);

// A zeroed chunk from the shadow's slabs (trivially destructible: freeing the slabs ends it); null without memory.
GlobalChunk* new_chunk(GlobalShadow& g)
{
    static_assert(std::is_trivially_destructible_v<GlobalChunk> && sizeof(GlobalChunk) <= kSlabBytes);
    if (g.slab_used + sizeof(GlobalChunk) > kSlabBytes) {
        Slab slab = new_slab();
        if (!slab) return nullptr;
        g.slabs.push_back(std::move(slab));
        g.slab_used = 0;
    }
    void* at = static_cast<char*>(g.slabs.back().get()) + g.slab_used;
    g.slab_used += sizeof(GlobalChunk);
    return new (at) GlobalChunk();
}

// The chunk shadowing the byte at addr; null past the shadow's budget.
GlobalChunk* chunk_of(Block& b, std::uintptr_t addr)
{
    const std::uintptr_t key = addr >> kChunkShift;
    Block::ChunkSlot& slot = b.chunk_cache[key % std::size(b.chunk_cache)];
    if (key == slot.key) return slot.chunk;
    GlobalShadow& g = *b.global;
    std::lock_guard lock(g.mutex);
    auto it = g.chunks.find(key);
    GlobalChunk* c = nullptr;
    if (it != g.chunks.end()) c = it->second;
    else if (g.chunks.size() < kMaxChunks && (c = new_chunk(g))) g.chunks.emplace(key, c);
    slot = Block::ChunkSlot{key, c};
    return c;
}

// The site's index in the launch's table (a few sites a kernel: the block keeps the last ones).
std::uint32_t site_of(Block& b, const char* file, unsigned line)
{
    for (const Block::SiteSlot& k : b.site_cache)
        if (k.file == file && k.line == line && k.index != ~0u) return k.index;
    GlobalShadow& g = *b.global;
    std::uint32_t index = 0;
    {
        std::lock_guard lock(g.mutex);
        const auto it = std::find(g.sites.begin(), g.sites.end(), std::pair<const char*, unsigned>{file, line});
        index = static_cast<std::uint32_t>(it - g.sites.begin());
        if (it == g.sites.end()) g.sites.emplace_back(file, line);
    }
    b.site_cache[b.next_site++ % std::size(b.site_cache)] = Block::SiteSlot{file, line, index};
    return index;
}

// The stamp as the clash rules read it.
AccessStamp full_stamp(const Block& b, const GlobalStamp& g)
{
    std::pair<const char*, unsigned> at{"", 0};
    {
        std::lock_guard lock(b.global->mutex);
        at = b.global->sites[g.site];
    }
    return AccessStamp{g.thread, g.epoch, g.clock, g.block, at.first, at.second, (g.flags & kValid) != 0,
                       (g.flags & kAtomic) != 0, g.bytes, (g.flags & kBesideAtomics) != 0};
}

class ChunkLock {
public:
    ChunkLock(GlobalChunk& c, bool concurrent) : c_(c), concurrent_(concurrent) { lock(); }
    ~ChunkLock() { unlock(); }
    void lock()
    {
        if (!concurrent_) return;
        while (c_.locked.exchange(true, std::memory_order_acquire))
            while (c_.locked.load(std::memory_order_relaxed)) std::this_thread::yield();
        held_ = true;
    }
    void unlock()
    {
        if (concurrent_ && held_) c_.locked.store(false, std::memory_order_release);
        held_ = false;
    }
    bool held() const { return concurrent_ && held_; }
    // Keeps the chunk locked past this object (unlocked with unlock_chunk).
    GlobalChunk* release()
    {
        held_ = false;
        return &c_;
    }

private:
    GlobalChunk& c_;
    bool concurrent_;
    bool held_ = false;
};

void unlock_chunk(GlobalChunk& c) { c.locked.store(false, std::memory_order_release); }

// Logs a release of the block, when it has accessed global memory since its last one.
void release(Block& b)
{
    if (!b.accessed_since_release) return;
    GlobalShadow& g = *b.global;
    const std::uint64_t t = ++g.clock;
    {
        std::lock_guard lock(g.mutex);
        g.releases[b.flat].push_back(t);
    }
    ++b.releases;
    b.accessed_since_release = false;
}

void acquire(Block& b) { b.acquired = ++b.global->clock; }

// Has the block that made `before` released after it, and this block acquired since?
[[gnu::noinline]] bool released_to(const Block& b, const GlobalStamp& before)
{
    if (b.acquired == 0) return false;
    GlobalShadow& g = *b.global;
    std::lock_guard lock(g.mutex);
    const auto it = g.releases.find(before.block);
    if (it == g.releases.end() || before.released >= it->second.size()) return false;
    return it->second[before.released] < b.acquired;
}

inline bool ordered_global(const Lane& now, const GlobalStamp& before)
{
    if (!(before.flags & kValid)) return true;
    if (before.block == now.block->flat &&
        ordered(now, AccessStamp{before.thread, before.epoch, before.clock, before.block, nullptr, 0, true, false, 0, false}))
        return true;
    return released_to(*now.block, before);
}

// "block (1,0,0)"
std::string block_name(const Block& b, std::uint32_t flat)
{
    const dim3& g = b.grid;
    std::ostringstream s;
    s << "block (" << flat % g.x << "," << (flat / g.x) % g.y << "," << flat / (g.x * g.y) << ")";
    return s.str();
}

// The other thread was in this block or another one; its thread index is in
// its own block, whose shape is this one's.
[[noreturn, gnu::cold, gnu::noinline]] void global_race_fault(Lane& lane, const MemoryAccess& a, std::uint64_t,
                                                             const AccessStamp& other, bool other_writes)
{
    const Block& b = *lane.block;
    const bool same_block = other.block == b.flat;
    std::ostringstream what;
    what << "data race on global memory: " << a.name << "[" << a.index << "] (byte " << a.index * a.size << ") is "
         << (a.kind == Kind::Load ? "read" : "written") << " here and " << (other_writes ? "written" : "read") << " by "
         << thread_name(b, other.thread) << " of " << (same_block ? "this block" : block_name(b, other.block))
         << other_site(a.file, a.line, other.file, other.line);
    if (same_block)
        what << ", with no __syncthreads() or __syncwarp() between the two, nor a fence and a flag or atomic that orders them";
    else
        what << ". Blocks are ordered only through memory: the first block's __threadfence() (or a release) after its "
                "access, then this block's acquire of what followed it (an atomic or flag it read, or a fence) before "
                "this access; nothing of the kind lies between the two (blocks may run in any order, or at once)";
    fault(lane, a.file, a.line, what.str());
}

// One access, for messages and the clash rules: element `index` of `name` counts in units of the access's size.
MemoryAccess described(Kind kind, void* ptr, unsigned size, const char* name, std::uint64_t offset, const char* file,
                       unsigned line)
{
    return MemoryAccess{name, static_cast<long long>(offset / size), file, line, kind, size, ptr, true};
}

}  // namespace

void check_global_access(Kind kind, void* ptr, unsigned size, const char* name, std::uint64_t offset, const char* file,
                         unsigned line, const void* stored, bool strong, bool releases)
{
    Lane& lane = *tls_lane;
    Block& b = *lane.block;
    if (!b.global) return;
    if (releases) release(b);
    const bool writes = kind != Kind::Load;
    const bool atomic = kind == Kind::Atomic || strong;
    AccessFacts facts{atomic, kind == Kind::Store ? stored : nullptr};
    GlobalStamp stamp{static_cast<std::uint16_t>(lane.flat), 0, static_cast<std::uint8_t>(kValid | (atomic ? kAtomic : 0)),
                      lane.epoch, lane_clock(lane), b.flat, b.releases, site_of(b, file, line)};
    const auto byte = reinterpret_cast<std::uintptr_t>(ptr);
    const std::uintptr_t end = byte + size;
    for (std::uintptr_t w = byte / 4; w < (end + 3) / 4; ++w) {
        GlobalChunk* c = chunk_of(b, w * 4);
        if (!c) continue;
        const std::uintptr_t lo = std::max(byte, w * 4), hi = std::min(end, w * 4 + 4);
        stamp.bytes = static_cast<std::uint8_t>(((1u << (hi - lo)) - 1) << (lo - w * 4));
        ChunkLock lock(*c, b.global->concurrent);
        GlobalWord& s = c->words[w % kChunkWords];
        // A clash is settled with the chunk unlocked: a race leaves this lane for good.
        auto meet = [&](const GlobalStamp& other, bool other_writes) {
            if ((atomic && (other.flags & kAtomic)) || !(stamp.bytes & other.bytes) || ordered_global(lane, other)) return;
            const GlobalStamp seen = other;
            lock.unlock();
            const auto* word_bytes = reinterpret_cast<const unsigned char*>(w * 4);
            clash(lane, described(kind, ptr, size, name, offset, file, line), WordAt{w, word_bytes}, stamp.bytes, full_stamp(b, seen),
                  other_writes, facts, global_race_fault);
            lock.lock();
        };
        meet(s.write, true);
        if (writes) {
            meet(s.read, false);
            meet(s.read_other, false);
            if (facts.beside_atomics) stamp.flags |= kBesideAtomics;
            s.write = stamp;
            // An atomic's last word (4 or 8 aligned bytes: one chunk) stays locked until global_atomic_done, after the operation.
            if (kind == Kind::Atomic && lock.held() && w + 1 == (end + 3) / 4) b.held_chunk = lock.release();
        } else {
            const GlobalStamp& r = s.read;
            if ((r.flags & kValid) && (r.block != b.flat || (unsigned{r.thread} >> b.warp_shift) != lane.warp)) s.read_other = s.read;
            s.read = stamp;
        }
    }
    b.accessed_since_release = true;
}

void global_acquire()
{
    Block& b = *tls_lane->block;
    if (b.global) acquire(b);
}

void global_atomic_done()
{
    Block& b = *tls_lane->block;
    if (b.held_chunk) unlock_chunk(*std::exchange(b.held_chunk, nullptr));
    global_acquire();
}

void memory_fence()
{
    Block& b = *tls_lane->block;
    if (!b.global) return;
    release(b);
    acquire(b);
}

}  // namespace wl::emu::detail
