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
//
// The shadow keeps, for each 4-byte word touched, three stamps of 12 bytes.
// What the accesses of one block share between two of its barriers or
// releases (the block, its barrier epoch, its releases logged) is kept once,
// as a segment of the launch, which the stamps name by number. A launch's
// segments are numbered on from the last launch's, so that a later launch
// reuses the shadow's memory as it stands: a stamp of an earlier segment is
// no access at all, and no page is cleared twice.
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
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

// A block's accesses between two of its barriers or releases.
struct Segment {
    std::uint32_t block, epoch, released;  // released: the block's releases logged before them
};

// An access as the shadow keeps it: its segment, its lane's clock, and the
// rest packed in one word (the site as an index in the launch's table).
struct GlobalStamp {
    std::uint32_t segment;  // 0, or before the launch's first: no access
    std::uint32_t clock;
    std::uint32_t packed;
};
// The packed word's fields are a shared word's stamp's (packed_stamp, block.h). A
// launch with more sites than the field holds names its last one for those past it.
using packed_stamp::kAtomicBit;
using packed_stamp::kBesideAtomicsBit;
using packed_stamp::kBytesShift;
using packed_stamp::kMaxSite;
using packed_stamp::kSiteShift;
constexpr unsigned thread_of(const GlobalStamp& s) { return packed_stamp::thread_of(s.packed); }
constexpr std::uint8_t bytes_of(const GlobalStamp& s) { return packed_stamp::bytes_of(s.packed); }
constexpr bool atomic_of(const GlobalStamp& s) { return packed_stamp::atomic_of(s.packed); }
constexpr std::uint32_t site_of(const GlobalStamp& s) { return packed_stamp::site_of(s.packed); }

// The last write, the last read, and the last read from another warp (of any
// block) than that one.
struct GlobalWord {
    GlobalStamp write, read, read_other;
};
static_assert(sizeof(GlobalWord) == 36);

constexpr unsigned kChunkShift = 12;  // a chunk shadows 4 KB of memory
constexpr std::size_t kChunkWords = (std::size_t{1} << kChunkShift) / 4;
// The shadow is 9 bytes a byte of memory touched: past this much memory
// touched in one launch, further memory goes unchecked (no fault can come of
// it). Each launch pays for its shadow's pages the system clears, up to 150 MB.
constexpr std::size_t kMaxCheckedBytes = std::size_t{16} << 20;

// Segments live in pages that never move, so that host threads read them while others add more.
constexpr unsigned kSegmentPageShift = 16;
constexpr std::uint32_t kSegmentPageMask = (1u << kSegmentPageShift) - 1;
constexpr std::size_t kSegmentPages = std::size_t{1} << (32 - kSegmentPageShift);
// A shadow whose numbers pass this at a launch's start starts afresh (a launch has ample room left).
constexpr std::uint32_t kRenumberAt = 1u << 31;

}  // namespace

// Its words as earlier launches left them (or zeros): their stamps are no accesses, its lock not held.
// The lock, for launches whose blocks run on several host threads, guards the words: held while the
// launch's mark is in it (another number, an earlier launch's, is no hold).
struct alignas(64) GlobalChunk {
    std::uint32_t lock;
    GlobalWord words[kChunkWords];
};

