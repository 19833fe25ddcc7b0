// The number of set bits of a lane mask, in one instruction where the host
// has one. The build targets every x86-64 (no -mpopcnt), where GCC makes
// std::popcount a call into libgcc (a table, byte by byte); so on x86-64 the
// choice is made once, at start, by what the processor says it has (POPCNT,
// on every x86-64 since 2008); elsewhere, and without it, std::popcount.
#pragma once
#include <bit>
#include <cstdint>

namespace wl::emu::detail {

#if defined(__x86_64__) && !defined(__POPCNT__)
inline const bool kHostPopcnt = (__builtin_cpu_init(), __builtin_cpu_supports("popcnt"));
inline unsigned bit_count(std::uint64_t bits)
{
    if (!kHostPopcnt) [[unlikely]]
        return static_cast<unsigned>(std::popcount(bits));
    std::uint64_t count;
    __asm__("popcnt %1, %0" : "=r"(count) : "rm"(bits) : "cc");
    return static_cast<unsigned>(count);
}
#else
inline unsigned bit_count(std::uint64_t bits) { return static_cast<unsigned>(std::popcount(bits)); }
#endif

}  // namespace wl::emu::detail
