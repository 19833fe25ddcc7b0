// Work shared out among the host's cores, a part a thread. Where no more
// threads can be had (the browser build has one: hardware_concurrency() is 1
// there), the calling thread runs the parts left, so every part runs.
#pragma once
#include <algorithm>
#include <cstddef>
#include <system_error>
#include <thread>
#include <vector>

namespace wl {

// How many parts `work` makes (in any unit), each at least `per_part` of it, a part a core.
inline std::size_t parts_for(std::size_t work, std::size_t per_part)
{
    return std::max<std::size_t>(1, std::min<std::size_t>(std::thread::hardware_concurrency(), work / per_part));
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

}  // namespace wl
