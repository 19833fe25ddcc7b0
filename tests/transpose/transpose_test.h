// Shared by the transpose lab's tests: the lab as every front end finds it,
// and requests that run on the emulator whatever the machine has.
#pragma once
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "labs/common/lab.h"
#include "labs/common/traced_run.h"

namespace warplab::test {

inline const Lab& transpose_lab()
{
    const Lab* lab = find_lab("transpose");
    if (!lab) throw std::logic_error("the registry has no transpose lab");
    return *lab;
}

// The schedule type of a request (the lanes' order on the emulator).
using Schedule = decltype(RunRequest{}.schedule);

// shape {rows, cols}; empty: the lab's trace default (64×64).
inline RunRequest cpu_request(const std::string& version, std::vector<std::size_t> shape, std::uint64_t seed = 1,
                              Schedule schedule = Schedule::Independent)
{
    RunRequest req;
    req.version = version;
    req.type = "float";
    req.shape = std::move(shape);
    req.backend = BackendChoice::Cpu;  // Auto would pick a GPU where there is one
    req.schedule = schedule;
    req.seed = seed;
    return req;
}

inline std::vector<std::string> version_ids()
{
    std::vector<std::string> out;
    for (const auto& v : transpose_lab().versions) out.push_back(v.id);
    return out;
}

}  // namespace warplab::test
