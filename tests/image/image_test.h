// Shared by the image lab's tests: the lab as every front end finds it, and
// requests that run on the emulator whatever the machine has.
#pragma once
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "labs/common/lab.h"

namespace warplab::test {

inline const Lab& image_lab()
{
    const Lab* lab = find_lab("image");
    if (!lab) throw std::logic_error("the registry has no image lab");
    return *lab;
}

using Schedule = decltype(RunRequest{}.schedule);

// size {width, height}; empty: the lab's trace default (320×180).
inline RunRequest cpu_request(const std::string& version, std::vector<std::size_t> size, std::uint64_t seed = 1)
{
    RunRequest req;
    req.version = version;
    req.type = "float";
    req.shape = std::move(size);
    req.backend = BackendChoice::Cpu;  // Auto would pick a GPU where there is one
    req.seed = seed;
    return req;
}

// The versions a 32-wide warp runs right: all but the marked variants (v3-wave64).
inline std::vector<std::string> nvidia_version_ids()
{
    std::vector<std::string> out;
    for (const auto& v : image_lab().versions)
        if (!v.variant) out.push_back(v.id);
    return out;
}

}  // namespace warplab::test
