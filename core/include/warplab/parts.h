// Work shared out among the host's cores, a part a thread. Where no more
// threads can be had (the browser build has one: hardware_concurrency() is 1
// there), the calling thread runs the parts left, so every part runs.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace wl {

// The host threads warplab may use: one per core, or $WARPLAB_HOST_THREADS
// (1 to 1024; 1 runs the emulator's blocks in order, as the browser build does).
// Throws std::invalid_argument, naming the variable, for any other value.
inline unsigned host_threads()
{
    const char* env = std::getenv("WARPLAB_HOST_THREADS");
    if (!env || !*env) return std::max(1u, std::thread::hardware_concurrency());
    char* end = nullptr;
    const unsigned long n = std::strtoul(env, &end, 10);
    if (*end != '\0' || n < 1 || n > 1024)
        throw std::invalid_argument(std::string("WARPLAB_HOST_THREADS=") + env + ": expected a number of host threads from 1 to 1024");
    return static_cast<unsigned>(n);
}

// How many parts `work` makes (in any unit), each at least `per_part` of it, a part a host thread.
inline std::size_t parts_for(std::size_t work, std::size_t per_part)
{
    return std::max<std::size_t>(1, std::min<std::size_t>(host_threads(), work / per_part));
}

// Calls work(p) for each part p in [0, parts), each on a thread of its own but
// part 0, which the calling thread runs (and, after it, any part whose thread
// could not be started); returns once all are done.
template <class Work> void run_parts(std::size_t parts, Work work)
{
    std::vector<std::thread> helpers;
    std::size_t started = 1;
    try {
        for (; started < parts; ++started) helpers.emplace_back(work, started);
    } catch (const std::system_error&) {  // no more threads to be had
    }
    work(std::size_t{0});
    for (std::size_t p = started; p < parts; ++p) work(p);
    for (std::thread& h : helpers) h.join();
}

// Calls first() and second(), side by side where two host threads may be had,
// else one after the other; returns once both are done.
template <class First, class Second> void side_by_side(First first, Second second)
{
    const std::size_t parts = std::min<std::size_t>(2, host_threads());
    run_parts(parts, [&](std::size_t p) {
        if (p == 0) first();
        if (p == 1 || parts == 1) second();
    });
}

}  // namespace wl