namespace {

// Chunks are cut from slabs of 2 MB, which the kernel may back with one huge
// page each: a few page faults a launch where chunks of their own took 9 each.
constexpr std::size_t kSlabBytes = std::size_t{2} << 20;

#if defined(__linux__)
struct SlabFree {
    void operator()(void* p) const { munmap(p, kSlabBytes); }
};
// Anonymous memory: zeros, cleared by the system as each page is first touched.
void* map_slab()
{
    void* p = mmap(nullptr, 2 * kSlabBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    // Aligned to its size, so that one huge page can back it: the rest of the mapping is given back.
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t aligned = (at + kSlabBytes - 1) & ~(kSlabBytes - 1);
    if (aligned > at) munmap(p, aligned - at);
    if (aligned + kSlabBytes < at + 2 * kSlabBytes)
        munmap(reinterpret_cast<void*>(aligned + kSlabBytes), at + kSlabBytes - aligned);
    void* slab = reinterpret_cast<void*>(aligned);
#ifdef MADV_HUGEPAGE
    madvise(slab, kSlabBytes, MADV_HUGEPAGE);  // a hint: without huge pages, ordinary ones
#endif
    return slab;
}
#else
struct SlabFree {
    void operator()(void* p) const { std::free(p); }
};
void* map_slab()
{
    void* p = std::aligned_alloc(kSlabBytes, kSlabBytes);
    if (p) std::memset(p, 0, kSlabBytes);
    return p;
}
#endif
using Slab = std::unique_ptr<void, SlabFree>;

}  // namespace

struct GlobalShadow {
    bool concurrent = false;
    std::uint64_t launch = 0;     // the process's count of launches at this one's start (tls_chunks' tag)
    std::uint32_t lock_mark = 0;  // what a held word lock holds in this launch
    std::mutex mutex;  // the chunks' map, the releases, the sites, the segments' pages
    std::unordered_map<std::uintptr_t, GlobalChunk*> chunks;
    std::vector<Slab> slabs;  // kept for later launches, which cut them into chunks again
    std::size_t slab = 0;     // the slab being cut
    std::size_t slab_used = 0;  // its bytes cut so far
    // The launch's synchronisation clock, one tick a logged release or an
    // acquire; by block, the clock at each of its logged releases.
    std::atomic<std::uint64_t> clock{0};
    std::unordered_map<std::uint32_t, std::vector<std::uint64_t>> releases;
    // The file and line of every access site stamped so far (a stamp keeps its index).
    std::vector<std::pair<const char*, unsigned>> sites;
    // This launch's segments are numbered from first_segment.
    std::uint32_t first_segment = 1;
    std::atomic<std::uint32_t> next_segment{1};
    std::unique_ptr<std::atomic<Segment*>[]> segment_pages{new std::atomic<Segment*>[kSegmentPages]()};
    std::vector<std::unique_ptr<Segment[]>> segment_storage;

    static inline std::atomic<std::uint64_t> launches{0};  // the process's

