// The race rules shared and global memory share (checks.cpp): what two
// conflicting accesses of different threads, with nothing ordering them, are
// under CUDA's rules: nothing (lanes of one store instruction writing the
// same bytes), a warning (what CUDA defines but a kernel should not count on,
// or what the memory model calls a race that the hardware hides), or a race,
// which stops the launch with the memory's own message.
#pragma once
#include <cstring>
#include <type_traits>

#include "block.h"

namespace wl::emu::detail {

// One lane's access, as the interpreter describes it.
struct MemoryAccess {
    const char* name;  // the array, for messages: element_name(name, shape, index)
    long long index;
    const char* file;
    unsigned line;
    Kind kind;
    unsigned size;
    void* ptr;
    bool global = false;  // global memory (shared otherwise)
    const DeclaredShape* shape = nullptr;  // a shared array's declared dimensions in the index's elements, or null
};

struct AccessFacts {
    bool atomic;              // an atomic, or a strong (.acquire/.relaxed/.volatile) load
    const void* stored;       // a plain store's bytes, else null
    bool beside_atomics = false;  // set by clash: a plain store that races with atomics (AccessStamp::beside_atomics)
};

// The word the two accesses meet at: its number in messages, its bytes now.
struct WordAt {
    std::uint64_t index;
    const unsigned char* bytes;
};

// The bytes of word w (bit i: byte i) that the access to [byte, end) touches: char and short elements share words.
constexpr std::uint8_t word_bytes(std::uintptr_t byte, std::uintptr_t end, std::uintptr_t w)
{
    const std::uintptr_t at = w * 4;
    unsigned mask = 0xF;
    if (byte > at) mask &= 0xFu << (byte - at);
    if (end < at + 4) mask &= 0xFu >> (at + 4 - end);
    return static_cast<std::uint8_t>(mask & 0xF);
}

// A batched access's lane (access_global_lanes, access_shared_lanes): its bytes moved, a store's into
// memory at `at`, a load's out of it; Size a constant, so that they move without a call.
template <unsigned Size> void move_lane_bytes(bool stores, unsigned char* at, std::uint32_t* data)
{
    if (stores) std::memcpy(at, data, Size);
    else std::memcpy(data, at, Size);
}

// Calls access(std::integral_constant<unsigned, Size>) for a batched access's size: 4, 8 or 16 bytes.
template <class Access> void with_size(unsigned size, Access access)
{
    switch (size) {
    case 4: access(std::integral_constant<unsigned, 4>{}); break;
    case 8: access(std::integral_constant<unsigned, 8>{}); break;
    default: access(std::integral_constant<unsigned, 16>{}); break;
    }
}

// Stops the launch with the memory's message; never returns.
using RaceFault = void (*)(Lane& lane, const MemoryAccess& a, std::uint64_t word, const AccessStamp& other,
                           bool other_writes);

// A warning at one thread of the running block's access, kept once per site and text.
void warn(Block& b, unsigned thread, const char* file, unsigned line, std::string what);

// This access meets `other` (of another thread, unordered with it) on `bytes`
// of the word: a warning or nothing returns; a race calls `race`.
[[gnu::cold, gnu::noinline]] void clash(Lane& lane, const MemoryAccess& a, const WordAt& word, std::uint8_t bytes,
                                        const AccessStamp& other, bool other_writes, AccessFacts& facts, RaceFault race);

}  // namespace wl::emu::detail
