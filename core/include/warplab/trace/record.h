// One traced access (or synchronisation) of one lane, exactly as a backend
// records it. The emulator and the GPU trace build both produce these; the
// grouping into warp-level events (events.h) is shared, so both backends give
// the same events by construction whenever their lanes did the same accesses.
#pragma once
#include <cstdint>

#include "warplab/trace/kinds.h"

#if defined(__CUDACC__)
#define WL_HD __host__ __device__
#else
#define WL_HD
#endif

namespace wl::trace {

// Kind and Space: kinds.h lists them, with their names and what each is.

// POD, identical on host and device (no constructors), 56 bytes.
struct LaneRecord {
    std::uint32_t block;      // flattened block index
    std::uint32_t thread;     // flattened thread index in the block
    std::uint32_t seq;        // this thread's record counter (program order)
    std::uint32_t epoch;      // __syncthreads() passed so far
    std::uint32_t sub;        // warp collectives completed since the last __syncthreads()
    std::uint32_t line;       // source line of the access
    std::uint32_t file_hash;  // fnv1a of the source file's base name
    Kind kind;
    Space space;
    std::uint8_t size;        // bytes accessed (1..16); element size for Declare
    std::uint8_t array;       // shared: declaration order; global: kernel argument position
    std::uint64_t offset;     // byte offset from the array start (global: + base % 256); Declare: element count
    std::uint64_t value[2];   // raw bytes of the value loaded/stored (little-endian, zero padded)
};
static_assert(sizeof(LaneRecord) == 56, "LaneRecord is copied from the GPU as raw bytes: keep its layout");

// fnv1a over the file's base name, so that absolute build paths do not matter.
WL_HD constexpr std::uint32_t file_hash(const char* path)
{
    const char* base = path;
    for (const char* p = path; *p; ++p)
        if (*p == '/' || *p == '\\') base = p + 1;
    std::uint32_t h = 2166136261u;
    for (const char* p = base; *p; ++p) h = (h ^ static_cast<unsigned char>(*p)) * 16777619u;
    return h;
}

}  // namespace wl::trace