    // Ready for a launch: what the last one left reads as no access.
    void start(bool concurrent_blocks)
    {
        concurrent = concurrent_blocks;
        if (next_segment.load() >= kRenumberAt) {  // numbers would run out: the stamps go with the memory they are in
            slabs.clear();
            next_segment = 1;
        }
        first_segment = next_segment.load();
        launch = ++launches;
        if (++lock_mark == 0) {  // marks would repeat: the locks go with the memory they are in
            slabs.clear();
            lock_mark = 1;
        }
        chunks.clear();
        slab = 0;
        slab_used = 0;
        clock = 0;
        releases.clear();
        sites.clear();
    }
};

namespace {

// Shadows that launches have ended with, for the next launch (one: launches
// mostly follow each other; a second at once gets a shadow of its own).
struct ShadowPool {
    std::mutex mutex;
    std::unique_ptr<GlobalShadow> spare;
};
ShadowPool& shadow_pool()
{
    static ShadowPool pool;
    return pool;
}

void return_shadow(GlobalShadow* s)
{
    std::unique_ptr<GlobalShadow> ended(s);
    ShadowPool& pool = shadow_pool();
    std::lock_guard lock(pool.mutex);
    if (!pool.spare) pool.spare = std::move(ended);
}

}  // namespace

std::shared_ptr<GlobalShadow> make_global_shadow(bool concurrent)
{
    std::unique_ptr<GlobalShadow> s;
    {
        ShadowPool& pool = shadow_pool();
        std::lock_guard lock(pool.mutex);
        s = std::move(pool.spare);
    }
    if (!s) s = std::make_unique<GlobalShadow>();
    s->start(concurrent);
    return std::shared_ptr<GlobalShadow>(s.release(), return_shadow);
}

namespace {

constexpr std::size_t kMaxChunks = kMaxCheckedBytes >> kChunkShift;

// A chunk from the shadow's slabs (trivially destructible: freeing the slabs
// ends it), its words as an earlier launch left them; null without memory.
GlobalChunk* new_chunk(GlobalShadow& g)
{
    static_assert(std::is_trivially_destructible_v<GlobalChunk> && sizeof(GlobalChunk) <= kSlabBytes);
    if (g.slab_used + sizeof(GlobalChunk) > kSlabBytes || g.slab == g.slabs.size()) {
        if (g.slab_used > 0) ++g.slab;
        g.slab_used = 0;
        if (g.slab == g.slabs.size()) {
            Slab slab(map_slab());
            if (!slab) return nullptr;
            g.slabs.push_back(std::move(slab));
        }
    }
    void* at = static_cast<char*>(g.slabs[g.slab].get()) + g.slab_used;
    g.slab_used += sizeof(GlobalChunk);
    return new (at) GlobalChunk;  // default-initialised: left as it is
}

// The chunks this host thread found last, by address (a matrix's column
// crosses a chunk every row or two): most look-ups without the shadow's lock.
struct ChunkSlot {
    std::uint64_t launch;
    std::uintptr_t key;
    GlobalChunk* chunk;
};
constexpr std::size_t kChunkSlots = 512;
WL_RUNTIME_TLS ChunkSlot tls_chunks[kChunkSlots];

[[gnu::noinline]] GlobalChunk* find_chunk(GlobalShadow& g, std::uintptr_t key)
{
    std::lock_guard lock(g.mutex);
    auto it = g.chunks.find(key);
    GlobalChunk* c = nullptr;
    if (it != g.chunks.end()) c = it->second;
    else if (g.chunks.size() < kMaxChunks && (c = new_chunk(g))) g.chunks.emplace(key, c);
    return c;
}

// The chunk shadowing the byte at addr; null past the shadow's budget.
GlobalChunk* chunk_of(GlobalShadow& g, std::uintptr_t addr)
{
    const std::uintptr_t key = addr >> kChunkShift;
    ChunkSlot& slot = tls_chunks[key % kChunkSlots];
    if (slot.launch == g.launch && slot.key == key) [[likely]]
        return slot.chunk;
    slot = ChunkSlot{g.launch, key, find_chunk(g, key)};
    return slot.chunk;
}

// The site of this host thread's last stamp: a warp pass's lanes come to one site one after another.
struct LastSite {
    std::uint64_t launch;
    const char* file;
    unsigned line;
    std::uint32_t index;
};
WL_RUNTIME_TLS LastSite tls_last_site;

// The site's index in the launch's table (a few sites a kernel: the block keeps the last ones).
[[gnu::noinline]] std::uint32_t new_site_index(Block& b, const char* file, unsigned line)
{
    GlobalShadow& g = *b.global;
    std::uint32_t index = ~0u;
    for (const Block::SiteSlot& k : b.site_cache)
        if (k.file == file && k.line == line && k.index != ~0u) {
            index = k.index;
            break;
        }
    if (index == ~0u) {
        {
            std::lock_guard lock(g.mutex);
            const auto it = std::find(g.sites.begin(), g.sites.end(), std::pair<const char*, unsigned>{file, line});
            index = static_cast<std::uint32_t>(it - g.sites.begin());
            if (it == g.sites.end()) g.sites.emplace_back(file, line);
        }
        b.site_cache[b.next_site++ % std::size(b.site_cache)] = Block::SiteSlot{file, line, index};
    }
    tls_last_site = LastSite{g.launch, file, line, index};
    return index;
}

std::uint32_t site_index(Block& b, const char* file, unsigned line)
{
    const LastSite& last = tls_last_site;
    if (last.file == file && last.line == line && last.launch == b.global->launch) [[likely]]
        return last.index;
    return new_site_index(b, file, line);
}

const Segment& segment(const GlobalShadow& g, std::uint32_t number)
{
    return g.segment_pages[number >> kSegmentPageShift].load(std::memory_order_acquire)[number & kSegmentPageMask];
}

// A new segment for the block's accesses from now on; 0 when the launch has used every number.
[[gnu::noinline]] std::uint32_t new_segment(Block& b, std::uint32_t epoch)
{
    GlobalShadow& g = *b.global;
    const std::uint32_t number = g.next_segment.fetch_add(1, std::memory_order_relaxed);
    if (number < g.first_segment) {  // wrapped past 2^32: the rest of the launch goes unchecked
        g.next_segment.store(0, std::memory_order_relaxed);
        return 0;
    }
    std::atomic<Segment*>& page = g.segment_pages[number >> kSegmentPageShift];
    Segment* p = page.load(std::memory_order_acquire);
    if (!p) {
        std::lock_guard lock(g.mutex);
        p = page.load(std::memory_order_relaxed);
        if (!p) {
            p = g.segment_storage.emplace_back(new Segment[std::size_t{1} << kSegmentPageShift]).get();
            page.store(p, std::memory_order_release);
        }
    }
    p[number & kSegmentPageMask] = Segment{b.flat, epoch, b.releases};
    b.segment = number;
    b.segment_epoch = epoch;
    b.segment_releases = b.releases;
    return number;
}

// The segment of the lane's access now: the block's last one, unless a barrier or a release has passed since.
std::uint32_t current_segment(Block& b, const Lane& lane)
{
    if (b.segment && b.segment_epoch == lane.epoch && b.segment_releases == b.releases) [[likely]]
        return b.segment;
    return new_segment(b, lane.epoch);
}

bool is_access(const GlobalShadow& g, const GlobalStamp& s) { return s.segment >= g.first_segment; }

// The stamp as the clash rules read it.
AccessStamp full_stamp(const Block& b, const GlobalStamp& s)
{
    const Segment seg = segment(*b.global, s.segment);
    std::pair<const char*, unsigned> at{"", 0};
    {
        std::lock_guard lock(b.global->mutex);
        at = b.global->sites[site_of(s)];
    }
    return AccessStamp{thread_of(s), seg.epoch, s.clock, seg.block, at.first, at.second, true,
                       atomic_of(s), bytes_of(s), packed_stamp::beside_atomics_of(s.packed)};
}

// The lock of the chunk an access is at (GlobalChunk::lock), through the compilers' atomic builtins on
// the plain word (as std::atomic_ref would, which libc++ 14 lacks). It holds one chunk at a time: the
// lanes of a warp's access mostly fall in one, which they lock once.
class ChunkLock {
public:
    explicit ChunkLock(const GlobalShadow& g) : mark_(g.concurrent ? g.lock_mark : 0) {}
    ChunkLock(const ChunkLock&) = delete;
    ChunkLock& operator=(const ChunkLock&) = delete;
    ~ChunkLock() { release(); }
    // Holds c's lock, and no other.
    void hold(GlobalChunk* c)
    {
        if (c == chunk_) return;
        release();
        chunk_ = c;
        if (!mark_) return;
        while (__atomic_exchange_n(&c->lock, mark_, __ATOMIC_ACQUIRE) == mark_)
            while (__atomic_load_n(&c->lock, __ATOMIC_RELAXED) == mark_) std::this_thread::yield();
    }
    void release()
    {
        if (chunk_ && mark_) __atomic_store_n(&chunk_->lock, 0, __ATOMIC_RELEASE);
        chunk_ = nullptr;
    }
    // Keeps the lock held past this object (unlock_held frees it); null when none is held.
    std::uint32_t* keep()
    {
        std::uint32_t* held = chunk_ && mark_ ? &chunk_->lock : nullptr;
        chunk_ = nullptr;
        return held;
    }

private:
    GlobalChunk* chunk_ = nullptr;
    std::uint32_t mark_;  // 0: one host thread, no locking
};

// The chunk an atomic keeps locked (ChunkLock::keep), unlocked.
void unlock_held(Block& b)
{
    for (std::uint32_t*& held : b.held_words)
        if (held) __atomic_store_n(std::exchange(held, nullptr), 0, __ATOMIC_RELEASE);
}

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
[[gnu::noinline]] bool released_to(const Block& b, const Segment& before)
{
    if (b.acquired == 0) return false;
    GlobalShadow& g = *b.global;
    std::lock_guard lock(g.mutex);
    const auto it = g.releases.find(before.block);
    if (it == g.releases.end() || before.released >= it->second.size()) return false;
    return it->second[before.released] < b.acquired;
}

// `before` is an access of this launch.
bool ordered_global(const Lane& now, const GlobalStamp& before)
{
    const Block& b = *now.block;
    const Segment seg = segment(*b.global, before.segment);
    if (seg.block == b.flat &&
        ordered(now, AccessStamp{thread_of(before), seg.epoch, before.clock, seg.block, nullptr, 0, true, false, 0, false}))
        return true;
    return released_to(b, seg);
}

// Which block made the access (of this launch): the running block's segment needs no look-up.
std::uint32_t block_of(const Block& b, const GlobalStamp& s)
{
    return s.segment == b.segment ? b.flat : segment(*b.global, s.segment).block;
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

// One access as check_global_access is given it.
struct GlobalAccess {
    Kind kind;
    void* ptr;
    unsigned size;
    const char* name;
    std::uint64_t offset;
    const char* file;
    unsigned line;
    const void* stored;  // a plain store's bytes, else null
};

// For messages and the clash rules: element `index` of `name` counts in units of the access's size.
MemoryAccess described(const GlobalAccess& a)
{
    return MemoryAccess{a.name, static_cast<long long>(a.offset / a.size), a.file, a.line, a.kind, a.size, a.ptr, true};
}

// Could `other` clash with an access to `bytes` of its word, before the ordering rules? An earlier launch's
// stamp is no access; atomics do not race with atomics.
bool may_clash(const GlobalShadow& g, const GlobalStamp& other, bool atomic, std::uint8_t bytes)
{
    return is_access(g, other) && !(atomic && atomic_of(other)) && (bytes & bytes_of(other));
}

[[gnu::always_inline]] inline bool unordered(const Lane& lane, const GlobalShadow& g, const GlobalStamp& other, bool atomic,
                                             std::uint8_t bytes)
{
    return may_clash(g, other, atomic, bytes) && !ordered_global(lane, other);
}

// Leaves the access's stamp in the word, once it has met the stamps there.
[[gnu::always_inline]] inline void leave_stamp(Lane& lane, GlobalWord& s, Kind kind, const GlobalStamp& stamp)
{
    const Block& b = *lane.block;
    if (kind != Kind::Load) {
        s.write = stamp;
        return;
    }
    const GlobalStamp& r = s.read;
    if (is_access(*b.global, r) && (block_of(b, r) != b.flat || (thread_of(r) >> b.warp_shift) != lane.warp)) s.read_other = r;
    s.read = stamp;
}

// The access (its words from `w` on) under every clash rule: each stamp it meets unordered is settled by clash
// with the chunk unlocked (a race leaves this lane for good), then the chunk is locked again.
[[gnu::cold, gnu::noinline]] void check_words(Lane& lane, const GlobalAccess& a, std::uintptr_t w, GlobalStamp stamp,
                                              ChunkLock& lock)
{
    AccessFacts facts{atomic_of(stamp), a.kind == Kind::Store ? a.stored : nullptr};
    Block& b = *lane.block;
    GlobalShadow& g = *b.global;
    const auto byte = reinterpret_cast<std::uintptr_t>(a.ptr);
    const std::uint32_t packed = stamp.packed;
    for (const std::uintptr_t end = (byte + a.size + 3) / 4; w < end; ++w) {
        GlobalChunk* c = chunk_of(g, w * 4);
        if (!c) continue;
        const std::uint8_t bytes = word_bytes(byte, byte + a.size, w);
        stamp.packed = packed | std::uint32_t{bytes} << kBytesShift;
        GlobalWord& s = c->words[w % kChunkWords];
        lock.hold(c);
        auto meet = [&](const GlobalStamp& other, bool other_writes) {
            if (!unordered(lane, g, other, facts.atomic, bytes)) return;
            const GlobalStamp seen = other;
            lock.release();
            unlock_held(b);  // no lock is held through a clash, which may end the lane
            const auto* word_bytes = reinterpret_cast<const unsigned char*>(w * 4);
            clash(lane, described(a), WordAt{w, word_bytes}, bytes, full_stamp(b, seen), other_writes, facts, global_race_fault);
            lock.hold(c);
        };
        meet(s.write, true);
        if (a.kind != Kind::Load) {
            meet(s.read, false);
            meet(s.read_other, false);
            if (facts.beside_atomics) stamp.packed |= 1u << kBesideAtomicsBit;
        }
        leave_stamp(lane, s, a.kind, stamp);
    }
}

// The common case: the access meets no stamp of word w unordered, and leaves its own there (true); or
// it may meet one, and the word is left as it was for check_words (false).
[[gnu::always_inline]] inline bool stamp_word(Lane& lane, Kind kind, std::uintptr_t w, std::uint8_t bytes, GlobalStamp stamp,
                                              ChunkLock& lock)
{
    GlobalShadow& g = *lane.block->global;
    GlobalChunk* c = chunk_of(g, w * 4);
    if (!c) return true;  // past the shadow's budget: unchecked
    GlobalWord& s = c->words[w % kChunkWords];
    const bool atomic = atomic_of(stamp);
    stamp.packed |= std::uint32_t{bytes} << kBytesShift;
    lock.hold(c);
    if (unordered(lane, g, s.write, atomic, bytes)) return false;
    if (kind != Kind::Load && (unordered(lane, g, s.read, atomic, bytes) || unordered(lane, g, s.read_other, atomic, bytes)))
        return false;
    leave_stamp(lane, s, kind, stamp);
    return true;
}

// One lane's access, once its block's part is done: `site` its stamp's site and atomic bits. It leaves
// `lock` holding the chunk of its last word.
[[gnu::always_inline]] inline void check_lane_access(Lane& lane, const GlobalAccess& a, std::uint32_t site, ChunkLock& lock)
{
    Block& b = *lane.block;
    b.accessed_since_release = true;
    const std::uint32_t segment = current_segment(b, lane);
    if (segment == 0) [[unlikely]] return;  // past the launch's numbers: unchecked
    const GlobalStamp stamp{segment, lane_clock(lane), lane.flat | site};
    const auto byte = reinterpret_cast<std::uintptr_t>(a.ptr);
    const std::uintptr_t first = byte / 4;
    if ((byte & 3) + a.size <= 4) [[likely]] {  // one word (a scalar): its bytes from the access's first
        const auto bytes = static_cast<std::uint8_t>((0xFu >> (4 - a.size)) << (byte & 3));
        if (!stamp_word(lane, a.kind, first, bytes, stamp, lock)) [[unlikely]]
            check_words(lane, a, first, stamp, lock);
        return;
    }
    for (std::uintptr_t w = first, end = (byte + a.size + 3) / 4; w < end; ++w)
        if (!stamp_word(lane, a.kind, w, word_bytes(byte, byte + a.size, w), stamp, lock)) [[unlikely]] {
            check_words(lane, a, w, stamp, lock);
            return;
        }
}

// A stamp's site and atomic bits.
std::uint32_t site_bits(Block& b, const char* file, unsigned line, bool atomic)
{
    return std::uint32_t{atomic} << kAtomicBit | std::min(site_index(b, file, line), kMaxSite) << kSiteShift;
}

}  // namespace

void check_global_access(Kind kind, void* ptr, unsigned size, const char* name, std::uint64_t offset, const char* file,
                         unsigned line, const void* stored, bool strong, bool releases)
{
    Lane& lane = *tls_lane;
    Block& b = *lane.block;
    if (!b.global) return;
    if (releases) [[unlikely]] release(b);
    ChunkLock lock(*b.global);
    check_lane_access(lane, GlobalAccess{kind, ptr, size, name, offset, file, line, stored},
                      site_bits(b, file, line, kind == Kind::Atomic || strong), lock);
    // An atomic's chunk (its 4 or 8 aligned bytes lie in one) stays locked until global_atomic_done, after the operation.
    if (kind == Kind::Atomic) b.held_words[0] = lock.keep();
}

namespace {

// The chunk a batched access's lanes found last (they mostly fall in one): chunk_of's look-up once a chunk.
struct LastChunk {
    std::uintptr_t key = ~std::uintptr_t{0};
    GlobalChunk* chunk = nullptr;
};

// The quick pass over one lane of a batched access of whole words (kSize bytes, 4-aligned): its words
// stamped while no stamp there may clash with it. Returns the first word it left to check_words (one
// whose stamps may clash), or the access's end.
template <Kind kKind, unsigned kSize>
[[gnu::always_inline]] inline std::uintptr_t stamp_lane_quickly(Lane& lane, GlobalShadow& g, std::uintptr_t first,
                                                                GlobalStamp stamp, LastChunk& last, ChunkLock& lock)
{
    stamp.packed |= std::uint32_t{0xF} << kBytesShift;
    for (unsigned i = 0; i < kSize / 4; ++i) {
        const std::uintptr_t w = first + i, key = w >> (kChunkShift - 2);
        if (key != last.key) [[unlikely]] last = LastChunk{key, chunk_of(g, w * 4)};
        if (!last.chunk) [[unlikely]] continue;  // past the shadow's budget: unchecked
        GlobalWord& s = last.chunk->words[w % kChunkWords];
        lock.hold(last.chunk);
        if (unordered(lane, g, s.write, false, 0xF)) [[unlikely]] return w;
        if (kKind != Kind::Load && (unordered(lane, g, s.read, false, 0xF) || unordered(lane, g, s.read_other, false, 0xF)))
            [[unlikely]] return w;
        leave_stamp(lane, s, kKind, stamp);
    }
    return first + kSize / 4;
}

}  // namespace

void access_global_lanes(const GlobalLanes& at, const unsigned* flats, unsigned char* const* ptrs,
                         std::uint32_t (*data)[4], unsigned count)
{
    if (count == 0) return;
    Block& b = *tls_pass.block;
    // A load's lanes and a store's, of each size, have loops of their own: the kind and size are constants in them.
    // A lane is entered only where check_words may name it, and the last at the end, as entering each in turn leaves it.
    const auto lanes = [&](auto stores, auto size) {
        constexpr unsigned kSize = decltype(size)::value;
        constexpr Kind kKind = decltype(stores)::value ? Kind::Store : Kind::Load;
        if (!b.global) {
            for (unsigned k = 0; k < count; ++k) move_lane_bytes<kSize>(stores, ptrs[k], data[k]);
            return;
        }
        GlobalShadow& g = *b.global;
        const std::uint32_t site = site_bits(b, at.file, at.line, false);
        b.accessed_since_release = true;
        ChunkLock lock(g);
        LastChunk last;
        for (unsigned k = 0; k < count; ++k) {
            Lane& lane = b.lanes[flats[k]];
            const std::uint32_t segment = current_segment(b, lane);
            const auto byte = reinterpret_cast<std::uintptr_t>(ptrs[k]);
            if (segment != 0) [[likely]] {
                const GlobalStamp stamp{segment, lane_clock(lane), lane.flat | site};
                const std::uintptr_t end = (byte + kSize + 3) / 4;
                const std::uintptr_t w = byte % 4 == 0 ? stamp_lane_quickly<kKind, kSize>(lane, g, byte / 4, stamp, last, lock) : byte / 4;
                if (w < end) [[unlikely]] {
                    enter_lane(flats[k]);
                    const GlobalAccess a{kKind, ptrs[k], kSize, at.name, byte - at.base, at.file, at.line, stores ? data[k] : nullptr};
                    check_words(lane, a, w, stamp, lock);
                    last = LastChunk{};
                }
            }
            move_lane_bytes<kSize>(stores, ptrs[k], data[k]);
        }
    };
    with_size(at.size, [&](auto size) {
        if (at.kind == Kind::Store) lanes(std::true_type{}, size);
        else lanes(std::false_type{}, size);
    });
    enter_lane(flats[count - 1]);
}

void global_acquire()
{
    Block& b = *tls_lane->block;
    if (b.global) acquire(b);
}

void global_atomic_done()
{
    Block& b = *tls_lane->block;
    unlock_held(b);
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
