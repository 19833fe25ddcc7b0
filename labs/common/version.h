// What every lab version declares once (labs/<lab>/versions.h); the CLI,
// viewer, benchmarks, tests and grader all read it from there.
#pragma once
#include <tuple>
#include <vector>

namespace warplab {

struct VersionMeta {
    const char* id;        // "v3"
    const char* name;      // "sequential_addressing"
    const char* kernel;    // the __global__ function's name
    const char* file;      // source, relative to the repository root
    const char* idea;      // one line
    const char* changed;   // what changed from the previous version
    const char* expected;  // the expected effect
    unsigned min_block;    // smallest block size the kernel supports
    bool variant;          // a marked variant (e.g. a racy form kept for teaching), not a step of the ladder
    unsigned bench_block = 256;         // block size `warplab bench` times it at (its best on the H100)
    bool last_block_finishes = false;   // single pass: whichever block ends last finishes the work, so the
                                        // watched block's trace can change from run to run
    const char* gpu_only = nullptr;  // why the emulator cannot run it (it runs only on a GPU); nullptr: it can
};

// Calls f(V{}) for each version type of a std::tuple list, stopping when f returns true.
template <class Tuple, class F> constexpr bool for_each_version(F&& f)
{
    return []<class... V>(F& g, const std::tuple<V...>*) { return (g(V{}) || ...); }(f, static_cast<const Tuple*>(nullptr));
}

// The metadata of every version of a std::tuple list, in order.
template <class Tuple> std::vector<VersionMeta> version_list()
{
    std::vector<VersionMeta> out;
    for_each_version<Tuple>([&](auto v) {
        out.push_back(decltype(v)::meta);
        return false;
    });
    return out;
}

}  // namespace warplab
